// The leader-election algorithm, client-go's tools/leaderelection, over any lock (election/lease-lock.ts) and an injected clock:
// - a candidate tries every retry period (jittered by client-go's factor 1.2); it takes the lock when nobody holds
//   it, when it holds it already, or when the record has not changed for the holder's leaseDurationSeconds as
//   measured on the candidate's own monotonic clock since it last saw the record change (no cross-node clock
//   comparison, and a wall-clock step neither deposes a healthy leader nor extends a stale one);
// - the leader renews every retry period, from its last written record without reading first (client-go's fast
//   path); when no renewal has succeeded for the renew deadline it stops leading at once: a timer fires it, and
//   `isLeader()` checks the clock itself, so a caller fencing its writes never relies on a timer having fired;
// - a 409 means another candidate wrote between our read and our write: the next round reads again;
// - taking over from another holder increments leaseTransitions and sets acquireTime; renewals keep both;
// - release (client-go's ReleaseOnCancel): holder emptied and leaseDurationSeconds 1, so a standby takes over at once.
// Unlike client-go's Run, a leader that loses the lock becomes a candidate again instead of returning.
import type { Logger } from "pino";
import { LeaseLockError, type LeaderElectionRecord, type LeaseLock } from "./lease-lock.js";
import { JITTER_FACTOR, leaseTimingProblems } from "./lease-timing.js";
import { systemClock, type Clock } from "../clock.js";

/** Why a leader stopped leading. */
export type StoppedLeadingReason = "renew-deadline" | "lost" | "released";

/** Settings of an elector (client-go's defaults as used by controller-runtime: 15 s, 10 s, 2 s). */
export interface LeaderElectorOptions {
  lock: LeaseLock;
  /** This candidate's identity (the pod name). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  /** Local durations on its monotonic reading, the record's times on its wall clock; default the system clock. */
  clock?: Clock;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Called when this candidate becomes the leader. */
  onStartedLeading?: () => void;
  /** Called, synchronously, the moment this candidate stops leading. */
  onStoppedLeading?: (reason: StoppedLeadingReason) => void;
  /** Called when the observed holder changes (including to nobody). */
  onNewLeader?: (identity: string | undefined) => void;
}

/** What the elector knows now. */
export interface LeaseElectionStatus {
  leading: boolean;
  /** An attempt has concluded: this candidate leads, or knows someone else does. */
  decided: boolean;
  /** The holder last observed in the lock, if any. */
  holder: string | undefined;
  leaseTransitions: number;
  /** When the last successful acquire or renew started (wall clock, ms since the epoch, for display), 0 if never. */
  lastRenewAt: number;
}

/** The fields that make up the record, as a comparable text. */
const recordText = (r: LeaderElectionRecord): string =>
  JSON.stringify([r.holderIdentity, r.leaseDurationSeconds, r.acquireTime ?? null, r.renewTime ?? null, r.leaseTransitions]);

/** client-go's LeaderElector on an injected clock. */
export class LeaderElector {
  readonly #options: LeaderElectorOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #durationSeconds: number;
  /** The record as last read or written. */
  #record: LeaderElectionRecord | undefined;
  #observedText: string | undefined;
  /** Monotonic time when the record was last seen to change. */
  #observedAt = 0;
  #leading = false;
  #decided = false;
  /** Monotonic time when the last successful acquire or renew started. */
  #lastRenewAt = 0;
  /** The same moment on the wall clock, for status and logs only. */
  #lastRenewWallAt = 0;
  #holder: string | undefined;
  #cancelTimer: (() => void) | undefined;
  #cancelDeadlineTimer: (() => void) | undefined;
  #running = false;
  #round: Promise<void> | undefined;
  readonly #stopping = new AbortController();

  constructor(options: LeaderElectorOptions) {
    const problems = leaseTimingProblems(options);
    if (problems.length > 0) throw new RangeError(`invalid leader-election timing: ${problems.join("; ")}`);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#durationSeconds = Math.ceil(options.leaseDurationMs / 1000);
  }

