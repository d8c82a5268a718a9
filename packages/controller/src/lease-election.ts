// Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics (tools/leaderelection):
// - a candidate tries every retry period (with client-go's 1.2 jitter factor); it takes the lease when nobody holds
//   it, when it holds it already, or when the record has not changed for the holder's leaseDurationSeconds as
//   measured on the candidate's own clock since it last saw the record change (no cross-node clock comparison);
// - the leader renews every retry period; when no renewal has succeeded for the renew deadline it stops leading
//   at once (the callback runs synchronously from a timer, and `isLeader()` checks the clock itself, so a caller
//   fencing its writes never relies on a timer having fired);
// - every write is an update with the read resourceVersion: a 409 means someone else wrote first, and the next
//   round reads again;
// - acquireTime/renewTime are MicroTime (6 fractional digits); leaseTransitions grows on every change of holder;
// - release (ReleaseOnCancel): holderIdentity emptied and leaseDurationSeconds 1, so a standby takes over at once;
// - local durations (renew-deadline fencing, when the record was last seen to change) use the monotonic clock
//   (performance.now()), so a wall-clock step (NTP, a VM resumed) neither deposes a healthy leader nor extends a
//   stale one; the wall clock is only written into the Lease (MicroTime).
// Unlike client-go's Run, a leader that loses the lease becomes a candidate again instead of returning.
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { callOptions, kubeErrorMessage, kubeStatus } from "./kube-call-options.js";
import { JITTER_FACTOR, leaseTimingProblems } from "./lease-timing.js";

/** Settings of the election (client-go's defaults as used by controller-runtime: 15 s, 10 s, 2 s). */
export interface LeaseElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  /** This candidate's identity (the pod name). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  /** Called when this candidate becomes the leader. */
  onStartedLeading?: () => void;
  /** Called, synchronously, the moment this candidate stops leading (lost, expired, or released). */
  onStoppedLeading?: (reason: "renew-deadline" | "lost" | "released") => void;
  /** Called when the observed holder changes (including to nobody). */
  onNewLeader?: (identity: string | undefined) => void;
}

/** What the election knows now. */
export interface LeaseElectionStatus {
  leading: boolean;
  /** An attempt has concluded: this candidate leads, or knows someone else does. */
  decided: boolean;
  /** The holder last observed in the Lease, if any. */
  holder: string | undefined;
  leaseTransitions: number;
  /** When the last successful acquire or renew started (wall clock, ms since the epoch, for display), 0 if never. */
  lastRenewAt: number;
}


function microTime(ms: number): V1MicroTime {
  return new V1MicroTime(ms);
}

/** The fields of a Lease spec that make up the leader-election record, as a comparable text. */
function recordText(lease: V1Lease): string {
  const s = lease.spec ?? {};
  const time = (t: unknown) => (t === undefined || t === null ? null : new Date(t as string | Date).toISOString());
  return JSON.stringify([s.holderIdentity ?? "", s.leaseDurationSeconds ?? 0, time(s.acquireTime), time(s.renewTime), s.leaseTransitions ?? 0]);
}

/** A leader election on one Lease. */
export class LeaseElection {
  readonly #api: CoordinationV1Api;
  readonly #options: LeaseElectionOptions;
  #lease: V1Lease | undefined;
  #observedText: string | undefined;
  /** performance.now() when the record was last seen to change. */
  #observedAt = 0;
  #leading = false;
  #decided = false;
  /** performance.now() when the last successful acquire or renew started. */
  #lastRenewAt = 0;
  /** The same moment on the wall clock, for status and logs only. */
  #lastRenewWallAt = 0;
  #holder: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #running = false;
  #round: Promise<void> | undefined;
  readonly #stopping = new AbortController();

