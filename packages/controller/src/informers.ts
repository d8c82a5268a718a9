// Informer caches of pods and workloads, on client-node's ListWatch (its cache, relist on 410 and delete events for
// objects gone from a relist), with the transport hardened where client-node leaves gaps:
// - watch requests carry `timeoutSeconds` and `allowWatchBookmarks`, so the server rotates them;
// - a watch that dies within a second of opening is reopened after a growing delay, never in a tight loop;
// - a watchdog reopens a watch that stays silent past the idle timeout (half-open connection, hung server), and a
//   request that never answers is abandoned after the request timeout;
// - any other failure (list error, refused connection) stops client-node's ListWatch: it is restarted with backoff;
// - lists are paged and time-bounded, and every object is projected onto the few fields the controller reads.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { ListWatch, Watch, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import fetch from "node-fetch";
import { ShiplogError } from "@shiplog/client";
import type { Logger } from "pino";
import { slimObject, type CronJob, type Job, type Pod, type WatchedKind, type Workload } from "./kube-objects.js";
import type { ClusterSnapshot, WorkloadKind } from "./desired-state.js";
import { backoffDelay } from "./backoff.js";

const API_PATHS: Record<WatchedKind, { prefix: string; plural: string }> = {
  Pod: { prefix: "/api/v1", plural: "pods" },
  ReplicaSet: { prefix: "/apis/apps/v1", plural: "replicasets" },
  Deployment: { prefix: "/apis/apps/v1", plural: "deployments" },
  StatefulSet: { prefix: "/apis/apps/v1", plural: "statefulsets" },
  DaemonSet: { prefix: "/apis/apps/v1", plural: "daemonsets" },
  Job: { prefix: "/apis/batch/v1", plural: "jobs" },
  CronJob: { prefix: "/apis/batch/v1", plural: "cronjobs" },
};

export const WATCHED_KINDS: readonly WatchedKind[] = ["Pod", "ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"];
const WORKLOAD_KINDS: readonly WorkloadKind[] = ["Deployment", "StatefulSet", "DaemonSet", "CronJob", "ReplicaSet", "Job"];
const LIST_PAGE_SIZE = 250;

/** Settings of the informers. */
export interface InformerOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; empty means the whole cluster. */
  namespaces: readonly string[];
  /** Label selector applied to pods. */
  labelSelector?: string;
  watchTimeoutSeconds: number;
  watchIdleTimeoutMs: number;
  requestTimeoutMs: number;
  /** Backoff of restarts after failures. */
  restartMinDelayMs?: number;
  restartMaxDelayMs?: number;
  logger: Logger;
  /** Called on every cache change (add, update, delete), with the kind. */
  onChange?: (kind: WatchedKind) => void;
  /** Called when a watch or informer is restarted, with the reason. */
  onRestart?: (kind: WatchedKind, reason: "error" | "idle" | "short-lived" | "relist") => void;
}

/** An error with the HTTP status of a failed Kubernetes request (what ListWatch looks at for 410). */
class KubeRequestError extends ShiplogError {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super("kube_request_failed", message);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

async function statusMessage(response: { status: number; text(): Promise<string> }): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: string };
    if (body.message) return `${response.status}: ${body.message}`;
  } catch {
    // not a Status body
  }
  return `${response.status}`;
}

