// Reading the committed state: the head ConfigMap, the shard slots it names (each checked against the checksum the
// head recorded), and its journal segments. A single-ConfigMap state (v2, v1) is read whole, to be rewritten as
// shards; state of another service, organization or cluster, or unreadable state, is not used.
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { AcknowledgedStateFormatError } from "./acknowledged-state-encoding.js";
import type { StateConfigMaps } from "./state-configmaps.js";
import {
  STATE_LAYOUT,
  applySegment,
  decodePart,
  emptyChanges,
  parseShardTable,
  segmentPrefix,
  segmentSeqs,
  shardInFlight,
  slotName,
  stateToRewrite,
  type CommittedState,
  type ShardContent,
  type ShardRef,
} from "./state-shards.js";

/** Whose state this is, and where it lives. */
export interface StateIdentity {
  namespace: string;
  name: string;
  org: string;
  cluster: string;
  apiUrl: string;
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
): Promise<CommittedState> {
  for (let attempt = 1; ; attempt++) {
    const head = await maps.read(who.name);
    if (!head) return stateToRewrite(null);
    const state = await readHead(maps, who, logger, held, head, attempt >= MAX_HEAD_READS);
    if (state) return state;
  }
}

/** The state a head names; undefined when a shard changed under us and the head should be read again. */
async function readHead(
  maps: StateConfigMaps,
  who: StateIdentity,
  logger: Logger,
  held: CommittedState | undefined,
  head: V1ConfigMap,
  lastAttempt: boolean,
) {
  const where = `${who.namespace}/${who.name}`;
  const version = head.metadata?.resourceVersion ?? null;
  const data = head.data ?? {};
  const binary = head.binaryData ?? {};
  if (data.org !== who.org || data.cluster !== who.cluster || data["api-url"] !== who.apiUrl) {
    logger.warn(
      { configMap: where, org: data.org ?? null, cluster: data.cluster ?? null, apiUrl: data["api-url"] ?? null },
      "acknowledged state belongs to another service, organization or cluster; starting without it",
    );
    return stateToRewrite(version);
  }
  try {
    if (data.format !== STATE_LAYOUT) {
      // The single-ConfigMap layout (v2, v1): read whole, rewritten as shards by the next write.
      const part = decodePart(binary, "");
      if (!part.records) throw new AcknowledgedStateFormatError("acknowledged state has no records.gz");
      return stateToRewrite(version, { records: part.records.records, inFlight: part.inFlight?.records ?? [] });
    }
    const refs = parseShardTable(data.shards, data.partitions);
    const shards: CommittedState["shards"] = [];
    for (const [index, ref] of refs.entries()) {
      const content = ref.slot === null ? { records: [], inFlight: [] } : await readShard(maps, who.name, held, index, ref);
      if (content === undefined) {
        // A later compaction may have reused the slot since this head was read: read the head again.
        const again = await maps.read(who.name);
        if ((again?.metadata?.resourceVersion ?? null) !== version && !lastAttempt) return undefined;
        throw new AcknowledgedStateFormatError(
          `shard ${index} (${slotName(who.name, index, ref.slot!)}) does not hold what the head names`,
        );
      }
      shards.push({ ref, content });
    }
    const journal = emptyChanges();
    const seqs = segmentSeqs(Object.keys(binary));
    const inShards = shardInFlight(shards);
    let unresolved = 0;
    let settlements = false;
    for (const seq of seqs) {
      const segment = decodePart(binary, segmentPrefix(seq));
      settlements ||= (segment.inFlight?.settled.length ?? 0) > 0;
      unresolved += applySegment(journal, segment, inShards).length;
    }
    // Never written so (a settlement names an entry the writer saw committed): the key is no longer in flight, and
    // keeps whatever record it had.
    if (unresolved > 0) logger.warn({ configMap: where, keys: unresolved }, "journal settles in-flight entries it does not hold");
    const journalBytes = Object.values(binary).reduce((n, v) => n + Buffer.byteLength(v, "base64"), 0);
    return {
      version,
      rewrite: false,
      shards,
      journal,
      seq: Math.max(Number(data.journal) || 0, ...seqs),
      settlements,
      data,
      journalBytes,
    } satisfies CommittedState;
  } catch (error) {
    if (!(error instanceof AcknowledgedStateFormatError)) throw error;
    logger.error({ configMap: where, err: error.message, code: error.code }, "acknowledged state unreadable; starting without it");
    return stateToRewrite(version);
  }
}

/** A shard's content when its slot holds what `ref` names (taken from `held` when it names the same). */
async function readShard(
  maps: StateConfigMaps,
  name: string,
  held: CommittedState | undefined,
  index: number,
  ref: ShardRef,
): Promise<ShardContent | undefined> {
  const mine = held?.shards[index];
  if (mine?.ref && mine.ref.slot === ref.slot && mine.ref.checksum === ref.checksum) return mine.content;
  const slot = await maps.read(slotName(name, index, ref.slot!));
  if (!slot) return undefined;
  try {
    const part = decodePart(slot.binaryData ?? {}, "");
    return part.checksum === ref.checksum ? { records: part.records?.records ?? [], inFlight: part.inFlight?.records ?? [] } : undefined;
  } catch (error) {
    if (error instanceof AcknowledgedStateFormatError) return undefined;
    throw error;
  }
}
