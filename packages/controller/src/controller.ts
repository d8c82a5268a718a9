// The controller: informer caches in, deployment records out. Every flush interval it computes the desired
// records from the caches, diffs them against what the service has acknowledged, and sends only the difference.
// Failed sends stay pending and are retried with backoff; a periodic full resync resends everything desired.
import { ShiplogClient, type ApiVersion } from "@shiplog/client";
import type { KubeConfig } from "@kubernetes/client-node";
import nodeFetch from "node-fetch";
import { pino, type Logger } from "pino";
import { InMemoryAcknowledgedStore, type AcknowledgedStore } from "./acknowledged-state.js";
import { backoffDelay } from "./backoff.js";
import { BatchSender, type ClusterRecordsApi } from "./batch-sender.js";
import type { ControllerConfig } from "./config.js";
import { computeDesiredState, PodRecordsMemo, type DesiredState, type NameConflict } from "./desired-state.js";
import { ClusterInformers, WATCHED_KINDS } from "./informers.js";
import { ControllerMetrics } from "./metrics.js";
import { diffRecords, entryFingerprint } from "./record-diff.js";

export const CONTROLLER_VERSION = "0.1.0";

/** What the controller needs besides its configuration. */
export interface ControllerOptions {
  config: ControllerConfig;
  kubeConfig: KubeConfig;
  /** The cluster endpoint; default a ShiplogClient built from the configuration. */
  api?: ClusterRecordsApi;
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
  /** At least one flush has completed since the caches synced. */
  flushed: boolean;
  pending: number;
  acknowledged: number;
  conflicts: NameConflict[];
  consecutiveFailures: number;
  lastTickAt: number;
  requests: number;
  recordsSent: number;
}

/** Keeps the service's deployment records equal to what the cluster runs. */
export class Controller {
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
  readonly #config: ControllerConfig;
  readonly #store: AcknowledgedStore;
  readonly #informers: ClusterInformers;
  readonly #sender: BatchSender;
  readonly #rejected = new Map<string, string>();
  readonly #loggedSkips = new Set<string>();
  readonly #memo = new PodRecordsMemo();
  #conflicts: NameConflict[] = [];
  #dirty = true;
  #resyncDue = false;
  #pending = 0;
  #consecutiveFailures = 0;
  #notBefore = 0;
  #timer: NodeJS.Timeout | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;
  #inFlight: Promise<FlushSummary> | undefined;
  #started = false;
  #stopped = false;
  #flushed = false;
  #lastTickAt = 0;
  #requests = 0;
  #recordsSent = 0;
  readonly #abort = new AbortController();

