// One informer's list-watch and cache (one kind, in one namespace or cluster-wide), as client-go's reflector keeps
// its store:
// - lists are paged as client-go pages them (`limit` 500 and `continue`) and streamed into the cache page by page,
//   each object projected first (kube/objects.ts), so neither a whole list nor a full object is ever held;
// - a relist reports only what changed in it (a different projection: update; gone: delete);
// - it relists on 410 Gone (in-stream ERROR or HTTP status: the history to resume from is compacted), on "Too large
//   resource version" (504 with cause ResourceVersionTooLarge: the server's history restarted below ours) and when an
//   event's resourceVersion is lower than the last one seen; a continue token that expires between pages (410) starts
//   the list again from its first page (client-go falls back to one unpaged list there, which at 150,000 pods would
//   be one body of hundreds of MB);
// - a clean close re-watches from the last resourceVersion (bookmarks keep it fresh); a watch that dies within a
//   second is reopened after a growing delay; any failure restarts after a growing delay, keeping the cache.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { backoffDelay } from "../flush/backoff.js";
import { getJson, isExpired, isTooLargeResourceVersion, resourceVersionWentBack, watchEvents } from "./transport.js";
import type { KubeRequestError, WatchEnd } from "./transport.js";
import type { CronJob, Job, Pod, ReflectedKind, WatchedKind, Workload } from "./objects.js";
import { namespaceProjection, sameProjection, slimObject, type ProjectionOptions } from "./object-projection.js";
import { resolvesAlike } from "../mapping/workload-owner.js";
import type { Clock } from "../clock.js";

/** client-go's page size for lists (its pager's default). */
export const LIST_PAGE_SIZE = 500;

/** Why a watch or informer was restarted. */
export type RestartReason = "error" | "idle" | "short-lived" | "relist";

/** A cached object. */
export type CachedObject = Pod | Workload | Job | CronJob;

const API_PATHS: Record<ReflectedKind, { prefix: string; plural: string }> = {
  Namespace: { prefix: "/api/v1", plural: "namespaces" },
  Pod: { prefix: "/api/v1", plural: "pods" },
  ReplicaSet: { prefix: "/apis/apps/v1", plural: "replicasets" },
  Deployment: { prefix: "/apis/apps/v1", plural: "deployments" },
  StatefulSet: { prefix: "/apis/apps/v1", plural: "statefulsets" },
  DaemonSet: { prefix: "/apis/apps/v1", plural: "daemonsets" },
  Job: { prefix: "/apis/batch/v1", plural: "jobs" },
  CronJob: { prefix: "/apis/batch/v1", plural: "cronjobs" },
};

/** A list whose continue token expired this many times in a row fails (and is retried with backoff). */
const MAX_EXPIRED_CONTINUES = 3;

/** Settings of one reflector. */
export interface ReflectorOptions<K extends ReflectedKind = WatchedKind> {
  kubeConfig: KubeConfig;
  kind: K;
  /** Absent: cluster-wide. */
  namespace?: string;
  /** Cluster-wide: only objects of the namespaces this accepts are cached (the others are dropped as they come). */
  keepNamespace?: (namespace: string) => boolean;
  labelSelector?: string;
  watchTimeoutSeconds: number;
  watchIdleTimeoutMs: number;
  requestTimeoutMs: number;
  restartMinDelayMs: number;
  restartMaxDelayMs: number;
  projection: ProjectionOptions;
  logger: Logger;
  /** Time and waits: backoff, how long a watch stayed open, its requests' timeouts and idle watchdog. */
  clock: Clock;
  /**
   * An object was added, updated or deleted (by a watch event or a list). `reachesDependents` is false for an update
   * that leaves what resolves through the object resolving alike (resolvesAlike in mapping/workload-owner.ts).
   */
  onChange?: (kind: K, namespace: string, name: string, reachesDependents: boolean) => void;
  onRestart?: (kind: K, reason: RestartReason) => void;
  /** The first list is in the cache. */
  onSynced: () => void;
  /**
   * A first list the API server forbids (403) counts as synced with nothing, once, told to `onForbidden`; the
   * reflector goes on retrying with backoff (so a permission granted later takes effect). For an optional cache.
   */
  onForbidden?: (error: Error) => void;
}

/** Lists and watches one kind into its cache. */
export class Reflector<K extends ReflectedKind = WatchedKind> {
  synced = false;
  restarts = 0;
  /** Lists or watches failed in a row (0 once a watch ends normally or a list succeeds), and the last error. */
  failures = 0;
  lastError = "";
  readonly #objects = new Map<string, Map<string, CachedObject>>();
  #size = 0;
  #resourceVersion: string | undefined;
  /** Events (bookmarks included) the current or last watch delivered. */
  #heard = 0;
  readonly #path: string;
  readonly #stopping = new AbortController();
  #running: Promise<void> | undefined;

