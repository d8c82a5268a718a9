// The reconciler: what one round sends, and what it leaves for later. Pure: the desired state, what the service
// acknowledged (with the write-ahead in-flight set), the bookkeeping of earlier rounds and the time come in; the
// batches to send now (and the intents to write before them) and the next bookkeeping go out.
//
// - The backlog holds every entry waiting to be sent, in the order it started waiting. When the budget allows fewer
//   calls than the backlog needs, the most recent changes go first; the rest stays, nothing is dropped.
// - With the keys that changed since the last round (a desired-state tracker knows them), only those are diffed
//   again; the backlog carries the rest. Without them every round diffs everything.
// - An entry the service refused on its merits waits a growing delay (from retryMaxDelay, doubling up to 16 times
//   that) before it goes again, or goes at once when it changes.
// - While the pod cache is still being listed (a partial round), only desired records go, in full batches, never a
//   decommission: a record missing from a partial view may only not have been listed yet. The first complete round
//   diffs everything.
// - The resync resends a slice of the desired records each interval (a rotation over the sorted keys), only with
//   calls no change needs, and within its share of the hourly budget.
import type { AcknowledgedRecord } from "../state/acknowledged-state.js";
import { backoffDelay } from "./backoff.js";
import { groupKey } from "./batch-sender.js";
import type { DesiredState } from "../mapping/desired-state.js";
import { diffRecords, entryFingerprint, sameEntry, type PendingRecord } from "../mapping/record-diff.js";
import { HOUR_MS } from "./write-budget.js";

/** An entry the service refused on its own merits. */
export interface RejectedEntry {
  fingerprint: string;
  /** Why the service refused it (a stable code: see RejectedRecord.cause). */
  cause: string;
  attempts: number;
  retryAt: number;
}

/** An entry waiting to be sent, and since when (for most-recent-first). */
export interface BacklogEntry {
  record: PendingRecord;
  since: number;
}

/** The rotation of the spread resync. */
export interface ResyncState {
  /** Keys of started slices not resent yet, in slice order. */
  due: ReadonlySet<string>;
  /** The last key of the last slice taken: the next slice starts after it. */
  cursor: string | undefined;
  /** When the resync's calls of the last hour were made. */
  calls: readonly number[];
}

/** What the reconciler carries from one round to the next. */
export interface ReconcilerState {
  /**
   * The next round diffs everything, whatever changed keys it is told: the first round (nothing carried yet), and
   * each round that starts a resync slice (so whatever the store took in from elsewhere, say a previous leader's late
   * write merged after a 409, is seen within an interval).
   */
  fullDiffDue: boolean;
  /** The acknowledged map the last round diffed against: another one (the store read its state again) means a full diff. */
  acknowledgedSeen?: ReadonlyMap<string, AcknowledgedRecord> | undefined;
  /** The last round was partial: the next complete one diffs everything (the decommissions it held back). */
  partial?: boolean;
  backlog: ReadonlyMap<string, BacklogEntry>;
  rejected: ReadonlyMap<string, RejectedEntry>;
  resync: ResyncState;
}

/** Settings of the reconciler. */
export interface ReconcilerSettings {
  batchSize: number;
  /** Refused entries wait from this, doubling up to 16 times it. */
  retryMaxDelayMs: number;
  /** Calls the resync may make in any hour (its share of the hourly budget). */
  resyncCallsPerHour: number;
  /** For the refused entries' jitter; default Math.random. */
  random?: () => number;
}

/** One round's inputs. */
export interface RoundInput {
  desired: DesiredState;
  acknowledged: ReadonlyMap<string, AcknowledgedRecord>;
  inFlight: ReadonlyMap<string, AcknowledgedRecord>;
  /** Record keys whose desired record or held status changed since the last round; absent or "all": diff all. */
  changedKeys?: ReadonlySet<string> | "all";
  now: number;
  /** Calls this round may make (what the budget allows now); Infinity when calls cost nothing (dry run). */
  calls: number;
  /** Start a resync slice of this many records (the resync interval has come). */
  resyncSlice?: number;
  /** The pod cache is still being listed: desired records only, no decommission (see the header). */
  partial?: boolean;
}

/** A batch of one round: one environment, at most batchSize entries. */
export interface PlannedBatch {
  records: PendingRecord[];
  resync: boolean;
}

/** What one round sends and leaves. */
export interface RoundPlan {
  batches: PlannedBatch[];
  /** Deployed entries of the batches not already in flight with this content: written before any call. */
  intents: PendingRecord[];
  /** Entries that needed sending when the round was planned (changes and due resync entries). */
  pending: number;
  /** Calls' worth of entries left for later rounds: by the budget, and by the resync's share. */
  deferredCalls: { budget: number; resyncShare: number };
  /** The earliest time later work comes due without a new change (a refused entry's retry, the resync's share). */
  nextDueAt: number | undefined;
  state: ReconcilerState;
}

/** What the calls of a round achieved. */
export interface RoundOutcome {
  accepted: readonly PendingRecord[];
  rejected: readonly { record: PendingRecord; reason: string; cause?: string }[];
  /** Calls made. */
  requests: number;
}

