// buildController: the controller's parts made from the configuration, in dependency order, and handed to a
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
import { DesiredStateReport } from "./mapping/desired-state-report.js";
import { desiredStateOptions, trackedDesiredState } from "./mapping/desired-state-source.js";
import { listingSlicer } from "./kube/listing-slicer.js";
import { DesiredStateTracker } from "./mapping/desired-state-tracker.js";
import { FlushLoop, flushLoopSettings } from "./flush/loop.js";
import type { RoundProbe } from "./flush/round.js";
import { ClusterInformers, WATCHED_KINDS } from "./kube/informers.js";
import { Leadership } from "./election/leadership.js";
import { LeaseElection } from "./election/lease-election.js";
import { Manager } from "./manager.js";
import { ControllerMetrics } from "./observability/metrics.js";
import { controllerApi } from "./service/service-client.js";
import { SendGate } from "./flush/send-gate.js";
import { StatePersistence } from "./state/persistence.js";
import { ConflictingWriters } from "./state/conflicting-writers.js";
import type { StateLimits } from "./state/shards.js";
import { UnlinkedRecords } from "./mapping/unlinked-records.js";
import { CONTROLLER_VERSION } from "./version.js";
import { HOUR_MS, MINUTE_MS, WriteBudget, writeBudgetParticipant } from "./flush/write-budget.js";
import { Controller } from "./controller.js";

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
    clock,
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
