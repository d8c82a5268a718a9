// Reading the committed state: the head ConfigMap, the shard slots it names (each checked against the checksum the
// head recorded), its journal segments (each checked against its own checksum), and the witness that tells a lost
// head from a first start. A single-ConfigMap state (v2, v1) is read whole, to be rewritten as shards; state of
// another service, organization or cluster is not used. A damaged state costs only its damaged pieces
// (state/recovery.ts decides what replaces them): the damaged objects are handed to `keepAside` before anything is
// written over them, and the damage is returned for the store to record in the head.
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { AcknowledgedStateFormatError } from "./encoding.js";
import { AcknowledgedStateReadError, type StateConfigMaps } from "./configmaps.js";
import {
  DAMAGE_KEY,
  REPLACES_KEY,
  addDamage,
  count,
  headFormat,
  parseDamage,
  readJournal,
  readShardSlots,
  scanSlots,
  verifySlot,
  witnessName,
  witnessVerdict,
  type DamagedPiece,
  type ShardReading,
  type StateDamage,
  type StoredConfigMap,
} from "./recovery.js";
import {
  SLOTS,
  decodePart,
  parseShardTable,
  shardInFlight,
  slotName,
  stateToRewrite,
  type CommittedState,
  type ShardContent,
  type ShardRef,
  type Slot,
} from "./shards.js";

/** Whose state this is, and where it lives. */
export interface StateIdentity {
  namespace: string;
  name: string;
  org: string;
  cluster: string;
  apiUrl: string;
}

/** What reading needs besides the calls. */
export interface StateReadOptions {
  /** Most shards: how many slot pairs a reader without the head's table looks at. */
  maxShards: number;
  /** Copies damaged objects aside (none when it may not write); resolves with the copies' names. */
  keepAside: (objects: StoredConfigMap[]) => Promise<string[]>;
  now: () => Date;
}

/** The state as read, with its head's uid, the witness, and the damage (recorded before, or found now). */
export interface StateReading {
  state: CommittedState;
  headUid: string | undefined;
  /** The witness ConfigMap as read; undefined when there is none (or it could not be read). */
  witness: StoredConfigMap | undefined;
  damage: StateDamage | undefined;
}

/** How many times a head is read again when one of its shards changed under the read. */
const MAX_HEAD_READS = 6;

/**
 * Reads the committed state. `held` (the state read or written last) spares reading shards whose slot and checksum
 * have not changed.
 */
export async function readCommittedState(
  maps: StateConfigMaps,
  who: StateIdentity,
  logger: Logger,
  held: CommittedState | undefined,
  options: StateReadOptions,
): Promise<StateReading> {
  for (let attempt = 1; ; attempt++) {
    const head = await maps.read(who.name);
    const witness = await readWitness(maps, who, logger, head !== undefined);
    const verdict = witnessVerdict(head && stored(head), witness);
    if (!head) {
      if (verdict.kind !== "head-lost") return { state: stateToRewrite(null), headUid: undefined, witness, damage: undefined };
      // The head is gone but the witness remembers it: a lost state, not a first start.
      const piece = {
        what: `head ConfigMap ${who.namespace}/${who.name} is missing (the witness remembers head ${verdict.uid}, of ${verdict.records ?? "an unknown number of"} records at ${verdict.at}); its journal is lost`,
        atRisk: verdict.records,
      };
      return scanned(maps, who, logger, options, { version: null, uid: undefined, data: {}, binary: {} }, witness, [piece], verdict.uid);
    }
    const reading = await readHead(maps, who, logger, held, head, witness, options, attempt >= MAX_HEAD_READS);
    if (reading) return reading;
  }
}

/**
 * The witness. A failed read is retried (the load fails) while no head exists, since the witness then decides between
 * a first start and a lost state; but a read refused (401/403: RBAC without the witness, from an older chart) or failing
 * while a head exists goes on without it, said in a warning, rather than keep the controller from starting.
 */
async function readWitness(maps: StateConfigMaps, who: StateIdentity, logger: Logger, headExists: boolean) {
  try {
    const witness = await maps.read(witnessName(who.name));
    return witness && stored(witness);
  } catch (error) {
    if (!(error instanceof AcknowledgedStateReadError)) throw error;
    const refused = error.status === 401 || error.status === 403;
    if (!headExists && !refused) throw error;
    logger.warn(
      { err: error.message, configMap: `${who.namespace}/${witnessName(who.name)}` },
      headExists
        ? "reading the state's witness failed; going on with the head alone"
        : "reading the state's witness was refused: a lost state cannot be told from a first start (grant get and update on it)",
    );
    return undefined;
  }
}

function stored(map: V1ConfigMap): StoredConfigMap {
  return {
    name: map.metadata?.name ?? "",
    version: map.metadata?.resourceVersion ?? null,
    uid: map.metadata?.uid,
    data: map.data ?? {},
    binaryData: map.binaryData ?? {},
  };
}

