// Reading a damaged state back: which piece of it can be trusted, what replaces a piece that cannot, and what the
// loss costs. Pure: plain ConfigMap contents in, plain data out (state/reader.ts makes the calls).
// - Every piece is verified before it is used: a shard slot's decoded content against the checksum the head names
//   for it (else against the checksum the slot itself carries), a journal segment against the checksum written
//   beside it (`journal-NNNNNN.check`; segments written before it are trusted when they decode).
// - A piece that fails costs that piece only: a shard falls back to its other slot (its previous content, or the
//   one the head meant to name), a segment is skipped, a head whose shard table or format cannot be read is replaced
//   by the newest verified slot of each shard; the rest is kept.
// - Whatever is not read back exactly is damage: what it was, and how many records (the head's own counts) can no
//   longer be guaranteed to be decommissioned. The damage is recorded in the head (`data.damage`) until an operator
//   clears it, so no restart forgets it.
import { AcknowledgedStateFormatError } from "./encoding.js";
import {
  SLOTS,
  STATE_LAYOUT,
  applySegment,
  decodePart,
  emptyChanges,
  segmentPrefix,
  segmentSeqs,
  type InFlightLookup,
  type RecordChanges,
  type ShardContent,
  type ShardRef,
  type Slot,
} from "./shards.js";

/** A ConfigMap as read: binaryData as the API gives it (base64). */
export interface StoredConfigMap {
  name: string;
  version: string | null;
  uid: string | undefined;
  data: Record<string, string>;
  binaryData: Record<string, string>;
}

export type { DamagedPiece, StateDamage } from "./damage.js";
import type { DamagedPiece, StateDamage } from "./damage.js";

/** `data.damage` of the head. */
export const DAMAGE_KEY = "damage";
/** `data.replaces` of a head created where the witness remembered another: the uid of the head it replaces. */
export const REPLACES_KEY = "replaces";
/** The witness ConfigMap's data key of the head's uid. */
export const WITNESS_UID_KEY = "state-uid";

/** The witness of the state `<name>`: a second ConfigMap remembering the head's uid and size. */
export function witnessName(stateName: string): string {
  return `${stateName}-witness`;
}

/** The key of a journal segment's checksum entry: `<sha256 hex> <keys>` as text. */
export function segmentCheckKey(seq: number): string {
  return `${segmentPrefix(seq)}check`;
}

/** The name a damaged object's copy takes: `<name>-damaged-<UTC time, as yyyymmddthhmmssz>`. */
export function damagedCopyName(name: string, at: Date): string {
  return `${name}-damaged-${at
    .toISOString()
    .replace(/[-:]|\.\d+/g, "")
    .toLowerCase()}`;
}

/** How the head's format reads. */
export type HeadFormat = "sharded" | "single" | "unknown";

/** The sharded layout, the single-ConfigMap layout of v1/v2 (`data.format` its encoding's, or none), or unknown. */
export function headFormat(data: Record<string, string>): HeadFormat {
  if (data.format === STATE_LAYOUT) return "sharded";
  if (data.format === undefined || /^shiplog-acknowledged v[1-3]$/.test(data.format)) return "single";
  return "unknown";
}

/** What the head and the witness together say about the state. */
export type WitnessVerdict =
  /** No head, no witness: nothing was ever written. */
  | { kind: "first-start" }
  /** No head, but the witness remembers one: the state was lost. */
  | { kind: "head-lost"; uid: string; records: number | null; at: string }
  /** A head the witness does not know, not created in its place by this layout: the state it remembers was lost. */
  | { kind: "head-replaced"; uid: string; records: number | null; at: string }
  /** The head, known to the witness, or adopted (none yet: written before the witness existed). */
  | { kind: "head" };

/**
 * The witness's word on the head: a head missing where the witness remembers one is a lost state, not a first start;
 * a head of another uid is the one the witness knows only when it says it replaces it (`data.replaces`).
 */
export function witnessVerdict(
  head: Pick<StoredConfigMap, "uid" | "data"> | undefined,
  witness: Pick<StoredConfigMap, "data"> | undefined,
): WitnessVerdict {
  const uid = witness?.data[WITNESS_UID_KEY];
  const records = count(witness?.data.records, witness?.data["in-flight"]);
  const at = witness?.data["written-at"] ?? "unknown";
  if (!head) return uid ? { kind: "head-lost", uid, records, at } : { kind: "first-start" };
  if (!uid || head.uid === undefined || head.uid === uid || head.data[REPLACES_KEY] === uid) return { kind: "head" };
  return { kind: "head-replaced", uid, records, at };
}

/** Records plus in-flight entries from two counters, null when neither reads as one. */
export function count(records: string | undefined, inFlight: string | undefined): number | null {
  const n = (text: string | undefined) => (text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined);
  const a = n(records);
  const b = n(inFlight);
  return a === undefined && b === undefined ? null : (a ?? 0) + (b ?? 0);
}

/** A slot's content, verified: it decodes, and its checksum is the one it carries (and `expected`, when given). */
export type VerifiedSlot = { content: ShardContent; checksum: string; partitions: number | null; writtenAt: number };

