// The controller: buildController makes its parts from the configuration, in dependency order, and hands them to a
// manager in controller-runtime's shape (manager.ts): the informer caches, the flush loop's heartbeat, and the rounds
// that only the leader runs, which the leadership starts and stops. Informer caches in, deployment records out: the
// flush loop runs rounds when changes, retries and the resync come due; each round diffs the desired state against
// what the service acknowledged and sends what the write budget allows now. One leadership fence is passed to every
// part whose writes only the leader may make (the state store, the service client, the sender, the loop).
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";
import { DryRunAcknowledgedStore, InMemoryAcknowledgedStore, type AcknowledgedStore } from "./state/acknowledged-state.js";
import { BatchSender, type ClusterRecordsApi } from "./flush/batch-sender.js";
import { systemClock, type Clock } from "./clock.js";
import type { ControllerConfig } from "./config/config.js";
import { ConfigMapAcknowledgedStore, type StateWriteStep } from "./state/configmap-store.js";
import type { DesiredState, NameConflict } from "./mapping/desired-state.js";
import { DesiredStateReport } from "./mapping/desired-state-report.js";
import { desiredStateOptions, trackedDesiredState } from "./mapping/desired-state-source.js";
import { listingSlicer } from "./kube/listing-slicer.js";
import { DesiredStateTracker } from "./mapping/desired-state-tracker.js";
import { FlushLoop, flushLoopSettings } from "./flush/loop.js";
import type { FlushSummary, RoundProbe } from "./flush/round.js";
import { ClusterInformers, WATCHED_KINDS } from "./kube/informers.js";
import { Leadership } from "./election/leadership.js";
import { LeaseElection } from "./election/lease-election.js";
import { Manager } from "./manager.js";
import { ControllerMetrics } from "./observability/metrics.js";
import { failingInformers, readiness, type ReadinessSnapshot } from "./observability/readiness.js";
import { controllerApi } from "./service/service-client.js";
import { SendGate } from "./flush/send-gate.js";
import { StatePersistence } from "./state/persistence.js";
import { damageReason } from "./state/recovery.js";
import { ConflictingWriters } from "./state/conflicting-writers.js";
import type { StateLimits } from "./state/shards.js";
import { UnlinkedRecords } from "./mapping/unlinked-records.js";
import { CONTROLLER_VERSION } from "./version.js";
import { HOUR_MS, MINUTE_MS, WriteBudget, writeBudgetParticipant } from "./flush/write-budget.js";

export { StateNotLoadedError } from "./flush/loop.js";
export type { FlushSummary } from "./flush/round.js";
export { STATE_WRITE_FAILURES_UNREADY, TOKEN_REFUSED_FLUSHES_UNREADY } from "./observability/readiness.js";

