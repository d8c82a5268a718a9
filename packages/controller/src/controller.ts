// The controller as it runs: the parts buildController (build-controller.ts) made, started and stopped by the
// manager, and what it tells of itself (status, readiness, the desired state) to the health server and to tests.
import type { Logger } from "pino";
import type { ControllerConfig } from "./config/config.js";
import type { DesiredState, NameConflict } from "./mapping/desired-state.js";
import type { DesiredStateReport } from "./mapping/desired-state-report.js";
import type { DesiredStateTracker } from "./mapping/desired-state-tracker.js";
import type { FlushLoop } from "./flush/loop.js";
import type { FlushSummary } from "./flush/round.js";
import type { ClusterInformers } from "./kube/informers.js";
import type { Leadership } from "./election/leadership.js";
import type { Manager } from "./manager.js";
import type { ControllerMetrics } from "./observability/metrics.js";
import { failingInformers, readiness, type ReadinessSnapshot } from "./observability/readiness.js";
import type { StatePersistence } from "./state/persistence.js";
import { damageReason } from "./state/recovery.js";
import type { ConflictingWriters } from "./state/conflicting-writers.js";
import type { WriteBudget } from "./flush/write-budget.js";

export { StateNotLoadedError } from "./flush/loop.js";
export type { FlushSummary } from "./flush/round.js";
export { STATE_WRITE_FAILURES_UNREADY, TOKEN_REFUSED_FLUSHES_UNREADY } from "./observability/readiness.js";

/** A snapshot of the controller's state, for health checks and tests. */
export interface ControllerStatus {
  started: boolean;
  synced: boolean;
  /** This replica may post: it holds the lease, or no election is configured. */
  leading: boolean;
  /** Leader election is configured. */
  electing: boolean;
  /** Acknowledged state has been loaded since this replica last became the leader. */
  stateLoaded: boolean;
  /** At least one round has run since this replica became the leader. */
  flushed: boolean;
  /** Entries waiting to be sent (failed, or held back by the write budget). */
  pending: number;
  acknowledged: number;
  conflicts: NameConflict[];
  consecutiveFailures: number;
  lastTickAt: number;
  requests: number;
  recordsSent: number;
  /** Entries of the write-ahead set: sent (or about to be) without an answer yet. */
  inFlight: number;
  /** Consecutive failed state writes. */
  stateWriteFailures: number;
}

/** The parts buildController makes, as the Controller holds them. */
export interface ControllerParts {
  config: ControllerConfig;
  logger: Logger;
  metrics: ControllerMetrics;
  identity: string;
  budget: WriteBudget;
  informers: ClusterInformers;
  tracker: DesiredStateTracker;
  report: DesiredStateReport;
  persistence: StatePersistence;
  /** Absent without a state ConfigMap. */
  writers: ConflictingWriters | undefined;
  leadership: Leadership;
  loop: FlushLoop;
  manager: Manager;
}

/** Keeps the service's deployment records equal to what the cluster runs (made by buildController). */
export class Controller {
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
  /** This replica's identity in the Lease and in the state it writes. */
  readonly identity: string;
  /** The write budget every cluster call waits for (calls of the last minute and hour). */
  readonly budget: WriteBudget;
  readonly #p: ControllerParts;
  readonly #abort = new AbortController();
  #started = false;
  #stopping = false;

  /** Use buildController. */
  constructor(parts: ControllerParts) {
    this.#p = parts;
    this.metrics = parts.metrics;
    this.logger = parts.logger;
    this.identity = parts.identity;
    this.budget = parts.budget;
  }

  /**
   * Starts the manager's groups: the informers (every replica keeps its caches warm), the flush loop, then the
   * leader election (or leads at once without one), which starts the leader-only rounds; resolves once the caches
   * have synced. Acknowledged state is loaded by the leader before its
   * first diff, so what was deleted while no controller ran is decommissioned.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#p.manager.start();
    await Promise.race([this.#p.informers.waitForSync(), new Promise((resolve) => this.#abort.signal.addEventListener("abort", resolve))]);
    const config = this.#p.config;
    this.logger.info(
      {
        org: config.org,
        cluster: config.cluster,
        namespaces: config.namespaces,
        dryRun: config.dryRun,
        identity: this.identity,
        lease: config.leaseName ?? null,
        stateConfigMap: config.stateConfigMap ?? null,
        writeBudget: this.budget.limits,
      },
      "controller started",
    );
  }

  /**
   * Stops the parts in reverse order. With `flush` (SIGTERM), a leader first sends what is pending (bounded by
   * timeoutMs) and writes its state, then releases the lease so a standby takes over at once.
   */
  async stop(options: { flush?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#abort.abort();
    await this.#p.manager.stop(options);
  }

  /** Runs one round now (after any round in flight) and returns its summary. */
  flush(): Promise<FlushSummary> {
    return this.#p.loop.flush();
  }

  /** Ready: see observability/readiness.ts. */
  get ready(): boolean {
    return readiness(this.#readinessSnapshot()).ready;
  }

  /** Why the controller is not ready, for /readyz (undefined when it is). */
  notReadyReason(): string | undefined {
    const r = readiness(this.#readinessSnapshot());
    return r.ready ? undefined : r.reason;
  }

  status(): ControllerStatus {
    const loop = this.#p.loop.status();
    const store = this.#p.persistence.store;
    return {
      started: this.#started,
      synced: this.#p.informers.synced,
      leading: this.#p.leadership.leading(),
      electing: this.#p.leadership.electing,
      stateLoaded: this.#p.persistence.loaded,
      flushed: loop.flushed,
      pending: loop.pending,
      acknowledged: store.all().size,
      conflicts: this.#p.report.conflicts,
      consecutiveFailures: loop.consecutiveFailures,
      lastTickAt: loop.lastTickAt,
      requests: loop.requests,
      recordsSent: loop.recordsSent,
      inFlight: store.inFlight().size,
      stateWriteFailures: this.#p.persistence.writeFailures,
    };
  }

  /** The desired state as the controller sees it now (for diagnostics and tests). */
  desiredState(): DesiredState {
    return this.#p.tracker.state();
  }

  /** Informer health, per kind and namespace. */
  informerStatus(): ReturnType<ClusterInformers["status"]> {
    return this.#p.informers.status();
  }

  #readinessSnapshot(): ReadinessSnapshot {
    const loop = this.#p.loop.status();
    const informersFailing = failingInformers(this.#p.informers.status());
    const conflictingWriter = this.#p.writers?.reason();
    return {
      synced: this.#p.informers.synced,
      ...(informersFailing ? { informersFailing } : {}),
      ...(conflictingWriter ? { conflictingWriter } : {}),
      leading: this.#p.leadership.leading(),
      electing: this.#p.leadership.electing,
      electionDecided: this.#p.leadership.decided,
      readyWhenStandby: this.#p.config.readyWhenStandby,
      stateLoaded: this.#p.persistence.loaded,
      flushed: loop.flushed,
      stateWriteFailures: this.#p.persistence.writeFailures,
      stateWriteError: this.#p.persistence.writeError,
      ...(this.#p.persistence.damage ? { stateDamage: damageReason(this.#p.persistence.damage) } : {}),
      tokenRefusedFlushes: loop.tokenRefusedFlushes,
      tokenRefusedStatus: loop.tokenRefusedStatus,
      refused: loop.refused,
      acknowledged: this.#p.persistence.store.all().size,
    };
  }
}