/** The state a head names; undefined when a shard changed under us and the head should be read again. */
async function readHead(
  maps: StateConfigMaps,
  who: StateIdentity,
  logger: Logger,
  held: CommittedState | undefined,
  head: V1ConfigMap,
  witness: StoredConfigMap | undefined,
  options: StateReadOptions,
  lastAttempt: boolean,
): Promise<StateReading | undefined> {
  const where = `${who.namespace}/${who.name}`;
  const map = stored(head);
  const version = map.version;
  const data = map.data;
  const binary = map.binaryData;
  const headUid = map.uid;
  if (data.org !== who.org || data.cluster !== who.cluster || data["api-url"] !== who.apiUrl) {
    logger.warn(
      { configMap: where, org: data.org ?? null, cluster: data.cluster ?? null, apiUrl: data["api-url"] ?? null },
      "acknowledged state belongs to another service, organization or cluster; starting without it",
    );
    return { state: stateToRewrite(version), headUid, witness, damage: undefined };
  }
  const verdict = witnessVerdict(map, witness);
  const replaced: DamagedPiece[] =
    verdict.kind === "head-replaced"
      ? [
          {
            what: `head ConfigMap ${where} (uid ${headUid}) is not the one the witness remembers (${verdict.uid}, of ${verdict.records ?? "an unknown number of"} records at ${verdict.at}): the state it held is lost`,
            atRisk: verdict.records,
          },
        ]
      : [];
  const format = headFormat(data);
  const headCount = count(data.records, data["in-flight"]);
  if (format === "unknown") {
    const piece = {
      what: `head ConfigMap ${where} has format ${JSON.stringify(data.format)}, which this version cannot read`,
      atRisk: headCount,
    };
    return scanned(maps, who, logger, options, { version, uid: headUid, data, binary }, witness, [...replaced, piece]);
  }
  if (format === "single") {
    // The single-ConfigMap layout (v2, v1): read whole, rewritten as shards by the next write.
    try {
      const part = decodePart(binary, "");
      if (!part.records) throw new AcknowledgedStateFormatError("acknowledged state has no records.gz");
      const state = stateToRewrite(version, { records: part.records.records, inFlight: part.inFlight?.records ?? [] });
      return damaged(options, logger, where, { state, headUid, witness, damage: parseDamage(data[DAMAGE_KEY]) }, replaced, [map]);
    } catch (error) {
      if (!(error instanceof AcknowledgedStateFormatError)) throw error;
      const piece = { what: `head ConfigMap ${where} (single-ConfigMap layout) is unreadable: ${error.message}`, atRisk: headCount };
      return damaged(
        options,
        logger,
        where,
        { state: stateToRewrite(version), headUid, witness, damage: undefined },
        [...replaced, piece],
        [map],
      );
    }
  }
  let refs: ShardRef[];
  try {
    refs = parseShardTable(data.shards, data.partitions);
  } catch (error) {
    if (!(error instanceof AcknowledgedStateFormatError)) throw error;
    const piece = { what: `head ConfigMap ${where}: ${error.message}`, atRisk: headCount };
    return scanned(maps, who, logger, options, { version, uid: headUid, data, binary }, witness, [...replaced, piece]);
  }
  const shards: CommittedState["shards"] = [];
  const pieces: DamagedPiece[] = [...replaced];
  const damagedMaps: StoredConfigMap[] = [];
  for (const [index, ref] of refs.entries()) {
    if (ref.slot === null) {
      shards.push({ ref, content: { records: [], inFlight: [] } });
      continue;
    }
    const mine = held?.shards[index];
    if (mine?.ref && mine.ref.slot === ref.slot && mine.ref.checksum === ref.checksum) {
      shards.push({ ref, content: mine.content });
      continue;
    }
    const { slots, reading } = await readShard(maps, who.name, index, ref);
    if (reading.damage) {
      // A later compaction may have reused the slot since this head was read: read the head again.
      const again = await maps.read(who.name);
      if ((again?.metadata?.resourceVersion ?? null) !== version && !lastAttempt) return undefined;
      pieces.push(reading.damage.piece);
      for (const slot of SLOTS) if (slots[slot]) damagedMaps.push(slots[slot]!);
      // Written anew from the next write: the slots' versions as read, so the rewrite's writes are conditional on them.
      shards.push({ ref: { ...ref, versions: versionsOf(slots) }, content: reading.content });
    } else shards.push({ ref, content: reading.content });
  }
  const journal = readJournal(binary, shardInFlight(shards));
  pieces.push(...journal.pieces);
  // Never written so (a settlement names an entry the writer saw committed): the key is no longer in flight, and
  // keeps whatever record it had.
  if (journal.unresolved > 0)
    logger.warn({ configMap: where, keys: journal.unresolved }, "journal settles in-flight entries it does not hold");
  const journalBytes = Object.values(binary).reduce((n, v) => n + Buffer.byteLength(v, "base64"), 0);
  const state: CommittedState = {
    version,
    rewrite: false,
    shards,
    journal: journal.journal,
    seq: Math.max(Number(data.journal) || 0, journal.seq),
    settlements: journal.settlements,
    data,
    journalBytes,
  };
  return damaged(options, logger, where, { state, headUid, witness, damage: parseDamage(data[DAMAGE_KEY]) }, pieces, [map, ...damagedMaps]);
}