/** The state before the first round (and after a new leader takes over). */
export function initialReconcilerState(): ReconcilerState {
  return { fullDiffDue: true, backlog: new Map(), rejected: new Map(), resync: { due: new Set(), cursor: undefined, calls: [] } };
}

/** The records the service refuses now (each waiting its retry, or refused again until it changes), by cause. */
export function refusedByCause(state: ReconcilerState): Map<string, number> {
  const out = new Map<string, number>();
  for (const { cause } of state.rejected.values()) out.set(cause, (out.get(cause) ?? 0) + 1);
  return out;
}

/** Plans one round. */
export function planRound(state: ReconcilerState, input: RoundInput, settings: ReconcilerSettings): RoundPlan {
  const { desired, now } = input;
  const parked = new Map<string, string>();
  const dueRejected: string[] = [];
  for (const [key, r] of state.rejected) {
    if (r.retryAt > now) parked.set(key, r.fingerprint);
    else dueRejected.push(key);
  }
  const startsSlice = input.resyncSlice !== undefined && input.resyncSlice > 0;
  const partial = input.partial === true;
  const full =
    state.fullDiffDue ||
    (state.partial === true && !partial) ||
    startsSlice ||
    input.acknowledged !== state.acknowledgedSeen ||
    input.changedKeys === undefined ||
    input.changedKeys === "all";
  const changed = full ? undefined : new Set([...(input.changedKeys as ReadonlySet<string>), ...dueRejected]);
  const backlog = updateBacklog(state.backlog, input, parked, changed, partial);
  // A partial view does not show every key yet: nothing it lacks has vanished.
  const rejected = changed === undefined && !partial ? forgetVanished(state.rejected, input) : state.rejected;

  let resync = state.resync;
  if (startsSlice) resync = startSlice(resync, desired, input.resyncSlice!);
  const resyncCalls = resync.calls.filter((at) => at > now - HOUR_MS);
  const resyncEntries: PendingRecord[] = [];
  const due = new Set(resync.due);
  for (const key of due) {
    const record = desired.records.get(key);
    if (!record) due.delete(key);
    else if (!backlog.has(key)) resyncEntries.push({ key, group: record.group, entry: record.entry });
  }

  // The most recent changes first; the resync only with the calls left, within its share of the hour.
  const changes = [...backlog.values()].reverse().map((b) => b.record);
  // A partial round sends full batches only: the pods still to be listed fill the rest.
  const batches = packBatches(changes, input.calls, settings.batchSize)
    .filter((records) => !partial || records.length >= settings.batchSize)
    .map((records) => ({ records, resync: false }));
  const sentChanges = batches.reduce((n, b) => n + b.records.length, 0);
  const callsLeft = input.calls - batches.length;
  const shareLeft = Math.max(0, settings.resyncCallsPerHour - resyncCalls.length);
  const resyncBatches = packBatches(resyncEntries, Math.min(callsLeft, shareLeft), settings.batchSize).map((records) => ({
    records,
    resync: true,
  }));
  batches.push(...resyncBatches);
  const resyncLeft = resyncEntries.length - resyncBatches.reduce((n, b) => n + b.records.length, 0);
  const byShare = resyncLeft > 0 && shareLeft < callsLeft;
  const projected = [...resyncCalls, ...resyncBatches.map(() => now)];

  const intents: PendingRecord[] = [];
  for (const { records } of batches) {
    for (const r of records) {
      if ((r.entry.status ?? "deployed") !== "deployed") continue;
      const flying = input.inFlight.get(r.key);
      if (!flying || !sameEntry(flying.entry, r.entry)) intents.push(r);
    }
  }
  const nextDueAt = earliest([
    ...[...rejected.values()].map((r) => r.retryAt).filter((at) => at > now),
    // The share is spent: the slice goes on when the oldest of its calls leaves the hour.
    byShare ? projected[projected.length - settings.resyncCallsPerHour]! + HOUR_MS : undefined,
  ]);
  return {
    batches,
    intents,
    pending: backlog.size + resyncEntries.length,
    deferredCalls: {
      // A partial round counts the full batches left only: the rest waits for more of the list, not for the budget.
      budget: (partial ? Math.floor : Math.ceil)((backlog.size - sentChanges + (byShare ? 0 : resyncLeft)) / settings.batchSize),
      resyncShare: byShare ? Math.ceil(resyncLeft / settings.batchSize) : 0,
    },
    nextDueAt,
    state: {
      fullDiffDue: false,
      acknowledgedSeen: input.acknowledged,
      partial,
      backlog,
      rejected,
      resync: { due, cursor: resync.cursor, calls: resyncCalls },
    },
  };
}

