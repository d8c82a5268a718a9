// Acknowledged state and the write-ahead in-flight set persisted in ConfigMaps in the controller's namespace, so a
// restarted or newly elected controller knows what the service holds. The layout (state/shards.ts): a head
// ConfigMap `<name>` with a journal of recent changes, and shard ConfigMaps in fixed slots that the head names.
// - A write appends one journal segment to the head (a merge patch carrying only the changes); when the journal
//   would pass its limit, a compaction first writes the changed shards to their spare slots and then switches the
//   head to them in one update. The head update is the only commit point: a crash at any instant leaves the head
//   naming a whole, consistent state (README, "Persisted state").
// - Optimistic concurrency on every write (resourceVersion); a conflict means read again, put the changes not yet
//   written on top, retry. The leadership fence is checked before every write call.
// - The state belongs to one service (API URL), organization and cluster; state written for another, without that
//   identity, or unreadable, is ignored and replaced. A single-ConfigMap state (format v2 or v1) is read and
//   rewritten in this layout by the next write.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { LeadershipFence } from "../election/fence.js";
import { systemClock, type Clock } from "../clock.js";
import { settledByRefusal, type AcknowledgedRecord, type AcknowledgedStore, type PersistOptions } from "./acknowledged-state.js";
import type { HeadSection } from "./head-participant.js";
import { AcknowledgedStateWriteError, StateConfigMaps, StateConflictError, StateWriteFencedError, payloadBytes } from "./configmaps.js";
import { planCompaction, type PlannedShard } from "./compaction.js";
import { readCommittedState } from "./reader.js";
import {
  DAMAGE_KEY,
  REPLACES_KEY,
  WITNESS_UID_KEY,
  damagedCopyName,
  witnessName,
  type StateDamage,
  type StoredConfigMap,
} from "./recovery.js";
import { prepareCompaction, writeShardSlots, type SlotWriteContext } from "./compaction-slots.js";
import {
  STATE_LAYOUT,
  emptyChanges,
  materialize,
  nextSegment,
  formatShardTable,
  type CommittedState,
  type EncodedPart,
  type RecordChanges,
  type StateLimits,
} from "./shards.js";

/** Kubernetes' limit on the data of one ConfigMap (data plus binaryData). */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;
/** The layout's limits by default: 16 shards of up to 1 MiB less 32 KiB, a head compacted past 768 KiB. */
export const DEFAULT_STATE_LIMITS: StateLimits = {
  maxShards: 16,
  shardMaxBytes: CONFIGMAP_MAX_BYTES - 32 * 1024,
  headMaxBytes: 768 * 1024,
};
const MAX_CONFLICT_RETRIES = 5;
/** A compaction starts ahead of need when the head passes this share of its limit. */
const COMPACT_AHEAD = 0.6;
const LABELS = { "app.kubernetes.io/part-of": "shiplog", "app.kubernetes.io/component": "acknowledged-state" };

/** Steps of a write, for a probe (the crash matrix kills the process at one: test/crash-hook.ts). */
export type StateWriteStep = "state-write" | "shard-written" | "before-head-switch" | "head-switch";

/** Settings of the ConfigMap store. */
export interface ConfigMapStoreOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The head ConfigMap; shards are `<name>-shard-<i>-a|b`. */
  name: string;
  /** Whose records these are: state written for another service, organization or cluster is not used. */
  org: string;
  cluster: string;
  /** The service's API base URL: what one service acknowledged says nothing about another. */
  apiUrl: string;
  /** Who writes (the pod name), recorded in the ConfigMaps for operators. */
  writer: string;
  requestTimeoutMs: number;
  logger: Logger;
  /** Checked right before every write call: a write stops with StateWriteFencedError while this replica does not lead. */
  fence?: LeadershipFence;
  /**
   * A write met a conflict and read the state again: `writer` is who wrote the head meanwhile, as it says
   * (data.written-by; undefined when it says nobody). For the conflicting-writer detector (state/conflicting-writers.ts).
   */
  onConflict?: (writer: string | undefined) => void;
  /** Called at each step of a write: `state-write` when a head write is issued, before its answer. */
  onWriteStep?: (step: StateWriteStep) => void;
  /** Most shard ConfigMaps (default 16). */
  maxShards?: number;
  /** Smaller limits (tests compact and shard a small state with them). */
  limits?: Partial<Omit<StateLimits, "maxShards">>;
  /** Never writes while loading (a dry run): a damaged state is reported, not kept aside nor rewritten. */
  readOnly?: boolean;
  /** The time written into the state (when it was written, when damage was found); default the system clock. */
  clock?: Clock;
}