  constructor(options: LeaseElectionOptions) {
    const problems = leaseTimingProblems(options);
    if (problems.length > 0) throw new RangeError(`invalid leader-election timing: ${problems.join("; ")}`);
    this.#options = options;
    this.#api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  }

  /** Starts trying to acquire the lease (and renewing it once held). */
  start(): void {
    if (this.#running || this.#stopping.signal.aborted) return;
    this.#running = true;
    this.#schedule(0);
  }

  /**
   * True while this candidate leads and its last successful renewal is younger than the renew deadline: checked
   * against the clock on every call, so a stalled loop can never leave a stale leader posting.
   */
  isLeader(): boolean {
    if (this.#leading && performance.now() - this.#lastRenewAt >= this.#options.renewDeadlineMs) this.#stopLeading("renew-deadline");
    return this.#leading;
  }

  status(): LeaseElectionStatus {
    return { leading: this.isLeader(), decided: this.#decided, holder: this.#holder, leaseTransitions: this.#lease?.spec?.leaseTransitions ?? 0, lastRenewAt: this.#lastRenewWallAt };
  }

  /** Stops the loops; with `release` and the lease held, hands it back so another candidate takes over at once. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    const wasLeading = this.isLeader();
    this.#stopping.abort();
    clearTimeout(this.#timer);
    await this.#round?.catch(() => undefined);
    if (wasLeading) {
      this.#stopLeading("released");
      if (options.release) await this.#release();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopping.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#round = this.#tryAcquireOrRenew().finally(() => {
        this.#round = undefined;
        const period = this.#leading ? this.#options.retryPeriodMs : this.#options.retryPeriodMs * (1 + Math.random() * (JITTER_FACTOR - 1));
        this.#schedule(period);
      });
    }, delayMs);
  }

  async #tryAcquireOrRenew(): Promise<void> {
    const started = performance.now();
    const wallNow = Date.now();
    // A renewal must answer before the renew deadline; a candidate's attempt within one retry period.
    const timeoutMs = this.#leading ? Math.max(1, Math.ceil(this.#lastRenewAt + this.#options.renewDeadlineMs - started)) : Math.max(this.#options.retryPeriodMs, 1000);
    const { namespace, name, identity } = this.#options;
    try {
      // client-go's fast path: the leader updates from its cached object without reading first.
      if (this.#leading && this.#lease) {
        try {
          this.#renewed(await this.#api.replaceNamespacedLease({ name, namespace, body: this.#desired(this.#lease, wallNow) }, callOptions(timeoutMs, this.#stopping.signal)), started, wallNow);
          return;
        } catch (error) {
          if (this.#stopping.signal.aborted) return;
          this.#options.logger.debug({ lease: name, err: kubeErrorMessage(error) }, "lease renewal from cache failed; reading the lease");
        }
      }
      let current: V1Lease;
      try {
        current = await this.#api.readNamespacedLease({ name, namespace }, callOptions(timeoutMs, this.#stopping.signal));
      } catch (error) {
        if (kubeStatus(error) !== 404) throw error;
        const created = await this.#api.createNamespacedLease(
          {
            namespace,
            body: {
              apiVersion: "coordination.k8s.io/v1",
              kind: "Lease",
              metadata: { name, namespace },
              spec: {
                holderIdentity: identity,
                leaseDurationSeconds: Math.ceil(this.#options.leaseDurationMs / 1000),
                acquireTime: microTime(wallNow),
                renewTime: microTime(wallNow),
                leaseTransitions: 0,
              },
            },
          },
          callOptions(timeoutMs, this.#stopping.signal),
        );
        this.#renewed(created, started, wallNow);
        return;
      }
      this.#observe(current, started);
      const holder = current.spec?.holderIdentity ?? "";
      const durationMs = (current.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== "" && holder !== identity && this.#observedAt + durationMs > started) {
        if (this.#leading) this.#stopLeading("lost");
        this.#decided = true;
        return;
      }
      this.#renewed(await this.#api.replaceNamespacedLease({ name, namespace, body: this.#desired(current, wallNow) }, callOptions(timeoutMs, this.#stopping.signal)), started, wallNow);
    } catch (error) {
      if (this.#stopping.signal.aborted) return;
      const status = kubeStatus(error);
      const log = { lease: `${namespace}/${name}`, err: kubeErrorMessage(error), leading: this.#leading };
      // 409: another candidate wrote between our read and our update; it is not a failure of ours.
      if (status === 409) this.#options.logger.debug(log, "lease changed under us; reading it again next round");
      else this.#options.logger.warn(log, this.#leading ? "lease renewal failed" : "lease acquisition attempt failed");
      this.isLeader();
    }
  }

  /** The record this candidate writes over `current`: client-go keeps acquireTime and transitions on a renewal. */
  #desired(current: V1Lease, now: number): V1Lease {
    const spec = current.spec ?? {};
    const ours = spec.holderIdentity === this.#options.identity;
    return {
      ...current,
      spec: {
        ...spec,
        holderIdentity: this.#options.identity,
        leaseDurationSeconds: Math.ceil(this.#options.leaseDurationMs / 1000),
        acquireTime: ours && spec.acquireTime ? microTime(new Date(spec.acquireTime).getTime()) : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
  }

  #observe(lease: V1Lease, now: number): void {
    const text = recordText(lease);
    if (text !== this.#observedText) {
      this.#observedText = text;
      this.#observedAt = now;
    }
    this.#lease = lease;
    const holder = lease.spec?.holderIdentity || undefined;
    if (holder !== this.#holder) {
      this.#holder = holder;
      this.#options.logger.info({ lease: this.#options.name, holder: holder ?? null }, "lease holder changed");
      this.#options.onNewLeader?.(holder);
    }
  }

  /** `started`: performance.now() when the attempt began; `wallStarted`: the same moment on the wall clock. */
  #renewed(lease: V1Lease, started: number, wallStarted: number): void {
    this.#observe(lease, started);
    if (this.#stopping.signal.aborted) return;
    this.#lastRenewAt = started;
    this.#lastRenewWallAt = wallStarted;
    this.#decided = true;
    clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = setTimeout(() => this.isLeader(), this.#options.renewDeadlineMs - (performance.now() - started));
    if (!this.#leading) {
      this.#leading = true;
      this.#options.logger.info(
        { lease: this.#options.name, identity: this.#options.identity, acquireTime: lease.spec?.acquireTime ? new Date(lease.spec.acquireTime).toISOString() : null, leaseTransitions: lease.spec?.leaseTransitions ?? 0 },
        "became leader",
      );
      this.#options.onStartedLeading?.();
    }
  }

  #stopLeading(reason: "renew-deadline" | "lost" | "released"): void {
    if (!this.#leading) return;
    this.#leading = false;
    clearTimeout(this.#deadlineTimer);
    this.#options.logger[reason === "released" ? "info" : "warn"](
      { lease: this.#options.name, identity: this.#options.identity, reason, lastRenewAt: new Date(this.#lastRenewWallAt).toISOString() },
      "stopped leading",
    );
    this.#options.onStoppedLeading?.(reason);
  }

  async #release(): Promise<void> {
    const { name, namespace, identity } = this.#options;
    const timeoutMs = Math.max(1000, this.#options.retryPeriodMs);
    let lease = this.#lease;
    // Two tries: a renewal aborted by stop() may have landed and moved the resourceVersion on.
    for (let attempt = 0; attempt < 2 && lease; attempt++) {
      if (lease.spec?.holderIdentity !== identity) return;
      const now = Date.now();
      try {
        this.#lease = await this.#api.replaceNamespacedLease(
          { name, namespace, body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: microTime(now), renewTime: microTime(now) } } },
          callOptions(timeoutMs),
        );
        this.#holder = undefined;
        this.#options.logger.info({ lease: name }, "lease released");
        return;
      } catch (error) {
        if (kubeStatus(error) === 409 && attempt === 0) {
          lease = await this.#api.readNamespacedLease({ name, namespace }, callOptions(timeoutMs)).catch(() => undefined);
          continue;
        }
        this.#options.logger.warn({ lease: name, err: kubeErrorMessage(error) }, "could not release the lease; it expires on its own");
        return;
      }
    }
  }
}