/**
 * A reading with `pieces` of damage found now: the damaged objects kept aside, the damage added to what the head
 * recorded, and the state marked to be written anew (with the damage) at once by the store.
 */
async function damaged(
  options: StateReadOptions,
  logger: Logger,
  where: string,
  reading: StateReading,
  pieces: DamagedPiece[],
  objects: StoredConfigMap[],
): Promise<StateReading> {
  if (pieces.length === 0) return reading;
  const keptAside = await options.keepAside(objects);
  const damage = addDamage(reading.damage, pieces, keptAside, options.now())!;
  const state = reading.state;
  state.rewrite = true;
  state.data = { ...state.data, [DAMAGE_KEY]: JSON.stringify(damage) };
  logger.error(
    { configMap: where, pieces: pieces.map((p) => p.what), atRisk: damage.atRisk, keptAside },
    "acknowledged state damaged: keeping what is readable; what is at risk stays reported until an operator clears it",
  );
  return { ...reading, damage };
}

/**
 * The state from every shard slot there is, when no head says which slots are current (its table unreadable, its
 * format unknown, or the head lost), with the head's journal when there is a head: every record the head counted is
 * at risk, since none can be verified against it.
 */
async function scanned(
  maps: StateConfigMaps,
  who: StateIdentity,
  logger: Logger,
  options: StateReadOptions,
  head: { version: string | null; uid: string | undefined; data: Record<string, string>; binary: Record<string, string> },
  witness: StoredConfigMap | undefined,
  pieces: DamagedPiece[],
  replaces?: string,
): Promise<StateReading> {
  const slots: StoredConfigMap[] = [];
  for (let index = 0; index < options.maxShards; index++)
    for (const slot of SLOTS) {
      const map = await maps.read(slotName(who.name, index, slot));
      if (map) slots.push(stored(map));
    }
  const scan = scanSlots(who.name, slots);
  const shards = scan.shards.map((content: ShardContent, index) => {
    const pair = Object.fromEntries(SLOTS.map((s) => [s, slots.find((m) => m.name === slotName(who.name, index, s))])) as Record<
      Slot,
      StoredConfigMap | undefined
    >;
    const read = SLOTS.find((s) => scan.read.includes(slotName(who.name, index, s))) ?? null;
    const ref: ShardRef = {
      slot: read,
      checksum: "",
      records: content.records.length,
      inFlight: content.inFlight.length,
      bytes: 0,
      versions: versionsOf(pair),
    };
    return { ref, content };
  });
  const journal = readJournal(head.binary, shardInFlight(shards));
  const found = shards.reduce((n, s) => n + s.content.records.length + s.content.inFlight.length, 0);
  const read =
    scan.read.length > 0
      ? `read back ${found} records from the newest verified slot of each shard (${scan.read.join(", ")}), unverified against a head`
      : "no shard slot could be read back";
  const all = [...pieces.slice(0, -1), { ...pieces.at(-1)!, what: `${pieces.at(-1)!.what}; ${read}` }, ...journal.pieces];
  const state: CommittedState = {
    version: head.version,
    rewrite: true,
    shards,
    journal: journal.journal,
    seq: journal.seq,
    settlements: journal.settlements,
    data: replaces ? { [REPLACES_KEY]: replaces } : {},
    journalBytes: 0,
  };
  const existing =
    head.version !== null ? [{ name: who.name, version: head.version, uid: head.uid, data: head.data, binaryData: head.binary }] : [];
  const unreadable = slots.filter((m) => scan.unreadable.includes(m.name));
  return damaged(
    options,
    logger,
    `${who.namespace}/${who.name}`,
    { state, headUid: head.uid, witness, damage: parseDamage(head.data[DAMAGE_KEY]) },
    all,
    [...existing, ...unreadable],
  );
}

/**
 * Shard `index` as its slots hold it: the named slot alone when it verifies against the head's checksum, else both
 * slots (undefined: no such ConfigMap), and what state/recovery.ts makes of them.
 */
async function readShard(
  maps: StateConfigMaps,
  name: string,
  index: number,
  ref: ShardRef,
): Promise<{ slots: Record<Slot, StoredConfigMap | undefined>; reading: ShardReading }> {
  const named = ref.slot!;
  const other: Slot = named === "a" ? "b" : "a";
  const slots = { a: undefined, b: undefined } as Record<Slot, StoredConfigMap | undefined>;
  const first = await maps.read(slotName(name, index, named));
  slots[named] = first && stored(first);
  if (slots[named]) {
    const verified = verifySlot(slots[named]!, name, index);
    if (!(verified instanceof Error) && verified.checksum === ref.checksum) return { slots, reading: { content: verified.content } };
  }
  const second = await maps.read(slotName(name, index, other));
  slots[other] = second && stored(second);
  return { slots, reading: readShardSlots(name, index, ref, slots) };
}

function versionsOf(slots: Record<Slot, StoredConfigMap | undefined>): Record<Slot, string | null> {
  return { a: slots.a?.version ?? null, b: slots.b?.version ?? null };
}
