// The flush loop: runs rounds (flush/round.ts) when the schedule (flush/schedule.ts) says so, one at a time, on
// the injected clock. It keeps what lies between rounds: the coalescing window of changes, the failure backoff, the
// state load before the first round of a leadership, the resync's timing, and the counts readiness looks at.
import { ShiplogError } from "@shiplog/client";
import { CallOutcomes } from "./call-outcomes.js";
import type { Clock } from "../clock.js";
import { runRound, type FlushSummary, type RoundContext } from "./round.js";
import { nextWake, type ScheduleTimings, type Wake } from "./schedule.js";
import { everyRecordRefused } from "../observability/readiness.js";
import { initialReconcilerState, refusedByCause, type ReconcilerState } from "./reconciler.js";
import type { ControllerConfig } from "../config/config.js";
import type { WriteBudget } from "./write-budget.js";
import type { LeadershipFence } from "../election/fence.js";

/** How often the loop wakes when nothing is due (liveness for /healthz). */
const HEARTBEAT_MS = 1000;
/**
 * Most calls of one round with serialized writes: one intent write serves them all, and newer changes wait for at
 * most 10 calls' answers before the next round takes them. A rollout of 10% of the largest cluster (9 calls) goes
 * in one round; rounds of 4 measured a p99 1-2.5 s longer there (test/bench/controller-sync.ts).
 */
const SERIALIZED_CALLS_PER_ROUND = 10;
/** A round held by the budget starts preparing at most this early, so it holds back the changes it missed no longer. */
const MAX_EARLY_START_MS = 1000;

/** A round was asked for before the acknowledged state could be read: diffing against nothing would re-post all. */
export class StateNotLoadedError extends ShiplogError {
  constructor() {
    super("acknowledged_state_not_loaded", "the acknowledged state could not be loaded yet; nothing is sent until it is (see the logs)");
  }
}

/** Settings of the loop. */
export interface FlushLoopSettings extends ScheduleTimings {
  /** Most calls one round may make, as far as the budget's windows have room for them now. */
  callsPerRound: number;
  /** 0: no resync. */
  resyncIntervalMs: number;
  /** Records one resync interval resends. */
  resyncSliceRecords: number;
  retryMinDelayMs: number;
  retryMaxDelayMs: number;
  /** Calls cost nothing: no budget. */
  dryRun: boolean;
}

/** What the loop needs. */
export interface FlushLoopOptions extends RoundContext {
  clock: Clock;
  budget: WriteBudget;
  settings: FlushLoopSettings;
  /** Rounds run while this replica leads; their calls are cut off the moment it stops. */
  fence: LeadershipFence;
  /** Every informer cache has its first list: what is not desired may be decommissioned. */
  synced: () => boolean;
  /**
   * The workload caches have their first list while the pods may still be listing: rounds may already post what the
   * listed pods run (partial rounds: desired records only, no decommission), so the cold sync's calls overlap the
   * pod list. Absent: rounds wait for `synced`.
   */
  ownersSynced?: () => boolean;
  /** Called at every wake (metrics that follow the informers and the election). */
  onTick?: () => void;
}

/** What the loop knows now. */
export interface FlushLoopStatus {
  /** A round with every cache listed has run since this replica became the leader. */
  flushed: boolean;
  /** Entries waiting to be sent after the last round (failed, or held back by the budget). */
  pending: number;
  consecutiveFailures: number;
  lastTickAt: number;
  requests: number;
  recordsSent: number;
  tokenRefusedFlushes: number;
  tokenRefusedStatus: number;
  /** Records the service refuses now, by cause (see refusedByCause). */
  refused: ReadonlyMap<string, number>;
}

/** Runs rounds as changes, backlog, retries and resyncs come due. */
export class FlushLoop {
  readonly #o: FlushLoopOptions;
  readonly #abort = new AbortController();
  readonly #outcomes: CallOutcomes;
  #state: ReconcilerState = initialReconcilerState();
  #cancelTimer: (() => void) | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** The scheduled wake was pushed back by the write budget. */
  #heldByBudget = false;
  #round: Promise<FlushSummary> | undefined;
  /** The last round's answer write, while it runs. */
  #answerWrite: Promise<unknown> | undefined;
  #started = false;
  #stopped = false;
  #flushed = false;
  /** A round with every cache listed has run since this replica became the leader. */
  #flushedComplete = false;
  #firstChangeAt: number | undefined;
  #lastChangeAt: number | undefined;
  /** Changes (informer events) since the last round began, for the debug log. */
  #changes = 0;
  #backlog = false;
  #dueAt: number | undefined;
  #nextResyncAt: number | undefined;
  /** How long (on the clock) the last round that sent took to get ready to send: a held round starts that early. */
  #prepareMs = 0;
  #lastTickAt = 0;