/** The Status of a watch at a resourceVersion the server has not reached (504 Timeout, cause ResourceVersionTooLarge). */
export function isTooLargeResourceVersion(status: unknown): boolean {
  const s = status as { code?: number; reason?: string; message?: string; details?: { causes?: { reason?: string }[] } } | undefined;
  if (!s || s.code !== 504) return false;
  // Servers before 1.18.6 set no cause: client-go matches the message too.
  return (s.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge") || (s.message ?? "").includes("Too large resource version");
}

/** Whether `next` is an older resourceVersion than `previous` (both numeric, as etcd's are; otherwise unknown). */
export function resourceVersionWentBack(previous: string | undefined, next: string | undefined): boolean {
  if (!previous || !next || !/^\d+$/.test(previous) || !/^\d+$/.test(next)) return false;
  return BigInt(next) < BigInt(previous);
}

/** What ListWatch reads as "relist from scratch" (it knows only 410 Gone). */
const RELIST = { code: 410, reason: "Expired" };

/** A Watch whose requests have timeouts, a watchdog and reconnect backoff, and whose objects are projected. */
class ResilientWatch extends Watch {
  #shortLived = 0;
  readonly #stopping: AbortController;

  constructor(
    private readonly kc: KubeConfig,
    private readonly kind: WatchedKind,
    private readonly options: InformerOptions,
    stopping: AbortController,
    private readonly onWatchOpened: () => void,
  ) {
    super(kc);
    this.#stopping = stopping;
  }

  override async watch(
    path: string,
    queryParams: Record<string, unknown>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    if (this.#shortLived > 0) {
      await sleep(backoffDelay(this.#shortLived - 1, 200, 10_000), this.#stopping.signal);
    }
    if (this.#stopping.signal.aborted) {
      controller.abort();
      return controller;
    }
    this.onWatchOpened();
    const opened = Date.now();
    let finished = false;
    let idleTimer: NodeJS.Timeout | undefined;
    const finish = (err: unknown, reason?: "idle"): void => {
      if (finished) return;
      finished = true;
      clearTimeout(idleTimer);
      clearTimeout(headerTimer);
      const lived = Date.now() - opened;
      this.#shortLived = lived < 1000 && !reason ? this.#shortLived + 1 : 0;
      if (this.#shortLived > 0) this.options.onRestart?.(this.kind, "short-lived");
      if (reason === "idle") this.options.onRestart?.(this.kind, "idle");
      controller.abort();
      done(err);
    };
    const armIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        this.options.logger.warn({ kind: this.kind, idleMs: this.options.watchIdleTimeoutMs }, "watch silent too long; reopening");
        finish(null, "idle");
      }, this.options.watchIdleTimeoutMs);
    };
    const headerTimer = setTimeout(() => {
      this.options.logger.warn({ kind: this.kind }, "watch request unanswered; reopening");
      finish(null, "idle");
    }, this.options.requestTimeoutMs);

    try {
      const cluster = this.kc.getCurrentCluster();
      if (!cluster) throw new KubeRequestError("no current cluster in the kubeconfig");
      const url = new URL(cluster.server + path);
      url.searchParams.set("watch", "true");
      url.searchParams.set("allowWatchBookmarks", "true");
      url.searchParams.set("timeoutSeconds", String(this.options.watchTimeoutSeconds));
      for (const [key, value] of Object.entries(queryParams)) if (value !== undefined && value !== "") url.searchParams.set(key, String(value));
      const init = await this.kc.applyToFetchOptions({});
      const response = await fetch(url.toString(), {
        agent: init.agent,
        headers: init.headers as never,
        signal: controller.signal as never,
      });
      clearTimeout(headerTimer);
      if (finished) return controller;
      if (response.status !== 200) {
        const text = await response.text().catch(() => "");
        let status: unknown;
        try {
          status = JSON.parse(text);
        } catch {
          status = undefined;
        }
        const message = `watch ${this.kind} failed: ${response.status}${(status as { message?: string })?.message ? `: ${(status as { message: string }).message}` : ""}`;
        // Ahead of the server (its history restarted): relist, as client-go's reflector does.
        if (isTooLargeResourceVersion(status)) {
          this.options.logger.warn({ kind: this.kind, resourceVersion: queryParams.resourceVersion }, "watch ahead of the server (too large resource version); relisting");
          this.options.onRestart?.(this.kind, "relist");
          throw new KubeRequestError(message, 410);
        }
        throw new KubeRequestError(message, response.status);
      }
      let lastVersion = queryParams.resourceVersion as string | undefined;
      armIdle();
      const body = response.body as unknown as Readable;
      body.on("error", (err) => finish(err));
      const lines = createInterface({ input: body, crlfDelay: Infinity });
      lines.on("error", (err) => finish(err));
      lines.on("line", (line) => {
        if (finished) return;
        armIdle();
        let event: { type?: string; object?: unknown };
        try {
          event = JSON.parse(line) as typeof event;
        } catch {
          return;
        }
        if (!event.type) return;
        if (event.type === "ERROR" && isTooLargeResourceVersion(event.object)) {
          this.options.logger.warn({ kind: this.kind, resourceVersion: lastVersion }, "watch ahead of the server (too large resource version); relisting");
          this.options.onRestart?.(this.kind, "relist");
          callback("ERROR", RELIST, event);
          return;
        }
        const version = (event.object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
        if (event.type !== "ERROR" && resourceVersionWentBack(lastVersion, version)) {
          // The server's history restarted lower (etcd restored, cluster rebuilt): what we hold may be stale.
          this.options.logger.warn({ kind: this.kind, from: lastVersion, to: version }, "resourceVersion went backwards; relisting");
          this.options.onRestart?.(this.kind, "relist");
          callback("ERROR", RELIST, event);
          finish(null);
          return;
        }
        if (event.type !== "ERROR" && version) lastVersion = version;
        const object = event.type === "ERROR" ? event.object : slimObject(this.kind, event.object);
        callback(event.type, object, event);
      });
      lines.on("close", () => finish(null));
    } catch (error) {
      finish(this.#stopping.signal.aborted ? null : error);
    }
    return controller;
  }
}

/** One list+watch stream: one kind, in one namespace or cluster-wide. */
class ResourceInformer {
  readonly listWatch: ListWatch<KubernetesObject>;
  synced = false;
  restarts = 0;
  #failures = 0;
  #listedSinceSync = false;
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #stopping = new AbortController();

  constructor(
    readonly kind: WatchedKind,
    readonly namespace: string | undefined,
    private readonly options: InformerOptions,
    private readonly onSynced: () => void,
  ) {
    const { prefix, plural } = API_PATHS[kind];
    const path = namespace ? `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}` : `${prefix}/${plural}`;
    const selector = kind === "Pod" ? options.labelSelector : undefined;
    const watch = new ResilientWatch(options.kubeConfig, kind, options, this.#stopping, () => {
      if (this.#listedSinceSync) {
        // ListWatch opens the watch right after filling its cache from a list: the cache is in sync.
        this.#listedSinceSync = false;
        this.#failures = 0;
        if (!this.synced) {
          this.synced = true;
          this.onSynced();
        }
      }
    });
    this.listWatch = new ListWatch<KubernetesObject>(path, watch, () => this.#list(path, selector), false, selector);
    for (const verb of ["add", "update", "delete"] as const) this.listWatch.on(verb, () => options.onChange?.(kind));
    this.listWatch.on("error", (err: unknown) => this.#onError(err));
  }

  async #list(path: string, labelSelector: string | undefined): Promise<{ metadata: { resourceVersion?: string }; items: KubernetesObject[] }> {
    const cluster = this.options.kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeRequestError("no current cluster in the kubeconfig");
    const items: KubernetesObject[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const url = new URL(cluster.server + path);
      url.searchParams.set("limit", String(LIST_PAGE_SIZE));
      if (continueToken) url.searchParams.set("continue", continueToken);
      if (labelSelector) url.searchParams.set("labelSelector", labelSelector);
      const init = await this.options.kubeConfig.applyToFetchOptions({});
      const signal = AbortSignal.any([AbortSignal.timeout(this.options.requestTimeoutMs), this.#stopping.signal]);
      const response = await fetch(url.toString(), { agent: init.agent, headers: init.headers as never, signal: signal as never });
      if (response.status !== 200) throw new KubeRequestError(`list ${this.kind} failed: ${await statusMessage(response)}`, response.status);
      const page = (await response.json()) as { metadata?: { resourceVersion?: string; continue?: string }; items?: unknown[] };
      for (const item of page.items ?? []) items.push(slimObject(this.kind, item) as KubernetesObject);
      resourceVersion = page.metadata?.resourceVersion;
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    this.#listedSinceSync = true;
    const list: { metadata: { resourceVersion?: string }; items: KubernetesObject[] } = { metadata: {}, items };
    if (resourceVersion !== undefined) list.metadata.resourceVersion = resourceVersion;
    return list;
  }

  #onError(err: unknown): void {
    if (this.#stopping.signal.aborted) return;
    this.#failures += 1;
    this.restarts += 1;
    this.options.onRestart?.(this.kind, "error");
    const delay = backoffDelay(this.#failures - 1, this.options.restartMinDelayMs ?? 500, this.options.restartMaxDelayMs ?? 30_000);
    this.options.logger.warn(
      { kind: this.kind, namespace: this.namespace, err: (err as Error)?.message ?? String(err), retryInMs: delay },
      "informer failed; restarting",
    );
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => this.start(), delay);
  }

  /** Starts (or resumes) listing and watching; failures are retried in the background. */
  start(): void {
    if (this.#stopping.signal.aborted) return;
    this.listWatch.start().catch((err: unknown) => this.#onError(err));
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    clearTimeout(this.#restartTimer);
    await this.listWatch.stop();
  }
}

/** The informer caches the controller reads, for the configured namespaces. */
export class ClusterInformers implements ClusterSnapshot {
  readonly #informers = new Map<WatchedKind, ResourceInformer[]>();
  readonly #syncWaiters: (() => void)[] = [];

  constructor(private readonly options: InformerOptions) {
    const scopes = options.namespaces.length > 0 ? [...options.namespaces] : [undefined];
    for (const kind of WATCHED_KINDS) {
      this.#informers.set(
        kind,
        scopes.map((ns) => new ResourceInformer(kind, ns, options, () => this.#checkSynced())),
      );
    }
  }

  #all(): ResourceInformer[] {
    return [...this.#informers.values()].flat();
  }

  #checkSynced(): void {
    if (!this.synced) return;
    this.options.logger.info({ informers: this.#all().length }, "informer caches synced");
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
  }

  /** True once every informer has completed its first list. */
  get synced(): boolean {
    return this.#all().every((i) => i.synced);
  }

  /** Starts every informer; returns at once (see waitForSync). */
  start(): void {
    for (const informer of this.#all()) informer.start();
  }

  /** Resolves once every cache has been filled by a first list. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#all().map((i) => i.stop()));
  }

  /** Per-informer state, for health and metrics. */
  status(): { kind: WatchedKind; namespace: string; synced: boolean; restarts: number; objects: number }[] {
    return this.#all().map((i) => ({
      kind: i.kind,
      namespace: i.namespace ?? "",
      synced: i.synced,
      restarts: i.restarts,
      objects: i.listWatch.list().length,
    }));
  }

  *pods(): Iterable<Pod> {
    for (const informer of this.#informers.get("Pod")!) yield* informer.listWatch.list() as unknown as Pod[];
  }

  *workloads(): Iterable<{ kind: WorkloadKind; object: Workload | Job | CronJob }> {
    for (const kind of WORKLOAD_KINDS) {
      for (const informer of this.#informers.get(kind)!) {
        for (const object of informer.listWatch.list()) yield { kind, object: object as unknown as Workload | Job | CronJob };
      }
    }
  }

  get(kind: WatchedKind, namespace: string, name: string): never {
    for (const informer of this.#informers.get(kind) ?? []) {
      if (informer.namespace !== undefined && informer.namespace !== namespace) continue;
      const found = informer.listWatch.get(name, namespace);
      if (found) return found as never;
    }
    return undefined as never;
  }
}