/**
 * Decodes and verifies a shard slot: it must be slot `index` of the state `stateName`, decode, and hold what its own
 * `data.checksum` says. An Error names what is wrong.
 */
export function verifySlot(slot: StoredConfigMap, stateName: string, index: number): VerifiedSlot | Error {
  const { data } = slot;
  if (data.head !== undefined && data.head !== stateName) return new Error(`${slot.name} belongs to ${data.head}`);
  if (data.shard !== undefined && data.shard !== String(index)) return new Error(`${slot.name} holds shard ${data.shard}`);
  let part: ReturnType<typeof decodePart>;
  try {
    part = decodePart(slot.binaryData, "");
  } catch (error) {
    if (error instanceof AcknowledgedStateFormatError) return new Error(`${slot.name} is unreadable (${error.message})`);
    throw error;
  }
  if (!part.records) return new Error(`${slot.name} has no records.gz`);
  if (data.checksum !== undefined && data.checksum !== part.checksum)
    return new Error(
      `${slot.name} does not hold what it says (checksum ${part.checksum.slice(0, 12)}, stated ${data.checksum.slice(0, 12)})`,
    );
  const partitions = Number(data.partitions);
  return {
    content: { records: part.records.records, inFlight: part.inFlight?.records ?? [] },
    checksum: part.checksum,
    partitions: Number.isInteger(partitions) && partitions > 0 ? partitions : null,
    writtenAt: Date.parse(data["written-at"] ?? "") || 0,
  };
}

/** A shard as read back: its content, and the damage when it is not exactly what the head names. */
export interface ShardReading {
  content: ShardContent;
  /** Set when the content is not the head's: the slots not to overwrite before they are kept aside. */
  damage?: { piece: DamagedPiece; damaged: string[] };
}

/**
 * Shard `index` from its slots (undefined: no such ConfigMap). The content is the head's when a slot holds what the
 * head's checksum says, whichever slot that is; otherwise the named slot's own verified content (a checksum the head
 * does not know), else the other slot's (the shard's previous content), else nothing: damage, with every record the
 * head counted in the shard at risk.
 */
export function readShardSlots(
  stateName: string,
  index: number,
  ref: ShardRef,
  slots: Record<Slot, StoredConfigMap | undefined>,
): ShardReading {
  const named = ref.slot!;
  const other: Slot = named === "a" ? "b" : "a";
  const verified = Object.fromEntries(SLOTS.map((s) => [s, slots[s] ? verifySlot(slots[s]!, stateName, index) : undefined])) as Record<
    Slot,
    VerifiedSlot | Error | undefined
  >;
  for (const slot of [named, other]) {
    const v = verified[slot];
    if (v && !(v instanceof Error) && v.checksum === ref.checksum) return { content: v.content };
  }
  const why = (slot: Slot) => {
    const v = verified[slot];
    const name = `${stateName}-shard-${index}-${slot}`;
    if (v === undefined) return `${name} is missing`;
    if (v instanceof Error) return v.message;
    return `${name} holds another content than the head names (checksum ${v.checksum.slice(0, 12)}, head ${ref.checksum.slice(0, 12)})`;
  };
  const atRisk = ref.records + ref.inFlight;
  const damaged = SLOTS.filter((s) => slots[s] !== undefined).map((s) => slots[s]!.name);
  for (const slot of [named, other]) {
    const v = verified[slot];
    if (v && !(v instanceof Error)) {
      const read =
        slot === named
          ? "its own verified content was read"
          : `${stateName}-shard-${index}-${other} (${v.content.records.length + v.content.inFlight.length} records, written ${iso(v.writtenAt)}) was read in its place`;
      return {
        content: v.content,
        damage: { piece: { what: `shard ${index}: ${why(named)}; ${read}`, atRisk }, damaged },
      };
    }
  }
  return {
    content: { records: [], inFlight: [] },
    damage: { piece: { what: `shard ${index}: ${why(named)}, and ${why(other)}`, atRisk }, damaged },
  };
}

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : "at an unknown time");

/**
 * The shards from every slot there is, when no head says which (its table unreadable, its format unknown, or the
 * head lost): for each index the newest slot that verifies, among those of the newest slot's partitioning. Unverified
 * against a head: the caller counts the state at risk.
 */
