// Phase one of a compaction (planned by state/compaction.ts): each changed shard written to its spare slot,
// conditional on the version the head recorded for that slot. Nothing is committed until the head names the slots
// (the store's head switch), so a crash or a failure here leaves the current state whole.
import { compactionSteps, type CompactionBase, type PlannedShard } from "./compaction.js";
import { StateConflictError, payloadBytes, type ConfigMapPayload, type StateConfigMaps } from "./configmaps.js";
import { STATE_LAYOUT, parseShardTable, slotName, type EncodedPart, type Slot, type StateLimits } from "./shards.js";

/** What writing the slots needs from the store. */
export interface SlotWriteContext {
  maps: StateConfigMaps;
  /** The head ConfigMap's name (shards are named after it). */
  head: string;
  /** Who writes and when: fields every state ConfigMap carries. */
  stamp: () => Record<string, string>;
  /** Leader fencing, right before every write call: throws when this replica may not write. */
  fence: () => void;
  /** Still wanted: checked before each slot write (a compaction beside the appends is dropped when the store reloads). */
  current: () => boolean;
  onShardWritten: () => void;
  /**
   * The resourceVersion of a head the reader found damaged (state/recovery.ts), while its state is written anew: at
   * that version it names nothing to keep (its table may be unreadable), so a slot it seems to name is written over.
   */
  damagedHead?: string | null;
}

/** A slot that changed since the head recorded it is read and written over at most this many times. */
const SLOT_CONFLICT_RETRIES = 5;

/**
 * Plans a compaction of `base` and writes its slots beside the flush rounds: the planning gives them the event loop
 * between its steps. Undefined when it stopped being current.
 */
export async function prepareCompaction(
  base: CompactionBase,
  limits: Pick<StateLimits, "maxShards" | "shardMaxBytes">,
  ctx: SlotWriteContext,
  info: { written: number; calls: number },
): Promise<PlannedShard[] | undefined> {
  const steps = compactionSteps(base, limits);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return (await writeShardSlots(step.value, ctx, info)) ? step.value : undefined;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!ctx.current()) return undefined;
  }
}

/** Writes the planned shards' spare slots, each shard's ref taking its slot's new version; false when no longer current. */
export async function writeShardSlots(
  planned: PlannedShard[],
  ctx: SlotWriteContext,
  info: { written: number; calls: number },
): Promise<boolean> {
  for (const shard of planned) {
    if (!shard.write) continue;
    if (!ctx.current()) return false;
    const { slot, part } = shard.write;
    const version = await writeSlot(ctx, shard.index, planned.length, slot, part, shard.ref.versions[slot], info);
    shard.ref = { ...shard.ref, versions: { ...shard.ref.versions, [slot]: version } };
    ctx.onShardWritten();
  }
  return true;
}

/**
 * Writes a shard's spare slot, conditional on the version the head recorded for it. A conflict means a compaction
 * that died or was given up before its head update wrote the slot (or a writer whose head update can no longer
 * succeed): the slot is overwritten only while the head, read again, does not name it, so whatever else moved the
 * head (this writer's own appends included), what it names is never touched. A head switch of another writer's
 * compaction fails on its own condition.
 */
async function writeSlot(
  ctx: SlotWriteContext,
  index: number,
  partitions: number,
  slot: Slot,
  part: EncodedPart,
  known: string | null,
  info: { written: number; calls: number },
): Promise<string> {
  const target = slotName(ctx.head, index, slot);
  const payload: ConfigMapPayload = {
    // `partitions` lets a reader without the head's table (state/recovery.ts, scanSlots) tell this slot's layout.
    data: {
      format: STATE_LAYOUT,
      head: ctx.head,
      shard: String(index),
      partitions: String(partitions),
      slot,
      checksum: part.checksum,
      ...ctx.stamp(),
    },
    binaryData: part.binaryData,
  };
  let version = known;
  for (let attempt = 0; ; attempt++) {
    ctx.fence();
    try {
      const written = await ctx.maps.put(target, version, payload);
      info.written += payloadBytes(payload);
      info.calls += 1;
      return written;
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= SLOT_CONFLICT_RETRIES) throw error;
      // Checked after each read: a reload (and a compaction of its own) may have begun meanwhile.
      const head = await ctx.maps.read(ctx.head);
      if (!ctx.current()) throw givenUp(target);
      const damaged = ctx.damagedHead != null && head?.metadata?.resourceVersion === ctx.damagedHead;
      if (!damaged && namesSlot(head?.data, index, slot))
        throw new StateConflictError(`ConfigMap ${target}: the head names it now (another compaction committed)`);
      version = (await ctx.maps.read(target))?.metadata?.resourceVersion ?? null;
      if (!ctx.current()) throw givenUp(target);
    }
  }
}

const givenUp = (target: string) => new StateConflictError(`ConfigMap ${target}: the compaction was given up`);

/** The head (its data) may name `slot` as shard `index`'s current one (a sharded head whose table is unreadable may). */
function namesSlot(data: Record<string, string> | undefined, index: number, slot: Slot): boolean {
  if (data?.format !== STATE_LAYOUT) return false;
  try {
    return parseShardTable(data.shards, data.partitions)[index]?.slot === slot;
  } catch {
    return true;
  }
}