  /** Starts trying to acquire the lock (and renewing it once held). */
  start(): void {
    if (this.#running || this.#stopping.signal.aborted) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** True while this candidate leads and its last successful renewal is younger than the renew deadline. */
  isLeader(): boolean {
    if (this.#leading && this.#clock.monotonicNow() - this.#lastRenewAt >= this.#options.renewDeadlineMs)
      this.#stopLeading("renew-deadline");
    return this.#leading;
  }

  /** What the elector knows now (checks the renew deadline first). */
  status(): LeaseElectionStatus {
    return {
      leading: this.isLeader(),
      decided: this.#decided,
      holder: this.#holder,
      leaseTransitions: this.#record?.leaseTransitions ?? 0,
      lastRenewAt: this.#lastRenewWallAt,
    };
  }

  /** Stops the loops; with `release` and the lock held, hands it back so another candidate takes over at once. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    const wasLeading = this.isLeader();
    this.#stopping.abort();
    this.#cancelTimer?.();
    await this.#round?.catch(() => undefined);
    if (wasLeading) {
      this.#stopLeading("released");
      if (options.release) await this.#release();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopping.signal.aborted) return;
    this.#cancelTimer = this.#clock.setTimer(delayMs, () => {
      this.#round = this.#tryAcquireOrRenew().finally(() => {
        this.#round = undefined;
        const { retryPeriodMs } = this.#options;
        this.#schedule(this.#leading ? retryPeriodMs : retryPeriodMs * (1 + this.#random() * (JITTER_FACTOR - 1)));
      });
    });
  }

  /** A signal that aborts after `timeoutMs` on the elector's clock, or when the elector stops. */
  #deadline(timeoutMs: number, stopping: boolean): { signal: AbortSignal; done: () => void } {
    const attempt = new AbortController();
    const cancel = this.#clock.setTimer(timeoutMs, () => attempt.abort(new Error(`lock call timed out after ${timeoutMs}ms`)));
    const signal = stopping ? AbortSignal.any([attempt.signal, this.#stopping.signal]) : attempt.signal;
    return { signal, done: cancel };
  }

  async #tryAcquireOrRenew(): Promise<void> {
    const started = this.#clock.monotonicNow();
    const wallNow = this.#clock.now();
    const { lock, identity, logger, renewDeadlineMs, retryPeriodMs } = this.#options;
    const renewing = this.#leading;
    // A renewal must answer before the renew deadline; a candidate's attempt within one retry period (at least 1 s).
    const timeoutMs = renewing ? Math.max(1, Math.ceil(this.#lastRenewAt + renewDeadlineMs - started)) : Math.max(retryPeriodMs, 1000);
    const { signal, done } = this.#deadline(timeoutMs, true);
    try {
      if (this.#leading && this.#record) {
        try {
          this.#renewed(await lock.update(this.#desired(this.#record, wallNow), signal), started, wallNow);
          return;
        } catch (error) {
          if (this.#stopping.signal.aborted) return;
          logger.debug({ lease: lock.describe(), err: (error as Error).message }, "lease renewal from cache failed; reading the lease");
        }
      }
      const current = await lock.get(signal);
      if (!current) {
        const fresh = {
          holderIdentity: identity,
          leaseDurationSeconds: this.#durationSeconds,
          acquireTime: wallNow,
          renewTime: wallNow,
          leaseTransitions: 0,
        };
        this.#renewed(await lock.create(fresh, signal), started, wallNow);
        return;
      }
      this.#observe(current, started);
      const holder = current.holderIdentity;
      if (holder !== "" && holder !== identity && this.#observedAt + current.leaseDurationSeconds * 1000 > started) {
        if (this.#leading) this.#stopLeading("lost");
        this.#decided = true;
        return;
      }
      this.#renewed(await lock.update(this.#desired(current, wallNow), signal), started, wallNow);
    } catch (error) {
      if (this.#stopping.signal.aborted) return;
      const log = { lease: lock.describe(), err: (error as Error).message, leading: this.#leading };
      // A conflict: another candidate wrote between our read and our write; not a failure of ours.
      if (error instanceof LeaseLockError && error.code === "lease_conflict")
        logger.debug(log, "lease changed under us; reading it again next round");
      else logger.warn(log, renewing ? "lease renewal failed" : "lease acquisition attempt failed");
      this.isLeader();
    } finally {
      done();
    }
  }

  /** The record this candidate writes over `current`: client-go keeps acquireTime and transitions on a renewal. */
  #desired(current: LeaderElectionRecord, now: number): LeaderElectionRecord {
    const ours = current.holderIdentity === this.#options.identity;
    return {
      holderIdentity: this.#options.identity,
      leaseDurationSeconds: this.#durationSeconds,
      acquireTime: ours && current.acquireTime !== undefined ? current.acquireTime : now,
      renewTime: now,
      leaseTransitions: ours ? current.leaseTransitions : current.leaseTransitions + 1,
    };
  }

  #observe(record: LeaderElectionRecord, now: number): void {
    const text = recordText(record);
    if (text !== this.#observedText) {
      this.#observedText = text;
      this.#observedAt = now;
    }
    this.#record = record;
    const holder = record.holderIdentity || undefined;
    if (holder !== this.#holder) {
      this.#holder = holder;
      this.#options.logger.info({ lease: this.#options.lock.describe(), holder: holder ?? null }, "lease holder changed");
      this.#options.onNewLeader?.(holder);
    }
  }

  /** `started`: monotonic time when the attempt began; `wallStarted`: the same moment on the wall clock. */
  #renewed(record: LeaderElectionRecord, started: number, wallStarted: number): void {
    this.#observe(record, started);
    if (this.#stopping.signal.aborted) return;
    this.#lastRenewAt = started;
    this.#lastRenewWallAt = wallStarted;
    this.#decided = true;
    this.#cancelDeadlineTimer?.();
    this.#cancelDeadlineTimer = this.#clock.setTimer(this.#options.renewDeadlineMs - (this.#clock.monotonicNow() - started), () =>
      this.isLeader(),
    );
    if (!this.#leading) {
      this.#leading = true;
      const acquireTime = record.acquireTime === undefined ? null : new Date(record.acquireTime).toISOString();
      this.#options.logger.info(
        { lease: this.#options.lock.describe(), identity: this.#options.identity, acquireTime, leaseTransitions: record.leaseTransitions },
        "became leader",
      );
      this.#options.onStartedLeading?.();
    }
  }

  #stopLeading(reason: StoppedLeadingReason): void {
    if (!this.#leading) return;
    this.#leading = false;
    this.#cancelDeadlineTimer?.();
    this.#options.logger[reason === "released" ? "info" : "warn"](
      {
        lease: this.#options.lock.describe(),
        identity: this.#options.identity,
        reason,
        lastRenewAt: new Date(this.#lastRenewWallAt).toISOString(),
      },
      "stopped leading",
    );
    this.#options.onStoppedLeading?.(reason);
  }

  async #release(): Promise<void> {
    const { lock, identity, logger, retryPeriodMs } = this.#options;
    let record = this.#record;
    // Two tries: a renewal cut short by stop() may have landed and moved the record on.
    for (let attempt = 0; attempt < 2 && record; attempt++) {
      if (record.holderIdentity !== identity) return;
      const now = this.#clock.now();
      const { signal, done } = this.#deadline(Math.max(1000, retryPeriodMs), false);
      try {
        this.#record = await lock.update(
          { ...record, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
          signal,
        );
        this.#holder = undefined;
        logger.info({ lease: lock.describe() }, "lease released");
        return;
      } catch (error) {
        if (error instanceof LeaseLockError && error.code === "lease_conflict" && attempt === 0) {
          record = await lock.get(signal).catch(() => undefined);
          continue;
        }
        logger.warn({ lease: lock.describe(), err: (error as Error).message }, "could not release the lease; it expires on its own");
        return;
      } finally {
        done();
      }
    }
  }
}
