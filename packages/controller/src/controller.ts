// The controller: its parts built from the configuration and composed by a small manager. Informer caches in,
// deployment records out: the flush loop runs rounds when changes, retries and the resync come due; each round diffs
// the desired state against what the service acknowledged and sends what the write budget allows now.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";
import { DryRunAcknowledgedStore, InMemoryAcknowledgedStore, type AcknowledgedStore } from "./state/acknowledged-state.js";
import { BatchSender, type ClusterRecordsApi } from "./flush/batch-sender.js";
import { electionClockOf, systemClock, type Clock } from "./clock.js";
import { writeBudgetLimits, type ControllerConfig } from "./config/config.js";
import { ConfigMapAcknowledgedStore } from "./state/configmap-store.js";
import type { DesiredState, NameConflict } from "./mapping/desired-state.js";
import { DesiredStateReport } from "./mapping/desired-state-report.js";
import { desiredStateOptions, trackedDesiredState } from "./mapping/desired-state-source.js";
import { listingSlicer } from "./kube/listing-slicer.js";
import { DesiredStateTracker } from "./mapping/desired-state-tracker.js";
import { FlushLoop, flushLoopSettings } from "./flush/loop.js";
import type { FlushSummary } from "./flush/round.js";
import { ClusterInformers, WATCHED_KINDS } from "./kube/informers.js";
import { Leadership } from "./election/leadership.js";
import { LeaseElection } from "./election/lease-election.js";
import { Manager } from "./manager.js";
import { ControllerMetrics } from "./observability/metrics.js";
import { failingInformers, readiness } from "./observability/readiness.js";
import { controllerApi } from "./service/service-client.js";
import { SendGate } from "./flush/send-gate.js";
import { StatePersistence } from "./state/persistence.js";
import { damageReason } from "./state/recovery.js";
import { testStateLimits } from "./state/shards.js";
import { TestCrashHook } from "./test-crash-hook.js";
import { UnlinkedRecords } from "./mapping/unlinked-records.js";
import { CONTROLLER_VERSION } from "./version.js";
import { HOUR_MS, MINUTE_MS, resyncCallsPerHour, WriteBudget } from "./flush/write-budget.js";

export { StateNotLoadedError } from "./flush/loop.js";
export type { FlushSummary } from "./flush/round.js";
export { STATE_WRITE_FAILURES_UNREADY, TOKEN_REFUSED_FLUSHES_UNREADY } from "./observability/readiness.js";

/** What the controller needs besides its configuration. */
export interface ControllerOptions {
  config: ControllerConfig;
  kubeConfig: KubeConfig;
  /** The cluster endpoint; default a ShiplogClient built from the configuration (paced by the write budget). */
  api?: ClusterRecordsApi;
  /** Default: a ConfigMap store when `stateConfigMap` is configured, else in memory. */
  store?: AcknowledgedStore;
  logger?: Logger;
  metrics?: ControllerMetrics;
  /** The clock of the flush loop, the write budget and the client's waits; default the system clock. */
  clock?: Clock;
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

/** Keeps the service's deployment records equal to what the cluster runs. */
export class Controller {
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
  /** This replica's identity in the Lease and in the state it writes. */
  readonly identity: string;
  /** The write budget every cluster call waits for (calls of the last minute and hour). */
  readonly budget: WriteBudget;
  readonly #config: ControllerConfig;
  readonly #informers: ClusterInformers;
  readonly #tracker: DesiredStateTracker;
  readonly #report: DesiredStateReport;
  readonly #persistence: StatePersistence;
  readonly #leadership: Leadership;
  readonly #loop: FlushLoop;
  readonly #manager: Manager;
  readonly #abort = new AbortController();
  #started = false;
  #stopping = false;
  #stopOptions: { flush?: boolean; timeoutMs?: number } = {};
  /** Folds listed pods into the desired state in slices while the pods list. */
  readonly #slicer: () => void;