/** The state after the round's calls: accepted entries leave the backlog, refused ones wait their retry. */
export function settleRound(
  state: ReconcilerState,
  plan: RoundPlan,
  outcome: RoundOutcome,
  now: number,
  settings: ReconcilerSettings,
): ReconcilerState {
  const backlog = new Map(state.backlog);
  const rejected = new Map(state.rejected);
  const due = new Set(state.resync.due);
  for (const record of outcome.accepted) {
    backlog.delete(record.key);
    rejected.delete(record.key);
    due.delete(record.key);
  }
  for (const { record, cause } of outcome.rejected) {
    backlog.delete(record.key);
    due.delete(record.key);
    const fingerprint = entryFingerprint(record.entry);
    const before = rejected.get(record.key);
    const attempts = before?.fingerprint === fingerprint ? before.attempts + 1 : 1;
    const wait = backoffDelay(attempts - 1, settings.retryMaxDelayMs, settings.retryMaxDelayMs * 16, settings.random);
    rejected.set(record.key, { fingerprint, cause: cause ?? "refused", attempts, retryAt: now + wait });
  }
  const resyncBatches = plan.batches.filter((b) => b.resync).length;
  const calls = outcome.requests > 0 ? [...state.resync.calls, ...Array.from({ length: resyncBatches }, () => now)] : state.resync.calls;
  return { ...state, backlog, rejected, resync: { due, cursor: state.resync.cursor, calls } };
}

/**
 * Packs entries, in priority order, into at most `calls` batches of one environment and at most `batchSize` each.
 * A batch is opened for the environment of the highest-priority entry not placed yet.
 */
export function packBatches(entries: readonly PendingRecord[], calls: number, batchSize: number): PendingRecord[][] {
  const batches: PendingRecord[][] = [];
  const open = new Map<string, PendingRecord[]>();
  for (const record of entries) {
    const id = groupKey(record.group);
    let batch = open.get(id);
    if (!batch) {
      if (batches.length >= calls) {
        if (open.size === 0) break;
        continue;
      }
      batch = [];
      batches.push(batch);
      open.set(id, batch);
    }
    batch.push(record);
    if (batch.length >= batchSize) open.delete(id);
  }
  return batches;
}

/** The backlog after this round's diff: kept in the order entries started waiting (an unchanged entry keeps its place). */
function updateBacklog(
  before: ReadonlyMap<string, BacklogEntry>,
  input: RoundInput,
  parked: ReadonlyMap<string, string>,
  changed: ReadonlySet<string> | undefined,
  upsertsOnly: boolean,
): Map<string, BacklogEntry> {
  const fresh = diffRecords(input.desired, input.acknowledged, {
    inFlight: input.inFlight,
    rejected: parked,
    upsertsOnly,
    ...(changed ? { keys: changed } : {}),
  });
  const freshByKey = new Map(fresh.map((r) => [r.key, r]));
  const backlog = new Map<string, BacklogEntry>();
  // Unchanged entries first, in their order; then the new or changed ones, as the most recent.
  for (const [key, entry] of before) {
    const touched = changed === undefined || changed.has(key) || input.inFlight.has(key);
    if (!touched) {
      backlog.set(key, entry);
      continue;
    }
    const now = freshByKey.get(key);
    // The same entry object (the desired state reuses the records of unchanged pods) needs no fingerprint; none is
    // kept per entry (a cold sync's backlog holds every record: 90,000 strings at 150,000 pods).
    if (now && sameEntry(now.entry, entry.record.entry)) {
      backlog.set(key, { ...entry, record: now });
      freshByKey.delete(key);
    }
  }
  // New entries of one round are ordered by key, so that a round diffing only the changed keys orders them as one
  // diffing everything does.
  for (const key of [...freshByKey.keys()].sort()) {
    const record = freshByKey.get(key)!;
    backlog.set(key, { record, since: input.now });
  }
  return backlog;
}

/** Refused entries whose key nobody knows any more (not desired, acknowledged or in flight) are forgotten. */
function forgetVanished(rejected: ReadonlyMap<string, RejectedEntry>, input: RoundInput): ReadonlyMap<string, RejectedEntry> {
  let out: Map<string, RejectedEntry> | undefined;
  for (const key of rejected.keys()) {
    if (input.desired.records.has(key) || input.acknowledged.has(key) || input.inFlight.has(key)) continue;
    out ??= new Map(rejected);
    out.delete(key);
  }
  return out ?? rejected;
}

/** Adds the next slice of the rotation (the `size` keys after the cursor, in sorted order, wrapping) to the due set. */
function startSlice(resync: ResyncState, desired: DesiredState, size: number): ResyncState {
  const keys = [...desired.records.keys()].sort();
  if (keys.length === 0) return resync;
  let start = 0;
  if (resync.cursor !== undefined) {
    // The first key after the cursor (binary search).
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! <= resync.cursor) lo = mid + 1;
      else hi = mid;
    }
    start = lo % keys.length;
  }
  const due = new Set(resync.due);
  const count = Math.min(size, keys.length);
  let last = resync.cursor;
  for (let i = 0; i < count; i++) {
    last = keys[(start + i) % keys.length]!;
    due.add(last);
  }
  return { due, cursor: last, calls: resync.calls };
}

function earliest(times: readonly (number | undefined)[]): number | undefined {
  let min: number | undefined;
  for (const t of times) if (t !== undefined && (min === undefined || t < min)) min = t;
  return min;
}
