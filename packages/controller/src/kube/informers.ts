// The informer caches the controller reads: one reflector (list-watch and cache, kube/reflector.ts) per watched kind and
// configured namespace (or cluster-wide), each caching only the projection of its objects that the mapping reads;
// and, for the repository rules, one of the cluster's namespaces (the repository each names).
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { CronJob, Job, Pod, ReflectedKind, WatchedKind, Workload } from "./objects.js";
import { NAMESPACE_REPOSITORY_KEY } from "../mapping/repository-rules.js";
import type { WorkloadKind } from "../mapping/desired-state.js";
import type { TrackedSnapshot } from "../mapping/desired-state-tracker.js";
import { Reflector, type RestartReason } from "./reflector.js";
import { systemClock, type Clock } from "../clock.js";

/**
 * Up to this many namespaces, one list-watch per kind and namespace (each needs only a Role there); above it, one
 * cluster-wide list-watch per kind that keeps only their objects (a ClusterRole: the chart renders one). 10,000
 * names would otherwise be 70,000 lists and watches (measured: RSS 2.8 GB and rising, EMFILE, no call made).
 */
export const MAX_NAMESPACED_WATCHES = 50;

export const WATCHED_KINDS: readonly WatchedKind[] = ["Pod", "ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"];
const WORKLOAD_KINDS: readonly WorkloadKind[] = ["Deployment", "StatefulSet", "DaemonSet", "CronJob", "ReplicaSet", "Job"];

/** One informer's state, for readiness and metrics. */
export interface InformerStatus {
  kind: ReflectedKind;
  namespace: string;
  synced: boolean;
  restarts: number;
  /** Lists or watches failed in a row; 0 while it lists and watches. */
  failures: number;
  lastError: string;
  objects: number;
}

export interface InformerOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; empty means the whole cluster. */
  namespaces: readonly string[];
  /** Label selector applied to pods (by the API server); workload templates keep their labels to apply it too. */
  labelSelector?: string;
  watchTimeoutSeconds: number;
  watchIdleTimeoutMs: number;
  requestTimeoutMs: number;
  /** Backoff of restarts after failures. */
  restartMinDelayMs?: number;
  restartMaxDelayMs?: number;
  logger: Logger;
  /** The clock the reflectors read time and wait on; default the system clock. */
  clock?: Clock;
  /**
   * Cache the namespaces (get, list and watch on namespaces, cluster-wide) for the repository they name (handlers'
   * onNamespaceChange hear changes). Forbidden by RBAC: said once, and no namespace names one. Default: with an
   * onNamespaceChange option.
   */
  namespaceRepositories?: boolean;
}

/** What a handler of the informers' events hears (added with addEventHandler, as client-go's informers take them). */
export interface InformerEventHandler {
  /**
   * Every cache change (add, update, delete) with the object's kind, namespace and name, and whether what resolves
   * through it may resolve differently (false for an update resolvesAlike finds alike).
   */
  onChange?: (kind: WatchedKind, namespace: string, name: string, reachesDependents: boolean) => void;
  /** A watch or informer was restarted, with the reason. */
  onRestart?: (kind: WatchedKind, reason: RestartReason) => void;
  /** The repository a namespace names may have changed (with the namespace cache only). */
  onNamespaceChange?: (namespace: string) => void;
}

/** What the informers read of each of their reflectors, whatever its kind. */
interface CacheView {
  readonly kind: ReflectedKind;
  readonly namespace: string | undefined;
  readonly synced: boolean;
  readonly restarts: number;
  readonly failures: number;
  readonly lastError: string;
  readonly size: number;
  stop(): Promise<void>;
}

/** The informer caches, for the configured namespaces. */
export class ClusterInformers implements TrackedSnapshot {
  readonly #reflectors = new Map<WatchedKind, Reflector[]>();
  readonly #namespaces: Reflector<"Namespace"> | undefined;
  /** Callers of waitForSync and waitForOwners, until what they wait for holds. */
  readonly #waiters: { ready: () => boolean; resolve: () => void }[] = [];
  readonly #handlers: InformerEventHandler[] = [];
  #stopped = false;
  #synced = false;