/** The outcome of the last write, for metrics and logs. */
export interface StateWriteInfo {
  /** The state's size as stored now: the head plus the current shards (data plus decoded binaryData). */
  bytes: number;
  records: number;
  /** Entries in the write-ahead (in flight) set. */
  inFlight: number;
  conflicts: number;
  /** Bytes this write sent, over all its calls (data plus decoded binaryData; base64 adds a third on the wire). */
  written: number;
  /** ConfigMap writes it made: journal appends, shard slots, head switches. */
  calls: number;
  compactions: number;
  /** Shard ConfigMaps in use. */
  shards: number;
}

type CompactionInfo = { written: number; calls: number; compactions: number };
/** A segment appended while a compaction ran ahead: the head switch keeps it. */
type CarriedSegment = { changes: RecordChanges; part: EncodedPart };
/** A compaction running ahead of need; `planned` is its shards once written (undefined: given up). */
type AheadCompaction = { carried: CarriedSegment[]; info: CompactionInfo; planned: Promise<PlannedShard[] | undefined> };

function appendChanges<V>(to: Map<string, V>, from: ReadonlyMap<string, V>): void {
  for (const [key, value] of from) to.set(key, value);
}

/** Acknowledged state kept in memory and persisted in a head ConfigMap and its shards. */
export class ConfigMapAcknowledgedStore implements AcknowledgedStore {
  readonly #options: ConfigMapStoreOptions;
  readonly #maps: StateConfigMaps;
  readonly #limits: StateLimits;
  readonly #clock: Clock;
  #records = new Map<string, AcknowledgedRecord>();
  #inFlight = new Map<string, AcknowledgedRecord>();
  /** Changes since the last successful write: a record, or null for a removed one. */
  readonly #changes: RecordChanges = emptyChanges();
  #base: CommittedState | undefined;
  #ahead: AheadCompaction | undefined;
  /** What compactions ahead wrote since the last write reported. */
  #aheadDone: CompactionInfo = { written: 0, calls: 0, compactions: 0 };
  /** Loads and writes, one at a time. */
  #tail: Promise<unknown> = Promise.resolve();
  /** The head participants' sections, written with the head's counters (the last ones a write was given). */
  #sections: ReadonlyMap<string, HeadSection> = new Map();
  /** The head's uid (read or written last), and the witness as read or written last. */
  #headUid: string | undefined;
  #witness: { version: string | null; uid: string | undefined } | undefined;
  #damage: StateDamage | undefined;
  lastWrite: StateWriteInfo | undefined;

  constructor(options: ConfigMapStoreOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#maps = new StateConfigMaps(options.kubeConfig, options.namespace, options.requestTimeoutMs, LABELS);
    this.#limits = { ...DEFAULT_STATE_LIMITS, ...options.limits, maxShards: options.maxShards ?? DEFAULT_STATE_LIMITS.maxShards };
  }