  constructor(private readonly options: ReflectorOptions<K>) {
    const { prefix, plural } = API_PATHS[options.kind];
    const ns = options.namespace;
    this.#path = ns !== undefined ? `${prefix}/namespaces/${encodeURIComponent(ns)}/${plural}` : `${prefix}/${plural}`;
  }

  get kind(): K {
    return this.options.kind;
  }

  /** The namespace watched; undefined when cluster-wide. */
  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /** Objects in the cache. */
  get size(): number {
    return this.#size;
  }

  /** A cached object by namespace and name. */
  get(namespace: string, name: string): CachedObject | undefined {
    return this.#objects.get(namespace)?.get(name);
  }

  /** Every cached object. */
  *list(): Iterable<CachedObject> {
    for (const byName of this.#objects.values()) yield* byName.values();
  }

  /** Starts listing and watching in the background; failures are retried. */
  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { kind, logger, clock } = this.options;
    const signal = this.#stopping.signal;
    // A wait cut short by stop() ends the loop: the signal is checked right after.
    const sleep = (ms: number) => clock.sleep(ms, signal).catch(() => undefined);
    let needList = true;
    // Failures in a row, for the backoff; `this.failures` counts the same but for an optional cache's 403.
    let attempts = 0;
    let shortLived = 0;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#list();
          needList = false;
          attempts = 0;
          this.failures = 0;
          if (!this.synced) {
            this.synced = true;
            this.options.onSynced();
          }
        }
        if (shortLived > 0) await sleep(backoffDelay(shortLived - 1, 200, 10_000));
        if (signal.aborted) return;
        const opened = clock.monotonicNow();
        const end = await this.#watch();
        attempts = 0;
        this.failures = 0;
        if (end === "relist") {
          needList = true;
          shortLived = 0;
          continue;
        }
        if (this.#heard === 0 && end !== "stopped" && clock.monotonicNow() - opened >= 1000) {
          // Not even a bookmark (a real API server sends one each minute and before the timeout): it is behind the
          // resourceVersion we hold (etcd restored from a backup, a new cluster at the same address) and would stay
          // silent until it reaches it. Only a list shows what it holds now.
          logger.warn({ kind, resourceVersion: this.#resourceVersion, end }, "watch heard nothing, not even a bookmark; relisting");
          this.options.onRestart?.(kind, "relist");
          needList = true;
          shortLived = 0;
          continue;
        }
        shortLived = end === "closed" && clock.monotonicNow() - opened < 1000 ? shortLived + 1 : 0;
        if (shortLived > 0) this.options.onRestart?.(kind, "short-lived");
        if (end === "idle") {
          logger.warn({ kind, idleMs: this.options.watchIdleTimeoutMs }, "watch silent too long (or unanswered); reopening");
          this.options.onRestart?.(kind, "idle");
        }
      } catch (error) {
        if (signal.aborted) return;
        const status = (error as KubeRequestError).status;
        if (isExpired(status) || isTooLargeResourceVersion(status)) {
          // HTTP 410 or 504 "too large" on a watch: what we would resume from is gone; list afresh at once.
          if (isTooLargeResourceVersion(status)) this.#tooLarge();
          needList = true;
          continue;
        }
        if ((error as KubeRequestError).statusCode === 403 && this.options.onForbidden && !this.synced) {
          this.synced = true;
          this.options.onForbidden(error as Error);
          this.options.onSynced();
        }
        // An optional cache the API server forbids is no failure of the caches that must follow the cluster.
        const optionalForbidden = (error as KubeRequestError).statusCode === 403 && this.options.onForbidden !== undefined;
        if (!optionalForbidden) this.failures += 1;
        attempts += 1;
        this.restarts += 1;
        this.options.onRestart?.(kind, "error");
        const delay = backoffDelay(attempts - 1, this.options.restartMinDelayMs, this.options.restartMaxDelayMs);
        const err = (error as Error)?.message ?? String(error);
        this.lastError = err;
        logger.warn({ kind, namespace: this.options.namespace, err, retryInMs: delay }, "informer failed; restarting");
        await sleep(delay);
      }
    }
  }

  #tooLarge(): void {
    const { kind, logger } = this.options;
    logger.warn({ kind, resourceVersion: this.#resourceVersion }, "watch ahead of the server (too large resource version); relisting");
    this.options.onRestart?.(this.options.kind, "relist");
  }

  /** Lists every object, page by page into the cache; on a relist, objects not listed are deleted. */
  async #list(): Promise<void> {
    const { kind, logger } = this.options;
    for (let expired = 0; ; expired++) {
      const seen = this.#size > 0 ? new Set<CachedObject>() : undefined;
      let continueToken: string | undefined;
      let resourceVersion: string | undefined;
      try {
        do {
          const page = (await getJson(
            this.options.kubeConfig,
            this.#path,
            { limit: String(LIST_PAGE_SIZE), continue: continueToken, labelSelector: this.options.labelSelector },
            { timeoutMs: this.options.requestTimeoutMs, signal: this.#stopping.signal, what: `list ${kind}`, clock: this.options.clock },
          )) as { metadata?: { resourceVersion?: string; continue?: string }; items?: unknown[] };
          for (const item of page.items ?? []) {
            const object = this.#put(item);
            if (object) seen?.add(object);
          }
          resourceVersion = page.metadata?.resourceVersion;
          continueToken = page.metadata?.continue || undefined;
        } while (continueToken);
      } catch (error) {
        if (!continueToken || !isExpired((error as KubeRequestError).status) || expired + 1 >= MAX_EXPIRED_CONTINUES) throw error;
        logger.warn({ kind }, "list expired between pages (410); listing again from the first page");
        this.options.onRestart?.(kind, "relist");
        continue;
      }
      if (seen) for (const object of [...this.list()]) if (!seen.has(object)) this.#remove(object);
      this.#resourceVersion = resourceVersion;
      return;
    }
  }

  /** Watches from the last resourceVersion, applying events; "relist" when the cache must be listed afresh. */
  async #watch(): Promise<WatchEnd | "relist"> {
    const { kind, logger } = this.options;
    let relist = false;
    let failed = false;
    this.#heard = 0;
    const end = await watchEvents(
      this.options.kubeConfig,
      this.#path,
      { resourceVersion: this.#resourceVersion, labelSelector: this.options.labelSelector },
      {
        timeoutSeconds: this.options.watchTimeoutSeconds,
        idleTimeoutMs: this.options.watchIdleTimeoutMs,
        requestTimeoutMs: this.options.requestTimeoutMs,
        signal: this.#stopping.signal,
        what: `watch ${kind}`,
        clock: this.options.clock,
      },
      (type, object) => {
        this.#heard += 1;
        if (type === "ERROR") {
          if (isTooLargeResourceVersion(object)) this.#tooLarge();
          else if (!isExpired(object)) logger.warn({ kind, status: object }, "watch ended by an error event; watching again");
          relist = isExpired(object) || isTooLargeResourceVersion(object);
          failed = !relist;
          return false;
        }
        const version = (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
        if (resourceVersionWentBack(this.#resourceVersion, version)) {
          // The server's history restarted lower (etcd restored, cluster rebuilt): what we hold may be stale.
          logger.warn({ kind, from: this.#resourceVersion, to: version }, "resourceVersion went backwards; relisting");
          this.options.onRestart?.(kind, "relist");
          relist = true;
          return false;
        }
        if (version) this.#resourceVersion = version;
        if (type === "DELETED") {
          const meta = (object as { metadata?: { namespace?: string; name?: string } } | undefined)?.metadata;
          const cached = this.get(meta?.namespace ?? "", meta?.name ?? "");
          if (cached) this.#remove(cached);
        } else if (type === "ADDED" || type === "MODIFIED") {
          this.#put(object);
        }
        return true;
      },
    );
    // Ended by an error event, as by the server closing it: a watch that keeps failing at once backs off.
    return relist ? "relist" : failed && end === "stopped" ? "closed" : end;
  }

  /**
   * Caches the projection of `raw` unless the cache holds an equal one already; returns the cached object, or
   * undefined for an object of a namespace not kept.
   */
  #put(raw: unknown): CachedObject | undefined {
    const kind = this.options.kind as ReflectedKind;
    const keep = this.options.keepNamespace;
    if (keep && !keep((raw as { metadata?: { namespace?: string } } | undefined)?.metadata?.namespace ?? "")) return undefined;
    const object = kind === "Namespace" ? namespaceProjection(raw) : slimObject(kind, raw, this.options.projection);
    const namespace = object.metadata.namespace ?? "";
    let byName = this.#objects.get(namespace);
    if (!byName) {
      byName = new Map();
      this.#objects.set(namespace, byName);
    }
    const name = object.metadata.name;
    const cached = byName.get(name);
    // An update that changes nothing the mapping reads (a pod scheduled, its conditions; a relist's unchanged
    // object) is no change: the cached copy stays, and nothing is reported.
    if (cached && sameProjection(cached, object)) return cached;
    byName.set(name, object);
    if (!cached) this.#size += 1;
    // A pod owns nothing watched: only an owner's update is compared for what resolves through it.
    const reaches = !cached || (kind !== "Pod" && kind !== "Namespace" && !resolvesAlike(kind, cached, object));
    this.options.onChange?.(this.options.kind, namespace, name, reaches);
    return object;
  }

  #remove(object: CachedObject): void {
    const namespace = object.metadata.namespace ?? "";
    const byName = this.#objects.get(namespace);
    if (!byName?.delete(object.metadata.name)) return;
    this.#size -= 1;
    if (byName.size === 0) this.#objects.delete(namespace);
    this.options.onChange?.(this.options.kind, namespace, object.metadata.name, true);
  }
}