  constructor(options: ControllerOptions) {
    const config = options.config;
    const clock = options.clock ?? systemClock;
    this.#config = config;
    this.logger = options.logger ?? pino({ level: config.logLevel });
    this.metrics = options.metrics ?? new ControllerMetrics();
    this.identity = config.podName ?? `${hostname()}_${randomBytes(4).toString("hex")}`;
    const logger = this.logger;
    const metrics = this.metrics;
    // Where the Lease and the state live: the pod's namespace, else the kubeconfig context's (in a pod, client-node
    // takes it from the service account), else "default".
    const namespace =
      config.podNamespace ?? options.kubeConfig.getContextObject(options.kubeConfig.getCurrentContext())?.namespace ?? "default";
    const crash = TestCrashHook.fromEnv();

    this.#leadership = new Leadership(
      {
        onStartedLeading: () => {
          metrics.leader.set(1);
          metrics.leaderTransitions.inc();
          this.#loop.startedLeading();
        },
        onStoppedLeading: (reason) => {
          metrics.leader.set(0);
          this.#loop.stoppedLeading();
          if (!this.#stopping) logger.warn({ reason, identity: this.identity }, "not the leader any more: posting stopped");
        },
      },
      config.leaseName
        ? (callbacks) =>
            new LeaseElection({
              kubeConfig: options.kubeConfig,
              namespace,
              name: config.leaseName!,
              identity: this.identity,
              leaseDurationMs: config.leaseDurationMs,
              renewDeadlineMs: config.renewDeadlineMs,
              retryPeriodMs: config.retryPeriodMs,
              logger,
              clock: electionClockOf(clock),
              ...callbacks,
            })
        : undefined,
    );
    const mayPost = (): boolean => this.#leadership.leading();

    const store =
      options.store ??
      (config.stateConfigMap
        ? new ConfigMapAcknowledgedStore({
            kubeConfig: options.kubeConfig,
            namespace,
            name: config.stateConfigMap,
            org: config.org,
            cluster: config.cluster,
            apiUrl: config.apiUrl,
            writer: this.identity,
            requestTimeoutMs: config.requestTimeoutMs,
            logger,
            mayWrite: mayPost,
            onWriteStep: (step) => crash?.reached(step),
            maxShards: config.stateMaxShards,
            limits: testStateLimits(process.env),
            readOnly: config.dryRun,
          })
        : new InMemoryAcknowledgedStore());
    const limits = writeBudgetLimits(config);
    this.budget = new WriteBudget(limits);
    // A dry run reads the persisted state but acknowledges in memory only, and never writes.
    const retry = { retryMinDelayMs: config.retryMinDelayMs, retryMaxDelayMs: config.retryMaxDelayMs };
    this.#persistence = new StatePersistence({
      store: config.dryRun ? new DryRunAcknowledgedStore(store) : store,
      clock,
      logger,
      metrics,
      budget: this.budget,
      ...retry,
    });