export function scanSlots(
  stateName: string,
  slots: readonly StoredConfigMap[],
): { shards: ShardContent[]; partitions: number; read: string[]; unreadable: string[] } {
  const candidates: { index: number; name: string; slot: VerifiedSlot }[] = [];
  const unreadable: string[] = [];
  for (const map of slots) {
    const match = new RegExp(`^${escapeRegExp(stateName)}-shard-(\\d+)-[ab]$`).exec(map.name);
    if (!match) continue;
    const index = Number(match[1]);
    const v = verifySlot(map, stateName, index);
    if (v instanceof Error) unreadable.push(map.name);
    else candidates.push({ index, name: map.name, slot: v });
  }
  candidates.sort((x, y) => y.slot.writtenAt - x.slot.writtenAt || (x.name < y.name ? -1 : 1));
  const partitions =
    candidates.find((c) => c.slot.partitions !== null)?.slot.partitions ?? Math.max(0, ...candidates.map((c) => c.index + 1));
  const chosen = new Map<number, (typeof candidates)[number]>();
  for (const c of candidates) {
    if (c.index >= partitions || (c.slot.partitions !== null && c.slot.partitions !== partitions) || chosen.has(c.index)) continue;
    chosen.set(c.index, c);
  }
  const shards = Array.from({ length: Math.max(1, partitions) }, (_, i) => chosen.get(i)?.slot.content ?? { records: [], inFlight: [] });
  return { shards, partitions: Math.max(1, partitions), read: [...chosen.values()].map((c) => c.name).sort(), unreadable };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The journal as read back: its changes, what could not be read, and the last segment's number. */
export interface JournalReading {
  journal: RecordChanges;
  seq: number;
  settlements: boolean;
  /** Settlements naming no in-flight entry (never written so). */
  unresolved: number;
  pieces: DamagedPiece[];
}

/**
 * Applies the head's journal segments in order, each verified against its checksum entry (when written with one);
 * a segment that fails is skipped (later ones still apply: key by key, later changes win) and is damage, its keys
 * (from the checksum entry) at risk.
 */
export function readJournal(binaryData: Record<string, string>, inShards: InFlightLookup): JournalReading {
  const journal = emptyChanges();
  const seqs = segmentSeqs(Object.keys(binaryData));
  const pieces: DamagedPiece[] = [];
  let unresolved = 0;
  let settlements = false;
  for (const seq of seqs) {
    const check = binaryData[segmentCheckKey(seq)];
    const [sum, keys] = check === undefined ? [] : Buffer.from(check, "base64").toString("utf8").split(" ");
    const keyCount = keys !== undefined && /^\d+$/.test(keys) ? Number(keys) : null;
    let segment: ReturnType<typeof decodePart>;
    try {
      segment = decodePart(binaryData, segmentPrefix(seq));
    } catch (error) {
      if (!(error instanceof AcknowledgedStateFormatError)) throw error;
      pieces.push({ what: `journal segment ${seq} is unreadable (${error.message})`, atRisk: keyCount });
      continue;
    }
    if (sum !== undefined && sum !== segment.checksum) {
      pieces.push({ what: `journal segment ${seq} does not hold what its checksum says`, atRisk: keyCount });
      continue;
    }
    settlements ||= (segment.inFlight?.settled.length ?? 0) > 0;
    unresolved += applySegment(journal, segment, inShards).length;
  }
  return { journal, seq: Math.max(0, ...seqs), settlements, unresolved, pieces };
}

/** The head's recorded damage, or undefined (none, or not readable: then it is said as a piece of its own). */
export function parseDamage(text: string | undefined): StateDamage | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<StateDamage>;
    if (!Array.isArray(value.pieces)) throw new Error("no pieces");
    const pieces = value.pieces
      .filter((p): p is DamagedPiece => typeof p?.what === "string")
      .map((p) => ({ what: p.what, atRisk: typeof p.atRisk === "number" ? p.atRisk : null }));
    return {
      detected: typeof value.detected === "string" ? value.detected : "unknown",
      pieces,
      atRisk: sumAtRisk(pieces),
      keptAside: Array.isArray(value.keptAside) ? value.keptAside.filter((n): n is string => typeof n === "string") : [],
    };
  } catch {
    return { detected: "unknown", pieces: [{ what: "the head's damage record is unreadable", atRisk: null }], atRisk: 0, keptAside: [] };
  }
}

function sumAtRisk(pieces: readonly DamagedPiece[]): number {
  return pieces.reduce((n, p) => n + (p.atRisk ?? 0), 0);
}

/** Damage recorded before (still unresolved) with new pieces: one record. */
export function addDamage(
  before: StateDamage | undefined,
  pieces: readonly DamagedPiece[],
  keptAside: readonly string[],
  now: Date,
): StateDamage | undefined {
  if (pieces.length === 0 && keptAside.length === 0) return before;
  const all = [...(before?.pieces ?? []), ...pieces];
  return {
    detected: before?.detected ?? now.toISOString(),
    pieces: all,
    atRisk: sumAtRisk(all),
    keptAside: [...(before?.keptAside ?? []), ...keptAside],
  };
}

/** The damage as the head's `data.damage`. */
export function formatDamage(damage: StateDamage): string {
  return JSON.stringify(damage);
}

/** The damage in one line, for /readyz and the log. */
export function damageReason(damage: StateDamage): string {
  const unknown = damage.pieces.some((p) => p.atRisk === null);
  const atRisk = `${damage.atRisk}${unknown ? " or more" : ""}`;
  return (
    `acknowledged state damaged (detected ${damage.detected}): ${damage.pieces.map((p) => p.what).join("; ")}; ` +
    `${atRisk} records may stay deployed at the service after their workloads are gone` +
    (damage.keptAside.length > 0 ? `; kept aside: ${damage.keptAside.join(", ")}` : "") +
    ` (runbook: ShiplogStateDamaged; clear data.${DAMAGE_KEY} of the head once recovered)`
  );
}
