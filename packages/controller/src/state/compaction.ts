// Planning a compaction of the sharded state (state/shards.ts): the journal folded into the shards it touches, each
// bound for its spare slot, and the records spread over more shards when one would pass its limit. Pure.
// A compaction is a function of the committed state alone (shards and journal as the head names them), never of
// changes not yet written, so two writers compacting from the same head write the same content (same checksums).
import { ShiplogError } from "@shiplog/client";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
import {
  encodeShard,
  shardOf,
  type EncodedPart,
  type RecordChanges,
  type ShardContent,
  type ShardRef,
  type Slot,
  type StateLimits,
} from "./shards.js";

/** The committed state a compaction starts from. */
export interface CompactionBase {
  partitions: number;
  shards: { ref: ShardRef | undefined; content: ShardContent }[];
  journal: RecordChanges;
  /** Every shard is written (a state migrated from one ConfigMap, or replacing unusable state). */
  rewrite: boolean;
}

/** A shard after a compaction; `write` when its content changed and goes to `write.slot`. */
export interface PlannedShard {
  index: number;
  content: ShardContent;
  ref: ShardRef;
  write?: { slot: Slot; part: EncodedPart };
}

/** The state does not fit in the shards allowed (--state-max-shards). */
export class AcknowledgedStateTooLargeError extends ShiplogError {
  constructor(
    /** Encoded bytes the largest shard would need. */
    readonly bytes: number,
    readonly records: number,
    readonly maxShards: number,
    readonly shardMaxBytes: number,
  ) {
    super(
      "acknowledged_state_too_large",
      `acknowledged state of ${records} records does not fit in ${maxShards} shard ConfigMaps: ` +
        `a shard would need ${bytes} bytes, over ${shardMaxBytes}; ` +
        "raise --state-max-shards / SHIPLOG_STATE_MAX_SHARDS (chart: state.maxShards), or narrow the namespaces or label selector",
    );
  }
}

/**
 * Folds the journal into the shards. Shards the journal does not touch keep their slot; when a shard would pass
 * `shardMaxBytes`, the records are spread over enough times more shards (a power of two, up to `maxShards`, else
 * AcknowledgedStateTooLargeError).
 */