    metrics.watchWriteBudget(limits, (window) => this.budget.used(clock.now(), window === "minute" ? MINUTE_MS : HOUR_MS));
    const userAgent = `shiplog-controller/${CONTROLLER_VERSION} (${this.identity})`;
    const api = options.api ?? controllerApi({ config, userAgent, logger, metrics, mayPost, clock, budget: this.budget });
    const sender = new BatchSender({
      api,
      org: config.org,
      cluster: config.cluster,
      batchSize: config.batchSize,
      // Serialized: calls one after another, each checking the gate a refusal of the one before may have closed.
      concurrency: config.serializeWrites ? 1 : config.concurrency,
      dryRun: config.dryRun,
      logger,
      mayPost,
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

    this.#informers = new ClusterInformers({
      kubeConfig: options.kubeConfig,
      namespaces: config.namespaces,
      ...(config.labelSelector ? { labelSelector: config.labelSelector } : {}),
      watchTimeoutSeconds: config.watchTimeoutSeconds,
      watchIdleTimeoutMs: config.watchIdleTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      restartMinDelayMs: config.retryMinDelayMs,
      restartMaxDelayMs: config.retryMaxDelayMs,
      logger,
      onChange: (kind, namespace, name, reachesDependents) => {
        this.#tracker.objectChanged(kind, namespace, name, reachesDependents);
        this.#loop.notifyChange();
        this.#slicer();
      },
      onRestart: (kind, reason) => metrics.watchRestarts.inc({ kind, reason }),
      // The repository a namespace names (mapping/repository-rules.ts): a change recomputes that namespace's workloads.
      onNamespaceChange: (namespace) => {
        this.#tracker.namespaceChanged(namespace);
        this.#loop.notifyChange();
      },
    });
    const informers = this.#informers;
    this.#tracker = new DesiredStateTracker(
      informers,
      desiredStateOptions(config, (namespace) => informers.namespaceRepository(namespace)),
    );
    this.#slicer = listingSlicer(this.#tracker, () => !this.#stopping && !this.#informers.synced, logger);
    this.#report = new DesiredStateReport(logger, metrics);
    this.#loop = new FlushLoop({
      clock,
      logger,
      metrics,
      source: trackedDesiredState(this.#tracker),
      report: this.#report,
      persistence: this.#persistence,
      sender,
      budget: this.budget,
      crash,
      unlinked: new UnlinkedRecords(logger, metrics, {
        org: config.org,
        imageRepositories: config.imageRepositories,
        registryHost: config.registryHost,
      }),
      settings: flushLoopSettings(config),
      reconciler: {
        batchSize: config.batchSize,
        retryMaxDelayMs: config.retryMaxDelayMs,
        resyncCallsPerHour: resyncCallsPerHour(limits, config.resyncBudgetShare),
      },
      leading: mayPost,
      leadershipSignal: () => this.#leadership.signal,
      synced: () => this.#informers.synced,
      ownersSynced: () => this.#informers.ownersSynced,
      onTick: () => {
        const status = this.#informers.status();
        for (const kind of WATCHED_KINDS) {
          const ofKind = status.filter((s) => s.kind === kind);
          metrics.informerSynced.set({ kind }, ofKind.every((s) => s.synced) ? 1 : 0);
          metrics.informerFailures.set({ kind }, Math.max(0, ...ofKind.map((s) => s.failures)));
        }
        metrics.leader.set(mayPost() ? 1 : 0);
      },
    });

    // Started in this order, stopped in reverse: the loop sends its last round and writes the state before the
    // informers stop, and the Lease is released last.
    this.#manager = new Manager(logger)
      .add({ name: "leadership", start: () => this.#leadership.start(), stop: () => this.#leadership.stop({ release: true }) })
      .add({
        name: "informers",
        start: () => {
          this.#informers.start();
          // The loop may post once the workloads are listed, and decommission once the pods are too.
          void this.#informers.waitForOwners().then(() => this.#loop.cachesSynced());
          void this.#informers.waitForSync().then(() => {
            this.#desiredStateAtSync();
            this.#loop.cachesSynced();
          });
        },
        stop: () => this.#informers.stop(),
      })
      .add({
        name: "flush loop",
        start: () => this.#loop.start(),
        stop: () => this.#loop.stop({ ...this.#stopOptions, timeoutMs: this.#stopOptions.timeoutMs ?? config.shutdownTimeoutMs }),
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
  }

  /**
   * Starts the leader election (or leads at once without one), the informers (every replica keeps its caches warm)
   * and the flush loop; resolves once the caches have synced. Acknowledged state is loaded by the leader before its
   * first diff, so what was deleted while no controller ran is decommissioned.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#manager.start();
    await Promise.race([this.#informers.waitForSync(), new Promise((resolve) => this.#abort.signal.addEventListener("abort", resolve))]);
    const config = this.#config;
    this.logger.info(
      {
        org: config.org,
        cluster: config.cluster,
        namespaces: config.namespaces,
        dryRun: config.dryRun,
        identity: this.identity,
        lease: config.leaseName ?? null,
        stateConfigMap: config.stateConfigMap ?? null,
        writeBudget: writeBudgetLimits(config),
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
    this.#stopOptions = options;
    this.#abort.abort();
    await this.#manager.stop();
  }

  /**
   * Every cache has listed: the desired state takes the last changes now, so it is ready whenever the budget lets
   * the first complete round go (which then only diffs it).
   */
  #desiredStateAtSync(): void {
    if (this.#stopping) return;
    const started = performance.now();
    try {
      const desired = this.#tracker.state();
      const ms = Math.round(performance.now() - started);
      this.logger.info({ desired: desired.records.size, held: desired.held.size, ms }, "caches synced: desired state computed");
    } catch (error) {
      // The first round builds afresh and reports a failure of its own.
      this.logger.error({ err: (error as Error).message }, "desired state failed once the caches had synced");
    }
  }

  /** Runs one round now (after any round in flight) and returns its summary. */
  flush(): Promise<FlushSummary> {
    return this.#loop.flush();
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
    const loop = this.#loop.status();
    const store = this.#persistence.store;
    return {
      started: this.#started,
      synced: this.#informers.synced,
      leading: this.#leadership.leading(),
      electing: this.#leadership.electing,
      stateLoaded: this.#persistence.loaded,
      flushed: loop.flushed,
      pending: loop.pending,
      acknowledged: store.all().size,
      conflicts: this.#report.conflicts,
      consecutiveFailures: loop.consecutiveFailures,
      lastTickAt: loop.lastTickAt,
      requests: loop.requests,
      recordsSent: loop.recordsSent,
      inFlight: store.inFlight().size,
      stateWriteFailures: this.#persistence.writeFailures,
    };
  }

  /** The desired state as the controller sees it now (for diagnostics and tests). */
  desiredState(): DesiredState {
    return this.#tracker.state();
  }

  /** Informer health, per kind and namespace. */
  informerStatus(): ReturnType<ClusterInformers["status"]> {
    return this.#informers.status();
  }

  #readinessSnapshot(): Parameters<typeof readiness>[0] {
    const loop = this.#loop.status();
    const informersFailing = failingInformers(this.#informers.status());
    return {
      synced: this.#informers.synced,
      ...(informersFailing ? { informersFailing } : {}),
      leading: this.#leadership.leading(),
      electing: this.#leadership.electing,
      electionDecided: this.#leadership.decided,
      readyWhenStandby: this.#config.readyWhenStandby,
      stateLoaded: this.#persistence.loaded,
      flushed: loop.flushed,
      stateWriteFailures: this.#persistence.writeFailures,
      stateWriteError: this.#persistence.writeError,
      ...(this.#persistence.damage ? { stateDamage: damageReason(this.#persistence.damage) } : {}),
      tokenRefusedFlushes: loop.tokenRefusedFlushes,
      tokenRefusedStatus: loop.tokenRefusedStatus,
      refused: loop.refused,
      acknowledged: this.#persistence.store.all().size,
    };
  }
}