  /** Reads the state (what earlier runs and leaders acknowledged); changes not yet written stay on top. */
  load(): Promise<void> {
    return this.#queue(() => this.#load());
  }

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#records;
  }

  inFlight(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#inFlight;
  }

  intend(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if ((record.entry.status ?? "deployed") !== "deployed") continue;
      this.#inFlight.set(record.key, record);
      this.#changes.inFlight.set(record.key, record);
    }
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if (this.#inFlight.delete(record.key)) this.#changes.inFlight.set(record.key, null);
      if (record.entry.status === "decommissioned") {
        if (this.#records.delete(record.key)) this.#changes.records.set(record.key, null);
      } else {
        this.#records.set(record.key, record);
        this.#changes.records.set(record.key, record);
      }
    }
  }

  refuse(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if (settledByRefusal(this.#inFlight.get(record.key), record) && this.#inFlight.delete(record.key))
        this.#changes.inFlight.set(record.key, null);
    }
  }

  /** A head participant's section as the head last recorded it (read at load, updated by each write). */
  headSection(key: string): string | undefined {
    return this.#base?.data[key];
  }

  /** The state's damage as last loaded (state/recovery.ts): recorded in the head until an operator clears it. */
  get damage(): StateDamage | undefined {
    return this.#damage;
  }

  /** Changes not written yet. */
  get unwritten(): number {
    return this.#changes.records.size + this.#changes.inFlight.size;
  }

  /** Writes what changed since the last write. */
  async persist(options: PersistOptions = {}): Promise<void> {
    await this.write(options);
  }

  /**
   * As persist(), returning what was written (undefined: nothing); StateWriteFencedError when this replica may not
   * write. A final write folds a journal of settlements into the shards (v3), which a rolled-back version can read.
   */
  write(options: PersistOptions = {}): Promise<StateWriteInfo | undefined> {
    if (options.sections) this.#sections = options.sections;
    return this.#queue(() => this.#write(options.final === true));
  }

  #queue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.catch(() => undefined).then(task);
    this.#tail = run;
    return run;
  }

  async #load(): Promise<void> {
    const { namespace, name, org, cluster, apiUrl, logger } = this.#options;
    this.#ahead = undefined; // its snapshot is of a state that may not be current any more
    const reading = await readCommittedState(this.#maps, { namespace, name, org, cluster, apiUrl }, logger, this.#base, {
      maxShards: this.#limits.maxShards,
      keepAside: (objects) => this.#keepAside(objects),
      now: () => new Date(this.#clock.now()),
    });
    const base = reading.state;
    this.#base = base;
    this.#headUid = reading.headUid;
    this.#witness = reading.witness && { version: reading.witness.version, uid: reading.witness.data[WITNESS_UID_KEY] };
    this.#damage = reading.damage;
    const { records, inFlight } = materialize(base, this.#changes);
    this.#records = records;
    this.#inFlight = inFlight;
    // Damage found now: the state read back (with the damage) is written at once, over the objects kept aside, so
    // a restart finds the damage recorded rather than finding it again.
    if (base.rewrite && base.data[DAMAGE_KEY] !== undefined && !this.#options.readOnly) {
      await this.#compact({ written: 0, calls: 0, compactions: 0 });
    }
    const journal = base.journal.records.size + base.journal.inFlight.size;
    const shards = this.#shardCount();
    logger.info(
      { configMap: `${namespace}/${name}`, records: records.size, inFlight: inFlight.size, shards, journal, resourceVersion: base.version },
      "acknowledged state loaded",
    );
  }

  async #write(final: boolean): Promise<StateWriteInfo | undefined> {
    const foldDue = () => final && this.#base?.settlements === true;
    if (this.unwritten === 0 && !foldDue() && !this.#sectionsDue()) return undefined;
    const { namespace, name, logger } = this.#options;
    const info = { conflicts: 0, written: 0, calls: 0, compactions: 0 };
    while (this.unwritten > 0 || foldDue() || this.#sectionsDue()) {
      try {
        if (!this.#base) await this.#load();
        const base = this.#base!;
        if (this.unwritten === 0) {
          // Nothing to append: the final write's fold (after a compaction running ahead, which may do it), or an
          // urgent section alone (the budget's calls about to leave).
          if (foldDue()) await (this.#ahead ? this.#finishAhead(this.#ahead, info) : this.#compact(info));
          else await this.#writeCounters(info);
          continue;
        }
        const chunk = nextSegment(this.#changes, base, base.seq + 1, Math.max(this.#limits.headMaxBytes / 2, 64 * 1024));
        const journalled = base.journal.records.size + base.journal.inFlight.size > 0;
        const full = journalled && this.#headBytes(base) + chunk.part.bytes > this.#limits.headMaxBytes;
        if (full && this.#ahead) {
          await this.#finishAhead(this.#ahead, info);
          continue; // the head changed: chunk again
        }
        if (base.rewrite || full) await this.#compact(info);
        await this.#append(chunk, info);
        this.#compactAheadIfDue();
      } catch (error) {
        if (!(error instanceof StateConflictError)) throw error;
        info.conflicts += 1;
        if (info.conflicts > MAX_CONFLICT_RETRIES)
          throw new AcknowledgedStateWriteError(
            `writing ConfigMap ${namespace}/${name}: still conflicting after ${MAX_CONFLICT_RETRIES} re-reads`,
          );
        logger.info(
          { configMap: `${namespace}/${name}`, conflicts: info.conflicts, err: error.message },
          "acknowledged state changed under us; reading it again and merging",
        );
        await this.#load();
        this.#options.onConflict?.(this.#base?.data["written-by"]);
      }
    }
    const shards = this.#base!.shards.filter((s) => s.ref?.slot);
    const bytes = this.#headBytes(this.#base!) + shards.reduce((n, s) => n + s.ref!.bytes, 0);
    for (const key of ["written", "calls", "compactions"] as const) info[key] += this.#aheadDone[key];
    this.#aheadDone = { written: 0, calls: 0, compactions: 0 };
    this.lastWrite = { bytes, records: this.#records.size, inFlight: this.#inFlight.size, shards: shards.length, ...info };
    logger.debug({ configMap: `${namespace}/${name}`, ...this.lastWrite }, "acknowledged state written");
    return this.lastWrite;
  }

  /** Appends one segment to the head's journal (a merge patch with only the segment and the counters). */
  async #append(chunk: { changes: RecordChanges; part: EncodedPart }, info: { written: number; calls: number }): Promise<void> {
    const base = this.#base!;
    const seq = base.seq + 1;
    const data = this.#counters(seq);
    this.#fence();
    const pending = this.#maps.patch(this.#options.name, base.version!, { data, binaryData: chunk.part.binaryData });
    this.#step("state-write");
    base.version = await pending;
    info.written += payloadBytes({ data, binaryData: chunk.part.binaryData });
    info.calls += 1;
    base.seq = seq;
    base.settlements ||= chunk.part.settlements > 0;
    base.data = { ...base.data, ...data };
    base.journalBytes += chunk.part.bytes;
    this.#ahead?.carried.push({ changes: chunk.changes, part: chunk.part });
    for (const kind of ["records", "inFlight"] as const) {
      appendChanges(base.journal[kind], chunk.changes[kind]);
      // Forget only what this write carried: a change made while it was in flight is still to write.
      for (const [key, record] of chunk.changes[kind]) if (this.#changes[kind].get(key) === record) this.#changes[kind].delete(key);
    }
  }

  /** Writes the head's counters and sections alone: an urgent section (calls about to leave), when no record changed. */
  async #writeCounters(info: { written: number; calls: number }): Promise<void> {
    const base = this.#base!;
    const data = this.#counters(base.seq);
    this.#fence();
    const pending = this.#maps.patch(this.#options.name, base.version!, { data });
    this.#step("state-write");
    base.version = await pending;
    info.written += payloadBytes({ data });
    info.calls += 1;
    base.data = { ...base.data, ...data };
  }

  /**
   * An urgent section the head does not hold yet (calls about to leave): written even when no record changed (a
   * round that only decommissions), so that a leader loading the state after a crash mid-call still counts them.
   */
  #sectionsDue(): boolean {
    for (const [key, section] of this.#sections) if (section.urgent && section.text !== this.#base?.data[key]) return true;
    return false;
  }

  /** Folds the journal into the shards: the changed ones to their spare slots, then one head update makes them current. */
  async #compact(info: CompactionInfo): Promise<void> {
    const base = this.#base!;
    const planned = planCompaction(
      { partitions: base.shards.length, shards: base.shards, journal: base.journal, rewrite: base.rewrite },
      this.#limits,
    );
    await writeShardSlots(
      planned,
      this.#slotContext(() => true),
      info,
    );
    await this.#switchHead(planned, [], info);
  }

  /**
   * Starts compacting ahead of need once the head passes COMPACT_AHEAD of its limit: the shards are planned (in
   * steps) and written beside the appends, and the head switch, queued with the writes, keeps the segments appended
   * meanwhile. So the write a round waits for seldom holds a compaction.
   */
  #compactAheadIfDue(): void {
    const base = this.#base!;
    const limit = this.#limits.headMaxBytes; // 0: compact before every append (tests), never ahead
    if (this.#ahead || base.rewrite || limit === 0 || this.#headBytes(base) < limit * COMPACT_AHEAD) return;
    const journal = { records: new Map(base.journal.records), inFlight: new Map(base.journal.inFlight) };
    const snapshot = { partitions: base.shards.length, shards: base.shards, journal, rewrite: false };
    const info = { written: 0, calls: 0, compactions: 0 };
    const ahead: AheadCompaction = { carried: [], info, planned: Promise.resolve(undefined) };
    ahead.planned = prepareCompaction(
      snapshot,
      this.#limits,
      this.#slotContext(() => this.#ahead === ahead),
      info,
    ).catch((error: unknown) => {
      this.#options.logger.info({ err: (error as Error).message }, "compaction ahead of need given up; a later write compacts");
      return undefined;
    });
    this.#ahead = ahead;
    void ahead.planned
      .then(() => this.#queue(() => this.#finishAhead(ahead, this.#aheadDone)))
      .catch((error: unknown) => this.#options.logger.info({ err: (error as Error).message }, "compaction ahead of need not committed"));
  }

  /** Switches the head to a compaction ahead's shards once they are written (nothing when it was given up). */
  async #finishAhead(ahead: AheadCompaction, info: CompactionInfo): Promise<void> {
    if (this.#ahead !== ahead) return;
    const planned = await ahead.planned;
    if (this.#ahead !== ahead) return;
    this.#ahead = undefined;
    for (const key of ["written", "calls"] as const) info[key] += ahead.info[key];
    if (planned) await this.#switchHead(planned, ahead.carried, info);
  }

  /** The head update that commits a compaction: the planned shards, and the segments appended since it began. */
  async #switchHead(planned: PlannedShard[], carried: readonly CarriedSegment[], info: CompactionInfo): Promise<void> {
    this.#step("before-head-switch");
    const base = this.#base!;
    const refs = planned.map((p) => p.ref);
    const { name, org, cluster, apiUrl } = this.#options;
    const data: Record<string, string> = { format: STATE_LAYOUT, org, cluster, "api-url": apiUrl, ...this.#counters(base.seq) };
    Object.assign(data, { partitions: String(refs.length), shards: formatShardTable(refs) });
    // Kept until an operator clears it: the damage; a head created where the witness remembers another says so.
    if (base.data[DAMAGE_KEY] !== undefined) data[DAMAGE_KEY] = base.data[DAMAGE_KEY];
    const replaces = base.version === null ? this.#witness?.uid : base.data[REPLACES_KEY];
    if (replaces !== undefined) data[REPLACES_KEY] = replaces;
    const binaryData = Object.assign({}, ...carried.map((s) => s.part.binaryData)) as Record<string, Buffer>;
    this.#fence();
    const pending = this.#maps.putObject(name, base.version, { data, binaryData });
    this.#step("state-write");
    this.#step("head-switch");
    const { version, uid } = await pending;
    this.#headUid = uid ?? this.#headUid;
    info.written += payloadBytes({ data, binaryData });
    info.calls += 1;
    info.compactions += 1;
    const journal = emptyChanges();
    for (const { changes } of carried) for (const kind of ["records", "inFlight"] as const) appendChanges(journal[kind], changes[kind]);
    this.#base = {
      version,
      rewrite: false,
      shards: planned.map((p) => ({ ref: p.ref, content: p.content })),
      journal,
      seq: base.seq,
      settlements: carried.some((s) => s.part.settlements > 0),
      data,
      journalBytes: carried.reduce((n, s) => n + s.part.bytes, 0),
    };
    await this.#writeWitness(info);
  }

  /**
   * The witness (`<name>-witness`): the head's uid and size, written after each head switch (a compaction, or the
   * head's creation). It is what tells a head deleted from a first start (state/recovery.ts, witnessVerdict): only
   * ever written after the head it names is committed, so a kill -9 at any instant leaves it naming the head or the
   * one before it, and a head created in place of the one it names carries `data.replaces`. A failed witness write
   * is logged and tried again at the next switch: the state itself is written.
   */
  async #writeWitness(info: { written: number; calls: number }): Promise<void> {
    if (this.#headUid === undefined) return;
    const target = witnessName(this.#options.name);
    const data = {
      [WITNESS_UID_KEY]: this.#headUid,
      state: this.#options.name,
      records: String(this.#records.size),
      "in-flight": String(this.#inFlight.size),
      ...this.#written(),
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        this.#fence();
        const version = await this.#maps.put(target, this.#witness?.version ?? null, { data, binaryData: {} });
        this.#witness = { version, uid: this.#headUid };
        info.written += payloadBytes({ data });
        info.calls += 1;
        return;
      } catch (error) {
        if (error instanceof StateWriteFencedError) throw error;
        if (!(error instanceof StateConflictError) || attempt > 0) {
          this.#options.logger.warn(
            { configMap: target, err: (error as Error).message },
            "writing the state's witness failed; trying again at the next compaction",
          );
          return;
        }
        const current = await this.#maps.read(target);
        this.#witness = { version: current?.metadata?.resourceVersion ?? null, uid: current?.data?.[WITNESS_UID_KEY] };
      }
    }
  }

  /**
   * Copies damaged objects aside (`<name>-damaged-<time>`) before anything is written over them; the copies' names.
   * None while read-only (a dry run). A kill -9 before the damage is recorded makes the next load copy them again.
   */
  async #keepAside(objects: readonly StoredConfigMap[]): Promise<string[]> {
    if (this.#options.readOnly) return [];
    const at = new Date(this.#clock.now());
    const kept: string[] = [];
    for (const object of objects) {
      const payload = {
        data: { ...object.data, "damaged-copy-of": object.name, "damaged-at": at.toISOString() },
        binaryData: Object.fromEntries(Object.entries(object.binaryData).map(([k, v]) => [k, Buffer.from(v, "base64")])),
      };
      // A copy of the same second exists (a load stopped before the damage was recorded, run again): another name.
      for (let n = 1; ; n++) {
        const copy = damagedCopyName(object.name, at) + (n > 1 ? `-${n}` : "");
        this.#fence();
        try {
          await this.#maps.put(copy, null, payload);
          kept.push(copy);
          break;
        } catch (error) {
          if (!(error instanceof StateConflictError) || n >= 20) throw error;
        }
      }
    }
    return kept;
  }

  #slotContext(current: () => boolean): SlotWriteContext {
    return {
      maps: this.#maps,
      head: this.#options.name,
      stamp: () => this.#written(),
      fence: () => this.#fence(),
      current,
      onShardWritten: () => this.#step("shard-written"),
      damagedHead: this.#base?.rewrite && this.#base.data[DAMAGE_KEY] !== undefined ? this.#base.version : null,
    };
  }

  /** The head's counters (informational), the participants' sections and the writer's stamp: every head write updates them. */
  #counters(seq: number): Record<string, string> {
    return {
      records: String(this.#records.size),
      "in-flight": String(this.#inFlight.size),
      journal: String(seq),
      ...Object.fromEntries([...this.#sections].map(([key, section]) => [key, section.text])),
      ...this.#written(),
    };
  }

  #written(): { "written-by": string; "written-at": string } {
    return { "written-by": this.#options.writer, "written-at": new Date(this.#clock.now()).toISOString() };
  }

  #headBytes(base: CommittedState): number {
    return payloadBytes({ data: base.data }) + base.journalBytes;
  }

  #shardCount(): number {
    return this.#base?.shards.filter((s) => s.ref?.slot).length ?? 0;
  }

  #fence(): void {
    if (this.#options.fence && !this.#options.fence.leading()) throw new StateWriteFencedError(this.unwritten);
  }

  #step(step: StateWriteStep): void {
    this.#options.onWriteStep?.(step);
  }
}