export function planCompaction(base: CompactionBase, limits: Pick<StateLimits, "maxShards" | "shardMaxBytes">): PlannedShard[] {
  const steps = compactionSteps(base, limits);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * planCompaction in steps: it pauses after folding and after each shard it encodes, so a compaction run beside the
 * flush rounds can give them the event loop between steps.
 */
export function* compactionSteps(
  base: CompactionBase,
  limits: Pick<StateLimits, "maxShards" | "shardMaxBytes">,
): Generator<void, PlannedShard[], void> {
  let partitions = Math.max(1, Math.min(base.partitions, limits.maxShards));
  let respread = base.rewrite || partitions !== base.partitions;
  // A rewrite starts from an estimate, rather than encoding everything once per doubling.
  if (base.rewrite)
    partitions = Math.min(
      limits.maxShards,
      Math.max(partitions, 2 ** Math.ceil(Math.log2(Math.max(1, (1.1 * estimateBytes(base)) / limits.shardMaxBytes)))),
    );
  for (;;) {
    const contents = respread ? spread(base, partitions) : fold(base);
    yield;
    const planned: PlannedShard[] = [];
    for (const [index, { content, changed }] of contents.entries()) {
      planned.push(plan(index, content, changed || respread, base.shards[index]?.ref));
      if (planned[index]!.write) yield;
    }
    const largest = Math.max(0, ...planned.map((p) => p.write?.part.bytes ?? 0));
    if (largest <= limits.shardMaxBytes) return planned;
    // Shards are about even (a hash): grow at once by the factor the largest is over, plus a margin for unevenness.
    const next = Math.min(partitions * 2 ** Math.ceil(Math.log2((1.1 * largest) / limits.shardMaxBytes)), limits.maxShards);
    if (next === partitions)
      throw new AcknowledgedStateTooLargeError(
        largest,
        planned.reduce((n, p) => n + p.ref.records, 0),
        limits.maxShards,
        limits.shardMaxBytes,
      );
    partitions = next;
    respread = true;
  }
}

/** About what the records take encoded: 32 bytes per distinct digest, and a generous 16 bytes of gzip text each. */
function estimateBytes(base: CompactionBase): number {
  const digests = new Set<string>();
  let records = 0;
  const count = (r: AcknowledgedRecord | null) => {
    if (!r) return;
    digests.add(r.entry.digest);
    records += 1;
  };
  for (const { content } of base.shards) {
    content.records.forEach(count);
    content.inFlight.forEach(count);
  }
  base.journal.records.forEach(count);
  base.journal.inFlight.forEach(count);
  return digests.size * 32 + records * 16;
}

/** Each shard with the journal's changes for it applied; `changed` when the journal touches it. */
function fold(base: CompactionBase): { content: ShardContent; changed: boolean }[] {
  const partitions = base.partitions;
  const byShard = (changes: Map<string, AcknowledgedRecord | null>) => {
    const out = Array.from({ length: partitions }, () => new Map<string, AcknowledgedRecord | null>());
    for (const [key, record] of changes) out[shardOf(key, partitions)]!.set(key, record);
    return out;
  };
  const records = byShard(base.journal.records);
  const inFlight = byShard(base.journal.inFlight);
  return Array.from({ length: partitions }, (_, i) => {
    const content = base.shards[i]?.content ?? { records: [], inFlight: [] };
    const changed = records[i]!.size > 0 || inFlight[i]!.size > 0;
    return {
      content: changed ? { records: applyTo(content.records, records[i]!), inFlight: applyTo(content.inFlight, inFlight[i]!) } : content,
      changed,
    };
  });
}

/** Every record (journal applied) spread over `partitions` shards anew. */
function spread(base: CompactionBase, partitions: number): { content: ShardContent; changed: boolean }[] {
  const out = Array.from({ length: partitions }, () => ({
    content: { records: [] as AcknowledgedRecord[], inFlight: [] as AcknowledgedRecord[] },
    changed: true,
  }));
  const all = (pick: (c: ShardContent) => AcknowledgedRecord[], changes: Map<string, AcknowledgedRecord | null>) =>
    applyTo(
      base.shards.flatMap((s) => pick(s.content)),
      changes,
    );
  for (const record of all((c) => c.records, base.journal.records)) out[shardOf(record.key, partitions)]!.content.records.push(record);
  for (const record of all((c) => c.inFlight, base.journal.inFlight)) out[shardOf(record.key, partitions)]!.content.inFlight.push(record);
  return out;
}

function applyTo(list: AcknowledgedRecord[], changes: Map<string, AcknowledgedRecord | null>): AcknowledgedRecord[] {
  if (changes.size === 0) return list;
  const out = list.filter((r) => !changes.has(r.key));
  for (const record of changes.values()) if (record && (record.entry.status ?? "deployed") === "deployed") out.push(record);
  return out;
}

function plan(index: number, content: ShardContent, changed: boolean, old: ShardRef | undefined): PlannedShard {
  const versions = old?.versions ?? { a: null, b: null };
  if (!changed && old) return { index, content, ref: old };
  const empty = content.records.length === 0 && content.inFlight.length === 0;
  const part = encodeShard(content);
  const ref: ShardRef = {
    slot: null,
    checksum: part.checksum,
    records: content.records.length,
    inFlight: content.inFlight.length,
    bytes: part.bytes,
    versions,
  };
  if (empty) return { index, content, ref };
  // The spare slot: never the one the head names now, so a crash before the head update leaves the current intact.
  const slot: Slot = old?.slot === "a" ? "b" : "a";
  return { index, content, ref: { ...ref, slot }, write: { slot, part } };
}