  constructor(options: FlushLoopOptions) {
    this.#o = options;
    const { logger, settings } = options;
    this.#outcomes = new CallOutcomes(logger, { minDelayMs: settings.retryMinDelayMs, maxDelayMs: settings.retryMaxDelayMs });
  }

  /** Something in the cluster changed: opens (or extends) the coalescing window. */
  notifyChange(): void {
    const now = this.#o.clock.now();
    this.#changes += 1;
    this.#firstChangeAt ??= now;
    this.#lastChangeAt = now;
    // Only the first change of a window can make the next wake earlier; later ones only extend it.
    if (this.#firstChangeAt === now) this.#reschedule();
  }

  /** The caches (all, or the workloads') have their first list: a round may be due now. */
  cachesSynced(): void {
    this.#reschedule();
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#reschedule();
  }

  /** This replica became the leader: a fresh start (the state is read again before the first round). */
  startedLeading(): void {
    const now = this.#o.clock.now();
    this.#o.persistence.reset();
    this.#o.sender.gate.reset();
    this.#state = initialReconcilerState();
    this.#flushed = false;
    this.#flushedComplete = false;
    this.#backlog = false;
    this.#outcomes.reset();
    this.#nextResyncAt = this.#o.settings.resyncIntervalMs > 0 ? now + this.#o.settings.resyncIntervalMs : undefined;
    // Take over now rather than at the next heartbeat.
    this.#reschedule();
  }

  /** This replica stopped leading: what it held is for the next leader to work out. */
  stoppedLeading(): void {
    this.#o.persistence.unload();
    this.#state = initialReconcilerState();
    this.#backlog = false;
    this.#o.metrics.pendingRecords.set(0);
    this.#o.metrics.refusedRecords.reset();
    this.#o.unlinked?.reset();
  }

  /** Runs one round now (after any round in flight), whatever the schedule says; the budget still paces its calls. */
  async flush(): Promise<FlushSummary> {
    while (this.#round !== undefined) await this.#round.catch(() => undefined);
    return this.#run(true);
  }

  /**
   * Stops the loop. With `flush` (SIGTERM), a leader first sends what is pending, round after round while the
   * budget allows and `timeoutMs` lasts; a leader always writes its state last.
   */
  async stop(options: { flush?: boolean; timeoutMs: number }): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#cancelTimer?.();
    let expired = false;
    let cancelDeadline: () => void = () => undefined;
    const deadline = new Promise<void>((resolve) => {
      cancelDeadline = this.#o.clock.setTimer(options.timeoutMs, () => {
        expired = true;
        resolve();
      });
    });
    if (options.flush && this.#o.synced() && this.#o.fence.leading()) {
      const last = (async () => {
        await this.#round?.catch(() => undefined);
        do await this.#run(false);
        while (!expired && this.#backlog && this.#outcomes.consecutiveFailures === 0 && this.#o.fence.leading());
      })();
      await Promise.race([
        last.catch((error: unknown) => this.#o.logger.warn({ err: (error as Error).message }, "last flush failed")),
        deadline,
      ]);
    }
    this.#abort.abort();
    await this.#round?.catch(() => undefined);
    await Promise.race([this.#answerWrite, deadline]);
    if (this.#o.fence.leading()) await Promise.race([this.#o.persistence.write({ final: true }), deadline]);
    cancelDeadline();
  }

  status(): FlushLoopStatus {
    return {
      flushed: this.#flushedComplete,
      pending: this.#state.backlog.size,
      consecutiveFailures: this.#outcomes.consecutiveFailures,
      lastTickAt: this.#lastTickAt,
      requests: this.#outcomes.requests,
      recordsSent: this.#outcomes.recordsSent,
      tokenRefusedFlushes: this.#outcomes.tokenRefusedFlushes,
      tokenRefusedStatus: this.#outcomes.tokenRefusedStatus,
      refused: refusedByCause(this.#state),
    };
  }

  /** What the schedule says now. */
  #wake(now: number): Wake {
    const { settings, persistence, sender, budget } = this.#o;
    return nextWake(
      {
        now,
        active: this.#o.fence.leading() && (this.#o.synced() || (this.#o.ownersSynced?.() ?? false)),
        stateLoaded: persistence.loaded,
        // Also the first round once every cache is listed: the one that may decommission.
        firstRound: !this.#flushed || (!this.#flushedComplete && this.#o.synced()),
        firstChangeAt: this.#firstChangeAt,
        lastChangeAt: this.#lastChangeAt,
        backlog: this.#backlog,
        stateDirty: persistence.dirty,
        dueAt: minDefined(this.#dueAt, this.#nextResyncAt),
        notBefore: Math.max(this.#outcomes.notBefore, persistence.notBefore),
        gateOpensAt: sender.gate.notBefore,
        budgetSlotAt: settings.dryRun ? 0 : budget.nextSlot(now),
        prepareMs: Math.min(this.#prepareMs, MAX_EARLY_START_MS),
      },
      settings,
    );
  }

  /** Moves the timer to the schedule's next wake (one timer: a wake is moved, never added). */
  #reschedule(): void {
    if (!this.#started || this.#stopped || this.#round !== undefined) return;
    const now = this.#o.clock.now();
    const wake = this.#wake(now);
    if (wake.at >= this.#timerAt && this.#cancelTimer) return;
    this.#cancelTimer?.();
    this.#timerAt = wake.at;
    this.#heldByBudget = wake.heldByBudget;
    this.#cancelTimer = this.#o.clock.setTimer(Math.max(0, wake.at - now), () => void this.#tick());
  }

  /** A wake: runs a round if the schedule (asked again: a window may have been extended meanwhile) says it is due. */
  async #tick(): Promise<void> {
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#o.clock.now();
    this.#lastTickAt = now;
    try {
      this.#o.onTick?.();
      const wake = this.#wake(now);
      // A round already running (an explicit flush) reschedules when it ends: rounds never overlap.
      if (wake.reason !== "heartbeat" && wake.at <= now && this.#round === undefined) {
        if (this.#heldByBudget) this.#o.metrics.budgetWaits.inc();
        await this.#run(false);
      }
    } catch (error) {
      this.#o.logger.error({ err: error }, "flush failed unexpectedly");
    } finally {
      this.#reschedule();
    }
  }

  /** Runs one round (loading the state first when needed); the summary of a round that did not run is empty. */
  #run(explicit: boolean): Promise<FlushSummary> {
    const run = this.#runOnce(explicit).finally(() => {
      if (this.#round === run) this.#round = undefined;
      this.#reschedule();
    });
    this.#round = run;
    return run;
  }

  async #runOnce(explicit: boolean): Promise<FlushSummary> {
    const { clock, persistence, settings, metrics, logger, budget } = this.#o;
    const empty: FlushSummary = {
      desired: 0,
      pending: 0,
      deferred: 0,
      requests: 0,
      accepted: 0,
      rejected: 0,
      failed: 0,
      conflicts: 0,
      timings: { planMs: 0, intentWriteMs: 0, callsMs: 0 },
    };
    if (!persistence.loaded && this.#o.fence.leading()) await persistence.load();
    if (!persistence.loaded) {
      if (explicit && this.#o.fence.leading()) throw new StateNotLoadedError();
      return empty;
    }
    const endTimer = metrics.flushDuration.startTimer();
    const now = clock.now();
    logger.debug(
      { changes: this.#changes, sinceFirstChangeMs: this.#firstChangeAt === undefined ? null : now - this.#firstChangeAt, explicit },
      "round",
    );
    this.#firstChangeAt = undefined;
    this.#lastChangeAt = undefined;
    this.#changes = 0;
    const resyncDue = this.#nextResyncAt !== undefined && now >= this.#nextResyncAt;
    if (resyncDue) this.#nextResyncAt = now + settings.resyncIntervalMs;
    // At least one call: a round the budget holds (a state write, an explicit flush) waits for its slot in the pacer.
    const room = budget.room(now);
    const calls = settings.dryRun ? Number.POSITIVE_INFINITY : Math.max(1, Math.min(settings.callsPerRound, room));
    const leadership = this.#o.fence.signal;
    const signal = leadership ? AbortSignal.any([this.#abort.signal, leadership]) : this.#abort.signal;
    if (this.#outcomes.consecutiveFailures > 0 && this.#state.backlog.size > 0) metrics.retries.inc({ reason: "flush" });
    const partial = !this.#o.synced();
    const first = !this.#flushed;
    const firstComplete = !partial && !this.#flushedComplete;
    const result = await runRound(this.#o, this.#state, {
      now,
      calls,
      signal,
      previousWrite: this.#answerWrite,
      // An explicit round returns with its answers on disk; otherwise they may ride with the next round's intents.
      nextCallSoon: !explicit && !settings.dryRun && room > calls,
      changesPending: () => this.#firstChangeAt !== undefined,
      // A held round starts at most MAX_EARLY_START_MS early (#wake): a slow one must not hold its entries long.
      onPrepared: () => (this.#prepareMs = clock.now() - now),
      ...(resyncDue ? { resyncSlice: settings.resyncSliceRecords } : {}),
      ...(partial ? { partial } : {}),
    });
    this.#state = result.state;
    this.#dueAt = result.plan.nextDueAt;
    const { planMs, intentWriteMs, callsMs } = result.summary.timings;
    metrics.roundPhase.observe({ phase: "plan" }, planMs / 1000);
    if (result.sent) {
      metrics.roundPhase.observe({ phase: "intent_write" }, intentWriteMs / 1000);
      metrics.roundPhase.observe({ phase: "calls" }, callsMs / 1000);
    }
    if (result.answerWrite) {
      const answer = result.answerWrite.then((ms) => metrics.roundPhase.observe({ phase: "answer_write" }, ms / 1000));
      this.#answerWrite = answer;
      void answer.finally(() => {
        if (this.#answerWrite === answer) this.#answerWrite = undefined;
      });
      // An explicit round returns with its answers on disk.
      if (explicit) await answer;
    }
    this.#flushed = true;
    if (!partial) this.#flushedComplete = true;
    const { desired, pending: needed } = result.summary;
    if (first && partial)
      logger.info({ desired, pending: needed }, "first round while the pods are still listing: posting what is listed so far");
    if (firstComplete)
      logger.info(
        { desired, pending: needed, calls: Math.ceil(needed / this.#o.reconciler.batchSize) },
        "first complete round: what the service lacks",
      );
    metrics.deferredCalls.set({ reason: "budget" }, result.plan.deferredCalls.budget);
    metrics.deferredCalls.set({ reason: "resync_share" }, result.plan.deferredCalls.resyncShare);
    if (result.sent) this.#outcomes.record(result.sent, !leadership || leadership.aborted, clock.now());
    const pending = this.#state.backlog.size;
    // What a partial round leaves short of a full batch waits for more of the pod list (a change) or its end.
    this.#backlog = (pending > 0 && !partial) || result.plan.deferredCalls.budget > 0;
    const refused = refusedByCause(this.#state);
    const acknowledged = persistence.store.all().size;
    // Nothing pending, but nothing landed either (every record refused): not a successful flush.
    if (pending === 0 && !everyRecordRefused(sum(refused.values()), acknowledged)) metrics.lastSuccessfulFlush.set(clock.now() / 1000);
    metrics.refusedRecords.reset();
    for (const [reason, count] of refused) metrics.refusedRecords.set({ reason }, count);
    metrics.pendingRecords.set(pending);
    metrics.acknowledgedRecords.set(acknowledged);
    endTimer();
    logger.debug({ ...result.summary }, "flushed deployment records");
    return result.summary;
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** The flush loop's settings from the configuration (the resync's slice computed once, by loadConfig). */
export function flushLoopSettings(config: ControllerConfig): FlushLoopSettings {
  return {
    windowMs: config.flushWindowMs,
    maxWaitMs: config.flushMaxWaitMs,
    heartbeatMs: HEARTBEAT_MS,
    // Serialized writes go one at a time: a round's calls follow each other under one intent write.
    callsPerRound: config.serializeWrites ? SERIALIZED_CALLS_PER_ROUND : config.concurrency,
    resyncIntervalMs: config.resyncIntervalMs,
    resyncSliceRecords: config.resyncSliceRecords,
    retryMinDelayMs: config.retryMinDelayMs,
    retryMaxDelayMs: config.retryMaxDelayMs,
    dryRun: config.dryRun,
  };
}