  /** `options`' callbacks are the first handler (addEventHandler adds more). */
  constructor(private readonly options: InformerOptions & InformerEventHandler) {
    this.addEventHandler(options);
    const clock = options.clock ?? systemClock;
    const perNamespace = options.namespaces.length > 0 && options.namespaces.length <= MAX_NAMESPACED_WATCHES;
    const scopes = perNamespace ? [...options.namespaces] : [undefined];
    const kept = options.namespaces.length > MAX_NAMESPACED_WATCHES ? new Set(options.namespaces) : undefined;
    if (kept) {
      options.logger.info(
        { namespaces: kept.size, perNamespaceMax: MAX_NAMESPACED_WATCHES },
        "more namespaces than one watch each allows: watching cluster-wide and keeping only theirs",
      );
    }
    for (const kind of WATCHED_KINDS) {
      const reflectors = scopes.map(
        (namespace) =>
          new Reflector({
            kubeConfig: options.kubeConfig,
            kind,
            ...(namespace !== undefined ? { namespace } : {}),
            ...(kept ? { keepNamespace: (ns: string) => kept.has(ns) } : {}),
            ...(kind === "Pod" && options.labelSelector ? { labelSelector: options.labelSelector } : {}),
            watchTimeoutSeconds: options.watchTimeoutSeconds,
            watchIdleTimeoutMs: options.watchIdleTimeoutMs,
            requestTimeoutMs: options.requestTimeoutMs,
            restartMinDelayMs: options.restartMinDelayMs ?? 500,
            restartMaxDelayMs: options.restartMaxDelayMs ?? 30_000,
            projection: { templateLabels: options.labelSelector !== undefined },
            logger: options.logger,
            clock,
            onChange: (changed, namespace, name, reaches) => {
              for (const h of this.#handlers) h.onChange?.(changed, namespace, name, reaches);
            },
            onRestart: (restarted, reason) => {
              for (const h of this.#handlers) h.onRestart?.(restarted, reason);
            },
            onSynced: () => this.#checkSynced(),
          }),
      );
      this.#reflectors.set(kind, reflectors);
    }
    if (options.namespaceRepositories ?? options.onNamespaceChange !== undefined) {
      this.#namespaces = new Reflector({
        kubeConfig: options.kubeConfig,
        kind: "Namespace",
        watchTimeoutSeconds: options.watchTimeoutSeconds,
        watchIdleTimeoutMs: options.watchIdleTimeoutMs,
        requestTimeoutMs: options.requestTimeoutMs,
        restartMinDelayMs: options.restartMinDelayMs ?? 500,
        restartMaxDelayMs: options.restartMaxDelayMs ?? 30_000,
        projection: {},
        logger: options.logger,
        clock,
        onChange: (_kind, _namespace, name) => {
          for (const h of this.#handlers) h.onNamespaceChange?.(name);
        },
        onSynced: () => this.#checkSynced(),
        onForbidden: (error) =>
          options.logger.error(
            { kind: "Namespace", err: error.message, rbac: "get, list and watch on namespaces (a ClusterRole)" },
            "listing namespaces is forbidden: namespace labels and annotations shiplog.dev/repository are not read until it is granted",
          ),
      });
    }
  }

  /** Adds a handler of cache changes and restarts (before start, so it hears every change). */
  addEventHandler(handler: InformerEventHandler): void {
    this.#handlers.push(handler);
  }

  #all(): CacheView[] {
    const all: CacheView[] = [...this.#reflectors.values()].flat();
    if (this.#namespaces) all.push(this.#namespaces);
    return all;
  }

  /** The repository a namespace's label or annotation names (undefined without the namespace cache). */
  namespaceRepository(namespace: string): string | undefined {
    return this.#namespaces?.get("", namespace)?.metadata.annotations?.[NAMESPACE_REPOSITORY_KEY];
  }

  #checkSynced(): void {
    if (this.synced) this.options.logger.info({ informers: this.#all().length }, "informer caches synced");
    for (const w of this.#waiters.splice(0)) {
      if (w.ready()) w.resolve();
      else this.#waiters.push(w);
    }
  }

  /** True once every informer has completed its first list (and from then on: a reflector stays synced). */
  get synced(): boolean {
    this.#synced ||= this.#all().every((r) => r.synced);
    return this.#synced;
  }

  /** True once every cache but the pods' has its first list (pods resolve to their workloads from here on). */
  get ownersSynced(): boolean {
    return (
      (this.#namespaces?.synced ?? true) &&
      [...this.#reflectors].every(([kind, reflectors]) => kind === "Pod" || reflectors.every((r) => r.synced))
    );
  }

  /**
   * Starts every informer, the pods' once the workloads are listed; returns at once (see waitForSync). The
   * workloads go first so that the pods listed next resolve to them at once and rounds can post while the pod list,
   * by far the longest, goes on (flush/loop.ts, partial rounds).
   */
  start(): void {
    if (this.#stopped) return;
    this.#namespaces?.start();
    for (const [kind, reflectors] of this.#reflectors) if (kind !== "Pod") for (const r of reflectors) r.start();
    void this.waitForOwners().then(() => {
      if (!this.#stopped) for (const r of this.#reflectors.get("Pod")!) r.start();
    });
  }

  /** Resolves once every cache has been filled by a first list. */
  waitForSync(): Promise<void> {
    return this.#until(() => this.synced);
  }

  /** Resolves once every cache but the pods' has been filled by a first list. */
  waitForOwners(): Promise<void> {
    return this.#until(() => this.ownersSynced);
  }

  #until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ ready, resolve }));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#all().map((r) => r.stop()));
  }

  /** Per-informer state, for health and metrics. */
  status(): InformerStatus[] {
    return this.#all().map((r) => ({
      kind: r.kind,
      namespace: r.namespace ?? "",
      synced: r.synced,
      restarts: r.restarts,
      failures: r.failures,
      lastError: r.lastError,
      objects: r.size,
    }));
  }

  *pods(): Iterable<Pod> {
    for (const reflector of this.#reflectors.get("Pod")!) yield* reflector.list() as Iterable<Pod>;
  }

  *workloads(): Iterable<{ kind: WorkloadKind; object: Workload | Job | CronJob }> {
    for (const kind of WORKLOAD_KINDS) {
      for (const reflector of this.#reflectors.get(kind)!) {
        for (const object of reflector.list()) yield { kind, object: object as Workload | Job | CronJob };
      }
    }
  }

  /** A cached object of any watched kind. */
  object(kind: WatchedKind, namespace: string, name: string): Pod | Workload | Job | CronJob | undefined {
    for (const reflector of this.#reflectors.get(kind) ?? []) {
      const found = reflector.get(namespace, name);
      if (found) return found;
    }
    return undefined;
  }

  get(kind: WatchedKind, namespace: string, name: string): never {
    return this.object(kind, namespace, name) as never;
  }
}