  constructor(options: ControllerOptions) {
    this.#config = options.config;
    this.logger = options.logger ?? pino({ level: options.config.logLevel });
    this.metrics = options.metrics ?? new ControllerMetrics();
    this.#store = options.store ?? new InMemoryAcknowledgedStore();
    const api =
      options.api ??
      new ShiplogClient({
        baseUrl: options.config.apiUrl,
        token: options.config.token,
        apiVersion: options.config.apiVersion as ApiVersion,
        userAgent: `shiplog-controller/${CONTROLLER_VERSION}`,
        timeoutMs: options.config.requestTimeoutMs,
        retry: { retries: 2, minDelayMs: options.config.retryMinDelayMs, maxDelayMs: options.config.retryMaxDelayMs },
        // node-fetch is loaded anyway for the Kubernetes transport; the global fetch would load undici as well
        // (about 11 MB of resident memory for the same job).
        fetch: nodeFetch as unknown as typeof fetch,
      }).artifacts;
    this.#sender = new BatchSender({
      api,
      org: options.config.org,
      cluster: options.config.cluster,
      batchSize: options.config.batchSize,
      concurrency: options.config.concurrency,
      dryRun: options.config.dryRun,
      logger: this.logger,
      onRequest: ({ ok, code }) => this.metrics.requests.inc({ result: ok ? "success" : "failure", code: code ?? "" }),
    });
    this.#informers = new ClusterInformers({
      kubeConfig: options.kubeConfig,
      namespaces: options.config.namespaces,
      ...(options.config.labelSelector ? { labelSelector: options.config.labelSelector } : {}),
      watchTimeoutSeconds: options.config.watchTimeoutSeconds,
      watchIdleTimeoutMs: options.config.watchIdleTimeoutMs,
      requestTimeoutMs: options.config.requestTimeoutMs,
      restartMinDelayMs: options.config.retryMinDelayMs,
      restartMaxDelayMs: options.config.retryMaxDelayMs,
      logger: this.logger,
      onChange: () => {
        this.#dirty = true;
      },
      onRestart: (kind, reason) => this.metrics.watchRestarts.inc({ kind, reason }),
    });
  }

  /** Loads acknowledged state, starts the informers, waits for their first list, and starts the flush loop. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#store.load();
    this.#informers.start();
    this.#schedule();
    if (this.#config.resyncIntervalMs > 0) {
      this.#resyncTimer = setInterval(() => {
        this.#resyncDue = true;
        this.#rejected.clear();
      }, this.#config.resyncIntervalMs);
      this.#resyncTimer.unref();
    }
    await Promise.race([this.#informers.waitForSync(), new Promise((resolve) => this.#abort.signal.addEventListener("abort", resolve))]);
    this.logger.info(
      { org: this.#config.org, cluster: this.#config.cluster, namespaces: this.#config.namespaces, dryRun: this.#config.dryRun },
      "controller started",
    );
  }

  /** Stops the loop and the informers; with `flush`, first tries to send what is pending (bounded by timeoutMs). */
  async stop(options: { flush?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#resyncTimer);
    if (options.flush && this.#informers.synced) {
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, options.timeoutMs ?? 10_000).unref());
      await Promise.race([this.#runFlush().then(() => undefined, () => undefined), deadline]);
    }
    this.#abort.abort();
    await this.#inFlight?.catch(() => undefined);
    await this.#informers.stop();
    await this.#store.persist();
  }

  /** Runs one flush now (after any flush in flight) and returns its summary. */
  async flush(): Promise<FlushSummary> {
    await this.#inFlight?.catch(() => undefined);
    return this.#runFlush();
  }

  /** True once the caches synced and a first flush ran. */
  get ready(): boolean {
    return this.#informers.synced && this.#flushed;
  }

  status(): ControllerStatus {
    return {
      started: this.#started,
      synced: this.#informers.synced,
      flushed: this.#flushed,
      pending: this.#pending,
      acknowledged: this.#store.all().size,
      conflicts: this.#conflicts,
      consecutiveFailures: this.#consecutiveFailures,
      lastTickAt: this.#lastTickAt,
      requests: this.#requests,
      recordsSent: this.#recordsSent,
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

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), this.#config.flushIntervalMs);
  }

  async #tick(): Promise<void> {
    this.#lastTickAt = Date.now();
    try {
      const status = this.#informers.status();
      for (const kind of WATCHED_KINDS) this.metrics.informerSynced.set({ kind }, status.filter((s) => s.kind === kind).every((s) => s.synced) ? 1 : 0);
      const due = this.#dirty || this.#pending > 0 || this.#resyncDue || !this.#flushed;
      if (this.#informers.synced && due && Date.now() >= this.#notBefore && !this.#inFlight) await this.#runFlush();
    } catch (error) {
      this.logger.error({ err: error }, "flush failed unexpectedly");
    } finally {
      this.#schedule();
    }
  }

  #computeDesired(): DesiredState {
    const include = new Set(this.#config.namespaces);
    const exclude = new Set(this.#config.excludeNamespaces);
    return computeDesiredState(this.#informers, {
      cluster: this.#config.cluster,
      logicalEnvironment: this.#config.logicalEnvironment,
      ...(this.#config.physicalEnvironment !== undefined ? { physicalEnvironment: this.#config.physicalEnvironment } : {}),
      deploymentNameTemplate: this.#config.deploymentNameTemplate,
      namespaceAllowed: (ns) => (include.size === 0 || include.has(ns)) && !exclude.has(ns),
      memo: this.#memo,
    });
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
    const pending = diffRecords(desired, this.#store.all(), { resendAll, rejected: this.#rejected });
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
    if (pending.length > 0) {
      const result = await this.#sender.send(pending, this.#abort.signal);
      this.#store.acknowledge(result.accepted);
      for (const { record, reason } of result.rejected) {
        this.#rejected.set(record.key, entryFingerprint(record.entry));
        this.logger.warn({ deploymentName: record.entry.deployment_name, digest: record.entry.digest, reason }, "service refused a deployment record");
      }
      for (const record of result.accepted) this.metrics.recordsAccepted.inc({ status: record.entry.status ?? "deployed" });
      this.metrics.recordsRejected.inc(result.rejected.length);
      summary.requests = result.requests;
      summary.accepted = result.accepted.length;
      summary.rejected = result.rejected.length;
      summary.failed = result.failed.length;
      this.#requests += result.requests;
      this.#recordsSent += result.accepted.length;
      if (result.failed.length > 0) {
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
      this.#pending = result.failed.length;
      if (result.accepted.length > 0) await this.#store.persist();
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
