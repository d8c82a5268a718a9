// The controller: informer caches in, deployment records out. Every flush interval it computes the desired
// records from the caches, diffs them against what the service has acknowledged, and sends only the difference.
// Failed sends stay pending and are retried with backoff; a periodic full resync resends everything desired.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type ApiVersion, ShiplogError } from "@shiplog/client";
import type { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";
import { DryRunAcknowledgedStore, InMemoryAcknowledgedStore, type AcknowledgedStore } from "./acknowledged-state.js";
import { backoffDelay } from "./backoff.js";
import { BatchSender, NotLeaderError, type ClusterRecordsApi } from "./batch-sender.js";
import type { ControllerConfig } from "./config.js";
import { ConfigMapAcknowledgedStore } from "./configmap-acknowledged-store.js";
import type { DesiredState, NameConflict } from "./desired-state.js";
import { DesiredStateTracker } from "./desired-state-tracker.js";
import { ClusterInformers, WATCHED_KINDS } from "./informers.js";
import { parseLabelSelector, type LabelSelector } from "./label-selector.js";
import { LeaseElection } from "./lease-election.js";
import { ControllerMetrics } from "./metrics.js";
import { controllerAuth, createServiceClient } from "./service-client.js";
import { FileTokenSource, StaticTokenSource } from "./token-source.js";
import { diffRecords, entryFingerprint } from "./record-diff.js";
import { testStateLimits } from "./state-shards.js";
import { TestCrashHook } from "./test-crash-hook.js";
import { SendGate } from "./send-gate.js";

export const CONTROLLER_VERSION = "0.1.0";

/** Consecutive flushes whose every call the service refused for the token (401/403) before /readyz fails. */
export const TOKEN_REFUSED_FLUSHES_UNREADY = 3;

/** Consecutive failed state writes (each retried with backoff) before /readyz fails. */
export const STATE_WRITE_FAILURES_UNREADY = 3;

/** What the controller needs besides its configuration. */
export interface ControllerOptions {
  config: ControllerConfig;
  kubeConfig: KubeConfig;
  /** The cluster endpoint; default a ShiplogClient built from the configuration. */
  api?: ClusterRecordsApi;
  /** Default: a ConfigMap store when `stateConfigMap` is configured, else in memory. */
  store?: AcknowledgedStore;
  logger?: Logger;
  metrics?: ControllerMetrics;
}

/** The outcome of one flush. */
export interface FlushSummary {
  desired: number;
  pending: number;
  requests: number;
  accepted: number;
  rejected: number;
  failed: number;
  conflicts: number;
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
  /** At least one flush has completed since the caches synced. */
  flushed: boolean;
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

/** A flush was asked for before the acknowledged state could be read: diffing against nothing would re-post all. */
export class StateNotLoadedError extends ShiplogError {
  constructor() {
    super("acknowledged_state_not_loaded", "the acknowledged state could not be loaded yet; nothing is sent until it is (see the logs)");
  }
}

/** Keeps the service's deployment records equal to what the cluster runs. */
export class Controller {
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
  /** This replica's identity in the Lease and in the state it writes. */
  readonly identity: string;
  readonly #config: ControllerConfig;
  readonly #store: AcknowledgedStore;
  readonly #informers: ClusterInformers;
  readonly #sender: BatchSender;
  readonly #election: LeaseElection | undefined;
  /** Entries the service refused on their merits: resent after a growing delay, or at once when they change. */
  readonly #rejected = new Map<string, { fingerprint: string; attempts: number; retryAt: number; retried?: boolean }>();
  readonly #loggedSkips = new Set<string>();
  /** The desired state, recomputed from the informers' change events for what they touch only. */
  readonly #tracker: DesiredStateTracker;
  /** The next diff looks at every key (nothing diffed yet, or the acknowledged state was loaded again). */
  #fullDiff = true;
  /** Keys sent in the last flush and not accepted: diffed again, whether or not their desired record changes. */
  #unsettled = new Set<string>();
  /** The acknowledged map the last diff read: another one (the store read its ConfigMaps again) means a full diff. */
  #diffedAgainst: ReadonlyMap<string, unknown> | undefined;
  /** The label selector (validated by loadConfig), applied to workload templates as the API server applies it to pods. */
  readonly #selector: LabelSelector | undefined;
  #conflicts: NameConflict[] = [];
  #dirty = true;
  #resyncDue = false;
  #pending = 0;
  #consecutiveFailures = 0;
  #notBefore = 0;
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #resyncTimer: NodeJS.Timeout | undefined;
  #inFlight: Promise<FlushSummary> | undefined;
  #started = false;
  #stopped = false;
  #flushed = false;
  #stateLoaded = false;
  #stateFailures = 0;
  #lastTickAt = 0;
  #requests = 0;
  #recordsSent = 0;
  /** Consecutive flushes in which the service refused every call for the token; reset by any successful call. */
  #tokenRefusedFlushes = 0;
  #tokenRefusedStatus = 0;
  /** The state holds changes a failed write did not persist: written again (with backoff) before anything is sent. */
  #stateDirty = false;
  #stateWriteFailures = 0;
  #stateWriteError = "";
  /** TEST ONLY (SHIPLOG_TEST_CRASH_AT): kill -9 at a chosen point of a flush. */
  readonly #crash = TestCrashHook.fromEnv();
  readonly #abort = new AbortController();
  /** Aborted the moment this replica stops leading: in-flight calls of a deposed leader are cut off. */
  #leadership: AbortController | undefined;

  constructor(options: ControllerOptions) {
    const config = options.config;
    this.#config = config;
    if (config.labelSelector !== undefined) {
      const selector = parseLabelSelector(config.labelSelector);
      if (!selector.ok) throw new RangeError(`invalid label selector: ${selector.reason}`);
      this.#selector = selector.value;
    }
    this.logger = options.logger ?? pino({ level: config.logLevel });
    this.metrics = options.metrics ?? new ControllerMetrics();
    this.identity = config.podName ?? `${hostname()}_${randomBytes(4).toString("hex")}`;
    // Where the Lease and the state live: the pod's namespace, else the kubeconfig context's (in a pod, client-node
    // takes it from the service account), else "default".
    const namespace = config.podNamespace ?? options.kubeConfig.getContextObject(options.kubeConfig.getCurrentContext())?.namespace ?? "default";
    if (config.leaseName) {
      this.#election = new LeaseElection({
        kubeConfig: options.kubeConfig,
        namespace,
        name: config.leaseName,
        identity: this.identity,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
        logger: this.logger,
        onStartedLeading: () => this.#startedLeading(),
        onStoppedLeading: (reason) => this.#stoppedLeading(reason),
      });
    }
    const mayPost = (): boolean => this.#mayPost();
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
            logger: this.logger,
            mayWrite: mayPost,
            onWriteStep: (step) => this.#crash?.reached(step),
            maxShards: config.stateMaxShards,
            limits: testStateLimits(process.env),
          })
        : new InMemoryAcknowledgedStore());
    // A dry run reads the persisted state but acknowledges in memory only, and never writes.
    this.#store = config.dryRun ? new DryRunAcknowledgedStore(store) : store;
    const tokens = config.tokenFile ? new FileTokenSource(config.tokenFile, config.token, this.logger) : new StaticTokenSource(config.token);
    const api =
      options.api ??
      createServiceClient({
        baseUrl: config.apiUrl,
        // Asked on every attempt, so a rotated token (a Secret updated in place, an installation token renewed)
        // is used without a restart.
        auth: controllerAuth(config, tokens, this.logger, this.metrics),
        mayPost,
        logger: this.logger,
        serializeMutations: config.serializeWrites,
        apiVersion: config.apiVersion as ApiVersion,
        userAgent: `shiplog-controller/${CONTROLLER_VERSION} (${this.identity})`,
        timeoutMs: config.requestTimeoutMs,
        retry: { retries: 2, minDelayMs: config.retryMinDelayMs, maxDelayMs: config.retryMaxDelayMs },
        hooks: {
          onRetry: ({ reason }) => this.metrics.retries.inc({ reason }),
          onAuthRetry: ({ renewed }) => {
            if (renewed) this.logger.info("the service refused the token (401) and the token source holds another: retrying with it");
          },
          onRateLimited: ({ method, route, status, waitMs, secondary }) =>
            this.logger.warn({ method, route, status, waitMs, secondary }, "rate limited by the service: every call waits until the limit passes"),
        },
      }).artifacts;
    this.#sender = new BatchSender({
      api,
      org: config.org,
      cluster: config.cluster,
      batchSize: config.batchSize,
      concurrency: config.concurrency,
      dryRun: config.dryRun,
      logger: this.logger,
      mayPost,
      gate: new SendGate({ minDelayMs: config.retryMinDelayMs, maxDelayMs: config.retryMaxDelayMs }),
      onGateClosed: (reason) => this.metrics.senderGateWaits.inc({ reason }),
      onRequest: ({ ok, code, durationMs }) => {
        this.metrics.requests.inc({ result: ok ? "success" : "failure", code: code ?? "" });
        this.metrics.requestDuration.observe({ result: ok ? "success" : "failure" }, durationMs / 1000);
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
      logger: this.logger,
      onChange: (kind, namespace, name) => {
        this.#tracker.objectChanged(kind, namespace, name);
        this.#dirty = true;
      },
      onRestart: (kind, reason) => this.metrics.watchRestarts.inc({ kind, reason }),
    });
    const include = new Set(config.namespaces);
    const exclude = new Set(config.excludeNamespaces);
    this.#tracker = new DesiredStateTracker(this.#informers, {
      cluster: config.cluster,
      logicalEnvironment: config.logicalEnvironment,
      ...(config.physicalEnvironment !== undefined ? { physicalEnvironment: config.physicalEnvironment } : {}),
      deploymentNameTemplate: config.deploymentNameTemplate,
      deploymentTrackerAnnotations: config.deploymentTrackerAnnotations,
      namespaceAllowed: (ns) => (include.size === 0 || include.has(ns)) && !exclude.has(ns),
      ...(this.#selector ? { podLabelsMatch: this.#selector.matches } : {}),
    });
    this.metrics.leader.set(0);
    if (!config.stateConfigMap && !options.store) {
      this.logger.warn(
        { setting: "--state-configmap / SHIPLOG_STATE_CONFIGMAP" },
        "no state ConfigMap: what the service acknowledged lives in memory only, so after a restart every record is sent again and workloads deleted while the controller was down are never decommissioned",
      );
      if (config.leaseName) {
        this.logger.warn("leader election without a state ConfigMap: a new leader starts from nothing, re-sends every record and misses deletions made before it took over");
      }
    }
  }

  /**
   * Starts the informers (every replica keeps its caches warm), the leader election when configured, and the
   * flush loop; resolves once the caches have synced. Acknowledged state is loaded by the leader before its first
   * diff, so what was deleted while no controller ran is decommissioned.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#informers.start();
    this.#schedule();
    if (this.#election) this.#election.start();
    else this.#startedLeading();
    if (this.#config.resyncIntervalMs > 0) {
      this.#resyncTimer = setInterval(() => {
        this.#resyncDue = true;
        this.#rejected.clear();
      }, this.#config.resyncIntervalMs);
      this.#resyncTimer.unref();
    }
    await Promise.race([this.#informers.waitForSync(), new Promise((resolve) => this.#abort.signal.addEventListener("abort", resolve))]);
    this.logger.info(
      {
        org: this.#config.org,
        cluster: this.#config.cluster,
        namespaces: this.#config.namespaces,
        dryRun: this.#config.dryRun,
        identity: this.identity,
        lease: this.#config.leaseName ?? null,
        stateConfigMap: this.#config.stateConfigMap ?? null,
      },
      "controller started",
    );
  }

  /**
   * Stops the loop and the informers. With `flush` (SIGTERM), a leader first sends what is pending (bounded by
   * timeoutMs) and writes its state, then releases the lease so a standby takes over at once.
   */
  async stop(options: { flush?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#resyncTimer);
    const timeoutMs = options.timeoutMs ?? this.#config.shutdownTimeoutMs;
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    if (options.flush && this.#informers.synced && this.#mayPost()) {
      const last = (async () => {
        await this.#inFlight?.catch(() => undefined);
        if (!this.#stateLoaded) await this.#loadState();
        if (this.#stateLoaded) await this.#runFlush();
      })();
      await Promise.race([last.catch((error: unknown) => this.logger.warn({ err: (error as Error).message }, "last flush failed")), deadline]);
    }
    this.#abort.abort();
    await this.#inFlight?.catch(() => undefined);
    await this.#informers.stop();
    if (this.#mayPost()) await Promise.race([this.#persistState(), deadline]);
    await this.#election?.stop({ release: true });
  }

  /** Runs one flush now (after any flush in flight) and returns its summary. */
  async flush(): Promise<FlushSummary> {
    await this.#inFlight?.catch(() => undefined);
    if (!this.#stateLoaded && this.#mayPost()) await this.#loadState();
    if (!this.#stateLoaded && this.#mayPost()) throw new StateNotLoadedError();
    return this.#runFlush();
  }

  /**
   * Ready: caches synced, and either leading with a first flush done, or standing by (someone else holds the Lease)
   * when standbys count as ready (`readyWhenStandby`, the default: a standby is a healthy replica, and a rollout must
   * be able to proceed).
   */
  get ready(): boolean {
    if (!this.#informers.synced) return false;
    if (this.#mayPost()) return this.#flushed && !this.#tokenRefused() && !this.#stateUnwritable();
    // Not a standby until an election round has shown someone else holds the Lease.
    if (this.#election && !this.#election.status().decided) return false;
    return this.#config.readyWhenStandby;
  }

  /** Why the controller is not ready, for /readyz (undefined when it is). */
  notReadyReason(): string | undefined {
    if (this.ready) return undefined;
    if (!this.#informers.synced) return "informer caches not synced";
    if (this.#mayPost() && this.#stateUnwritable()) {
      return `writing the state ConfigMap failed ${this.#stateWriteFailures} times in a row (${this.#stateWriteError}); nothing is sent until it is written`;
    }
    if (this.#mayPost() && this.#tokenRefused()) {
      return `the service refused the API token (${this.#tokenRefusedStatus}) on every call of the last ${this.#tokenRefusedFlushes} flushes`;
    }
    if (this.#mayPost()) return this.#stateLoaded ? "first flush pending" : "acknowledged state not loaded";
    if (this.#election && !this.#election.status().decided) return "leader election pending";
    return "standing by (not the leader)";
  }

  status(): ControllerStatus {
    return {
      started: this.#started,
      synced: this.#informers.synced,
      leading: this.#mayPost(),
      electing: this.#election !== undefined,
      stateLoaded: this.#stateLoaded,
      flushed: this.#flushed,
      pending: this.#pending,
      acknowledged: this.#store.all().size,
      conflicts: this.#conflicts,
      consecutiveFailures: this.#consecutiveFailures,
      lastTickAt: this.#lastTickAt,
      requests: this.#requests,
      recordsSent: this.#recordsSent,
      inFlight: this.#store.inFlight().size,
      stateWriteFailures: this.#stateWriteFailures,
    };
  }

  /** The desired state as the controller sees it now (for diagnostics and tests). */
  desiredState(): DesiredState {
    return this.#computeDesired();
  }

  /** Informer health, per kind and namespace. */
  informerStatus(): ReturnType<ClusterInformers["status"]> {
    return this.#informers.status();
  }

  /** A refused entry's retry time has come. */
  #rejectedDue(): boolean {
    const now = Date.now();
    for (const r of this.#rejected.values()) if (r.retryAt <= now && !r.retried) return true;
    return false;
  }

  #stateUnwritable(): boolean {
    return this.#stateWriteFailures >= STATE_WRITE_FAILURES_UNREADY;
  }

  #tokenRefused(): boolean {
    return this.#tokenRefusedFlushes >= TOKEN_REFUSED_FLUSHES_UNREADY;
  }

  /** Whether this replica may post now: no election configured, or it holds the lease (checked on the clock). */
  #mayPost(): boolean {
    return this.#election ? this.#election.isLeader() : this.#leadership !== undefined;
  }

  #startedLeading(): void {
    this.#leadership = new AbortController();
    // The previous leader may have written since this replica last read: read again before the first diff.
    this.#stateLoaded = false;
    this.#stateFailures = 0;
    this.#stateWriteFailures = 0;
    this.#sender.gate.reset();
    this.#dirty = true;
    this.#consecutiveFailures = 0;
    this.#notBefore = 0;
    this.metrics.leader.set(1);
    this.metrics.leaderTransitions.inc();
    // Take over now rather than at the next tick (one timer chain: the pending tick is moved, never added to).
    if (this.#timer !== undefined && !this.#ticking && !this.#stopped) {
      clearTimeout(this.#timer);
      this.#schedule(0);
    }
  }

  #stoppedLeading(reason: string): void {
    this.#leadership?.abort(new NotLeaderError());
    this.#leadership = undefined;
    this.#stateLoaded = false;
    this.#pending = 0;
    this.metrics.leader.set(0);
    this.metrics.pendingRecords.set(0);
    if (!this.#stopped) this.logger.warn({ reason, identity: this.identity }, "not the leader any more: posting stopped");
  }

  async #loadState(): Promise<void> {
    try {
      await this.#store.load();
      this.#stateLoaded = true;
      this.#fullDiff = true;
      this.#stateFailures = 0;
      this.metrics.acknowledgedRecords.set(this.#store.all().size);
    } catch (error) {
      const delay = backoffDelay(this.#stateFailures, this.#config.retryMinDelayMs, this.#config.retryMaxDelayMs);
      this.#stateFailures += 1;
      this.#notBefore = Date.now() + delay;
      this.logger.warn({ err: (error as Error).message, retryInMs: delay }, "loading acknowledged state failed; nothing is sent until it loads");
    }
  }

  /**
   * Writes the state (acknowledged and in-flight sets). A failure is counted, retried with backoff by the flush loop
   * (nothing is sent meanwhile: an unwritten intent must not be acted on), and after STATE_WRITE_FAILURES_UNREADY in a
   * row makes /readyz fail with the reason.
   */
  async #persistState(): Promise<boolean> {
    try {
      await this.#store.persist();
      const info = (this.#store as { lastWrite?: { bytes: number } }).lastWrite;
      if (info) this.metrics.stateBytes.set(info.bytes);
      this.metrics.stateWrites.inc({ result: "success" });
      this.metrics.inFlightRecords.set(this.#store.inFlight().size);
      if (this.#stateWriteFailures > 0) this.logger.info({ failures: this.#stateWriteFailures }, "acknowledged state written again");
      this.#stateDirty = false;
      this.#stateWriteFailures = 0;
      return true;
    } catch (error) {
      this.metrics.stateWrites.inc({ result: "failure" });
      const delay = backoffDelay(this.#stateWriteFailures, this.#config.retryMinDelayMs, this.#config.retryMaxDelayMs);
      this.#stateDirty = true;
      this.#stateWriteFailures += 1;
      this.#stateWriteError = (error as Error).message;
      this.#notBefore = Math.max(this.#notBefore, Date.now() + delay);
      this.logger.error(
        { err: this.#stateWriteError, code: (error as { code?: string }).code, failures: this.#stateWriteFailures, retryInMs: delay },
        "writing acknowledged state failed; retrying, and nothing is sent until it is written",
      );
      return false;
    }
  }

  #schedule(delayMs = this.#config.flushIntervalMs): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
  }

  async #tick(): Promise<void> {
    this.#ticking = true;
    this.#lastTickAt = Date.now();
    try {
      const status = this.#informers.status();
      for (const kind of WATCHED_KINDS) this.metrics.informerSynced.set({ kind }, status.filter((s) => s.kind === kind).every((s) => s.synced) ? 1 : 0);
      this.metrics.leader.set(this.#mayPost() ? 1 : 0);
      const due = this.#dirty || this.#pending > 0 || this.#resyncDue || this.#stateDirty || !this.#flushed;
      const gateOpen = this.#sender.gate.isOpen(Date.now());
      if (this.#mayPost() && this.#informers.synced && (due || this.#rejectedDue()) && Date.now() >= this.#notBefore && gateOpen && !this.#inFlight) {
        if (!this.#stateLoaded) await this.#loadState();
        if (this.#stateLoaded && this.#mayPost()) await this.#runFlush();
      }
    } catch (error) {
      this.logger.error({ err: error }, "flush failed unexpectedly");
    } finally {
      this.#ticking = false;
      this.#schedule();
    }
  }

  #computeDesired(): DesiredState {
    return this.#tracker.state();
  }

  #runFlush(): Promise<FlushSummary> {
    const run = this.#flushOnce().finally(() => {
      if (this.#inFlight === run) this.#inFlight = undefined;
    });
    this.#inFlight = run;
    return run;
  }

  async #flushOnce(): Promise<FlushSummary> {
    const endTimer = this.metrics.flushDuration.startTimer();
    this.#dirty = false;
    const resendAll = this.#resyncDue;
    const desired = this.#computeDesired();
    this.#report(desired);
    const now = Date.now();
    const parked = new Map<string, string>();
    for (const [key, r] of this.#rejected) {
      if (r.retryAt > now) parked.set(key, r.fingerprint);
      else r.retried = true;
    }
    // Only what changed since the last diff, what is still unsettled from it, and what the service refused.
    const changed = this.#tracker.changedKeys();
    const acknowledged = this.#store.all();
    const full = this.#fullDiff || resendAll || changed === "all" || acknowledged !== this.#diffedAgainst;
    const keys = full ? undefined : new Set([...changed, ...this.#unsettled, ...this.#rejected.keys()]);
    const pending = diffRecords(desired, acknowledged, { resendAll, rejected: parked, inFlight: this.#store.inFlight(), ...(keys ? { keys } : {}) });
    this.#fullDiff = false;
    this.#diffedAgainst = acknowledged;
    this.#unsettled = new Set(pending.map((r) => r.key));
    const summary: FlushSummary = {
      desired: desired.records.size,
      pending: pending.length,
      requests: 0,
      accepted: 0,
      rejected: 0,
      failed: 0,
      conflicts: desired.conflicts.length,
    };
    this.metrics.desiredRecords.set(desired.records.size);
    // Write-ahead: deployed entries about to be sent are made durable first, so after a crash at any later instant
    // the next leader knows they may exist at the service (see README, "Persisted state").
    const inFlight = this.#store.inFlight();
    const intents = pending.filter((r) => {
      if ((r.entry.status ?? "deployed") !== "deployed") return false;
      const flying = inFlight.get(r.key);
      return !flying || entryFingerprint(flying.entry) !== entryFingerprint(r.entry);
    });
    if (intents.length > 0) this.#store.intend(intents);
    if ((intents.length > 0 || this.#stateDirty) && !(await this.#persistState())) {
      this.#pending = pending.length;
      this.metrics.pendingRecords.set(this.#pending);
      this.#flushed = true;
      endTimer();
      return summary;
    }
    if (pending.length > 0) {
      if (this.#consecutiveFailures > 0) this.metrics.retries.inc({ reason: "flush" });
      const leadership = this.#leadership;
      const signal = leadership ? AbortSignal.any([this.#abort.signal, leadership.signal]) : this.#abort.signal;
      this.#crash?.consider(pending.map((r) => r.entry.deployment_name));
      this.#crash?.reached("before-send");
      this.#crash?.reached("in-flight");
      const result = await this.#sender.send(pending, signal);
      this.#crash?.reached("after-answer");
      this.#store.acknowledge(result.accepted);
      for (const record of result.accepted) this.#unsettled.delete(record.key);
      for (const { record, reason } of result.rejected) {
        const fingerprint = entryFingerprint(record.entry);
        const before = this.#rejected.get(record.key);
        const attempts = before?.fingerprint === fingerprint ? before.attempts + 1 : 1;
        const retryMaxMs = this.#config.retryMaxDelayMs;
        const retryAt = Date.now() + backoffDelay(attempts - 1, retryMaxMs, retryMaxMs * 16);
        this.#rejected.set(record.key, { fingerprint, attempts, retryAt });
        this.logger.warn({ deploymentName: record.entry.deployment_name, digest: record.entry.digest, reason }, "service refused a deployment record");
      }
      for (const record of result.accepted) {
        this.#rejected.delete(record.key);
        this.metrics.recordsAccepted.inc({ status: record.entry.status ?? "deployed" });
      }
      this.metrics.recordsRejected.inc(result.rejected.length);
      if (result.succeeded > 0) this.#tokenRefusedFlushes = 0;
      else if (result.requests > 0 && result.refusedToken === result.requests) {
        this.#tokenRefusedFlushes += 1;
        this.#tokenRefusedStatus = result.refusedTokenStatus ?? 401;
        if (this.#tokenRefusedFlushes === TOKEN_REFUSED_FLUSHES_UNREADY) {
          this.logger.error({ status: this.#tokenRefusedStatus, flushes: this.#tokenRefusedFlushes }, "the service refuses the API token on every call: not ready until a call succeeds");
        }
      }
      summary.requests = result.requests;
      summary.accepted = result.accepted.length;
      summary.rejected = result.rejected.length;
      summary.failed = result.failed.length;
      this.#requests += result.requests;
      this.#recordsSent += result.accepted.length;
      const deposed = !leadership || leadership.signal.aborted;
      if (result.failed.length > 0 && deposed) {
        this.logger.warn({ failed: result.failed.length, accepted: result.accepted.length }, "not the leader any more; what is left is for the new leader to send");
      } else if (result.failed.length > 0) {
        const delay = Math.max(
          backoffDelay(this.#consecutiveFailures, this.#config.retryMinDelayMs, this.#config.retryMaxDelayMs),
          result.retryAfterMs ?? 0,
        );
        this.#consecutiveFailures += 1;
        this.#notBefore = Date.now() + delay;
        this.logger.warn(
          { failed: result.failed.length, accepted: result.accepted.length, retryInMs: delay, err: result.error?.message, code: (result.error as { code?: string } | undefined)?.code },
          "sending deployment records failed; they stay pending",
        );
      } else {
        this.#consecutiveFailures = 0;
        this.#notBefore = 0;
        if (resendAll) this.#resyncDue = false;
      }
      this.#pending = deposed ? 0 : result.failed.length;
      if (result.accepted.length > 0) await this.#persistState();
      this.logger.debug({ ...summary }, "flushed deployment records");
    } else {
      this.#pending = 0;
      if (resendAll) this.#resyncDue = false;
    }
    if (this.#pending === 0) this.metrics.lastSuccessfulFlush.set(Date.now() / 1000);
    this.metrics.pendingRecords.set(this.#pending);
    this.metrics.acknowledgedRecords.set(this.#store.all().size);
    this.#flushed = true;
    endTimer();
    return summary;
  }

  #report(desired: DesiredState): void {
    const before = new Set(this.#conflicts.map((c) => c.key));
    for (const conflict of desired.conflicts) {
      if (before.has(conflict.key)) continue;
      this.logger.warn(
        {
          deploymentName: conflict.deploymentName,
          logicalEnvironment: conflict.group.logicalEnvironment,
          workloads: conflict.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`),
        },
        "workloads share one deployment name; neither is recorded until they differ (add {kind} to the deployment-name template)",
      );
    }
    this.#conflicts = desired.conflicts;
    this.metrics.nameConflicts.set(desired.conflicts.length);
    this.metrics.skippedContainers.set(desired.skipped.length);
    if (this.#loggedSkips.size > 10_000) this.#loggedSkips.clear();
    for (const item of [...desired.skipped, ...desired.warnings]) {
      const id = `${item.subject}\u0000${item.reason}`;
      if (this.#loggedSkips.has(id)) continue;
      this.#loggedSkips.add(id);
      if ("annotation" in item) this.logger.warn({ subject: item.subject, annotation: item.annotation, reason: item.reason }, "annotation skipped");
      else this.logger.info({ subject: item.subject, reason: item.reason }, "container not recorded");
    }
  }
}