/** What the controller needs besides its configuration. */
export interface ControllerOptions {
  kubeConfig: KubeConfig;
  /** The cluster endpoint; default a ShiplogClient built from the configuration (paced by the write budget). */
  api?: ClusterRecordsApi;
  /** Default: a ConfigMap store when `stateConfigMap` is configured, else in memory. */
  store?: AcknowledgedStore;
  logger?: Logger;
  metrics?: ControllerMetrics;
  /** The clock of the flush loop, the write budget, the election and the client's waits; default the system clock. */
  clock?: Clock;
  /** Watches rounds and state writes at their points (the crash matrix's hook kills the process at one). */
  probes?: { round?: RoundProbe; stateWrite?: (step: StateWriteStep) => void };
  /** Smaller limits of the state's layout, so a few records compact into several shards (tests). */
  stateLimits?: Partial<Omit<StateLimits, "maxShards">>;
}

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
interface ControllerParts {
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

/**
 * Makes the controller's parts from the configuration, each from those it needs (no part refers to one made after
 * it), and registers them with the manager by group. Nothing starts until Controller#start.
 */
export function buildController(config: ControllerConfig, options: ControllerOptions): Controller {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const metrics = options.metrics ?? new ControllerMetrics();
  const identity = config.podName ?? `${hostname()}_${randomBytes(4).toString("hex")}`;
  const { kubeConfig } = options;
  // Where the Lease and the state live: the pod's namespace, else the kubeconfig context's (in a pod, client-node
  // takes it from the service account), else "default".
  const namespace = config.podNamespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? "default";
  const limits = config.writeBudget;
  const budget = new WriteBudget(limits);

  const leaseName = config.leaseName;
  const leadership = new Leadership(
    leaseName
      ? (callbacks) =>
          new LeaseElection({
            kubeConfig,
            namespace,
            name: leaseName,
            identity,
            leaseDurationMs: config.leaseDurationMs,
            renewDeadlineMs: config.renewDeadlineMs,
            retryPeriodMs: config.retryPeriodMs,
            logger,
            clock,
            ...callbacks,
          })
      : undefined,
  );

  const writers = config.stateConfigMap
    ? new ConflictingWriters({ clock, logger, metrics, self: identity, configMap: `${namespace}/${config.stateConfigMap}` })
    : undefined;
  const store =
    options.store ??
    (config.stateConfigMap
      ? new ConfigMapAcknowledgedStore({
          kubeConfig,
          namespace,
          name: config.stateConfigMap,
          org: config.org,
          cluster: config.cluster,
          apiUrl: config.apiUrl,
          writer: identity,
          requestTimeoutMs: config.requestTimeoutMs,
          logger,
          fence: leadership,
          onConflict: (writer) => writers?.conflicted(writer),
          ...(options.probes?.stateWrite ? { onWriteStep: options.probes.stateWrite } : {}),
          maxShards: config.stateMaxShards,
          ...(options.stateLimits ? { limits: options.stateLimits } : {}),
          readOnly: config.dryRun,
          clock,
        })
      : new InMemoryAcknowledgedStore());
  // A dry run reads the persisted state but acknowledges in memory only, and never writes.
  const persistence = new StatePersistence({
    store: config.dryRun ? new DryRunAcknowledgedStore(store) : store,
    clock,
    logger,
    metrics,
    participants: [writeBudgetParticipant(budget)],
    retryMinDelayMs: config.retryMinDelayMs,
    retryMaxDelayMs: config.retryMaxDelayMs,
  });
  metrics.watchWriteBudget(limits, (window) => budget.used(clock.now(), window === "minute" ? MINUTE_MS : HOUR_MS));

  const userAgent = `shiplog-controller/${CONTROLLER_VERSION} (${identity})`;
  const api = options.api ?? controllerApi({ config, userAgent, logger, metrics, fence: leadership, clock, budget });
  const sender = new BatchSender({
    api,
    org: config.org,
    cluster: config.cluster,
    batchSize: config.batchSize,
    // Serialized: calls one after another, each checking the gate a refusal of the one before may have closed.
    concurrency: config.serializeWrites ? 1 : config.concurrency,
    dryRun: config.dryRun,
    logger,
    fence: leadership,
    now: () => clock.now(),
    gate: new SendGate({ minDelayMs: config.retryMinDelayMs, maxDelayMs: config.retryMaxDelayMs }),
    onGateClosed: (reason) => metrics.senderGateWaits.inc({ reason }),
    onRequest: ({ ok, entries, refused, code, durationMs }) => {
      // An answered call whose every entry was refused achieved nothing: "refused", not "success".
      const result = !ok ? "failure" : refused !== undefined && refused === entries ? "refused" : "success";
      metrics.requests.inc({ result, code: code ?? "" });
      metrics.requestDuration.observe({ result }, durationMs / 1000);
    },
  });

  const informers = new ClusterInformers({
    kubeConfig,
    namespaces: config.namespaces,
    ...(config.labelSelector ? { labelSelector: config.labelSelector } : {}),
    watchTimeoutSeconds: config.watchTimeoutSeconds,
    watchIdleTimeoutMs: config.watchIdleTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    restartMinDelayMs: config.retryMinDelayMs,
    restartMaxDelayMs: config.retryMaxDelayMs,
    logger,
    clock,
    // The repository a namespace names (mapping/repository-rules.ts).
    namespaceRepositories: true,
  });
  const tracker = new DesiredStateTracker(
    informers,
    desiredStateOptions(config, (ns) => informers.namespaceRepository(ns)),
  );
  const report = new DesiredStateReport(logger, metrics);
  const loop = new FlushLoop({
    clock,
    logger,
    metrics,
    source: trackedDesiredState(tracker),
    report,
    persistence,
    sender,
    budget,
    ...(options.probes?.round ? { probe: options.probes.round } : {}),
    unlinked: new UnlinkedRecords(logger, metrics, {
      org: config.org,
      imageRepositories: config.imageRepositories,
      registryHost: config.registryHost,
    }),
    settings: flushLoopSettings(config),
    reconciler: { batchSize: config.batchSize, retryMaxDelayMs: config.retryMaxDelayMs, resyncCallsPerHour: config.resyncCallsPerHour },
    fence: leadership,
    synced: () => informers.synced,
    ownersSynced: () => informers.ownersSynced,
    onTick: () => {
      const status = informers.status();
      for (const kind of WATCHED_KINDS) {
        const ofKind = status.filter((s) => s.kind === kind);
        metrics.informerSynced.set({ kind }, ofKind.every((s) => s.synced) ? 1 : 0);
        metrics.informerFailures.set({ kind }, Math.max(0, ...ofKind.map((s) => s.failures)));
      }
      metrics.leader.set(leadership.leading() ? 1 : 0);
      writers?.current();
    },
  });

  let caching = false;
  // Folds listed pods into the desired state in slices while the pods list.
  const slicer = listingSlicer(tracker, () => caching && !informers.synced, logger);
  informers.addEventHandler({
    onChange: (kind, ns, name, reachesDependents) => {
      tracker.objectChanged(kind, ns, name, reachesDependents);
      loop.notifyChange();
      slicer();
    },
    onRestart: (kind, reason) => metrics.watchRestarts.inc({ kind, reason }),
    // A change of the repository a namespace names recomputes that namespace's workloads.
    onNamespaceChange: (ns) => {
      tracker.namespaceChanged(ns);
      loop.notifyChange();
    },
  });

  const manager = new Manager(logger, leadership)
    .add("caches", {
      name: "informers",
      start: () => {
        caching = true;
        informers.start();
        // The loop may post once the workloads are listed, and decommission once the pods are too.
        void informers.waitForOwners().then(() => loop.cachesSynced());
        void informers.waitForSync().then(() => {
          if (caching) desiredStateAtSync(tracker, logger);
          loop.cachesSynced();
        });
      },
      stop: () => {
        caching = false;
        return informers.stop();
      },
    })
    .add("always", {
      // Every replica's loop wakes (metrics, /healthz); it runs rounds only while the fence holds.
      name: "flush loop",
      start: () => loop.start(),
      stop: (context) => loop.stop({ timeoutMs: context.timeoutMs ?? config.shutdownTimeoutMs }),
    })
    .add("leader", {
      name: "leading",
      start: () => {
        metrics.leader.set(1);
        metrics.leaderTransitions.inc();
        loop.startedLeading();
      },
      stop: async (context) => {
        // On shutdown a leader sends what is pending (SIGTERM) and writes its state while it still holds the lease.
        if (context.shutdown) {
          await loop.stop({ ...(context.flush ? { flush: true } : {}), timeoutMs: context.timeoutMs ?? config.shutdownTimeoutMs });
        }
        metrics.leader.set(0);
        loop.stoppedLeading();
        if (!context.shutdown) logger.warn({ reason: context.reason, identity }, "not the leader any more: posting stopped");
      },
    });
  metrics.leader.set(0);
  if (!config.stateConfigMap && !options.store) {
    logger.warn(
      { setting: "--state-configmap / SHIPLOG_STATE_CONFIGMAP" },
      "no state ConfigMap: what the service acknowledged lives in memory only, so after a restart every record is sent again " +
        "and workloads deleted while the controller was down are never decommissioned",
    );
    if (config.leaseName) {
      logger.warn(
        "leader election without a state ConfigMap: a new leader starts from nothing, re-sends every record " +
          "and misses deletions made before it took over",
      );
    }
  }
  return new Controller({
    config,
    logger,
    metrics,
    identity,
    budget,
    informers,
    tracker,
    report,
    persistence,
    writers,
    leadership,
    loop,
    manager,
  });
}

/**
 * Every cache has listed: the desired state takes the last changes now, so it is ready whenever the budget lets the
 * first complete round go (which then only diffs it).
 */
function desiredStateAtSync(tracker: DesiredStateTracker, logger: Logger): void {
  const started = performance.now();
  try {
    const desired = tracker.state();
    const ms = Math.round(performance.now() - started);
    logger.info({ desired: desired.records.size, held: desired.held.size, ms }, "caches synced: desired state computed");
  } catch (error) {
    // The first round builds afresh and reports a failure of its own.
    logger.error({ err: (error as Error).message }, "desired state failed once the caches had synced");
  }
}
