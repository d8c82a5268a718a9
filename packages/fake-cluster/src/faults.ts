import type { ConnectionGate } from "./connection-gate.js";
import type { ObjectStore } from "./object-store.js";
import type { ResourceName } from "./resource-kinds.js";
import { ApiError } from "./status.js";
import type { WatchFaults, WatchHub } from "./watch-stream.js";

interface FailureRule {
  remaining: number;
  resource: ResourceName | undefined;
  code: number;
}

const REASONS: Record<number, string> = {
  403: "Forbidden",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** Fault state consulted by the routes and the watch hub. */
export class FaultState implements WatchFaults {
  expiredResponse: "event" | "http" = "event";
  listFailures: FailureRule[] = [];
  watchFailures: FailureRule[] = [];
  hungResources: Set<ResourceName> | "all" | undefined;

  hung(resource: ResourceName): boolean {
    return this.hungResources === "all" || (this.hungResources?.has(resource) ?? false);
  }

  /** Consumes one matching failure rule; returns the error to answer with. */
  takeFailure(kind: "list" | "watch", resource: ResourceName): ApiError | undefined {
    const rules = kind === "list" ? this.listFailures : this.watchFailures;
    const rule = rules.find((r) => r.remaining > 0 && (r.resource === undefined || r.resource === resource));
    if (!rule) return undefined;
    rule.remaining--;
    return new ApiError(rule.code, REASONS[rule.code] ?? "InternalError", `fake-cluster: injected ${kind} failure for ${resource}`);
  }
}

/** Fault hooks for tests and the demo (see README). */
export class ClusterFaults {
  constructor(
    private readonly state: FaultState,
    private readonly watches: WatchHub,
    private readonly store: ObjectStore,
    private readonly gate: ConnectionGate,
  ) {}

  /** Ends open watch streams: "destroy" cuts the socket mid-stream (default), "end" closes cleanly. Returns the count. */
  cutWatches(options: { resource?: ResourceName; mode?: "destroy" | "end" } = {}): number {
    return this.watches.cut(options.resource, options.mode ?? "destroy");
  }

  /** Closes the listener and destroys every connection; listens again after `forMs` if given. */
  refuseConnections(options: { forMs?: number } = {}): Promise<void> {
    return this.gate.refuse(options.forMs);
  }

  /** Listens again on the same port. */
  acceptConnections(): Promise<void> {
    return this.gate.accept();
  }

  /** The next `count` list requests (optionally for one resource) fail with a Status body (default 500). */
  failLists(count: number, options: { resource?: ResourceName; code?: number } = {}): void {
    this.state.listFailures.push({ remaining: count, resource: options.resource, code: options.code ?? 500 });
  }

  /** The next `count` watch requests fail with an HTTP error and Status body (default 500). */
  failWatches(count: number, options: { resource?: ResourceName; code?: number } = {}): void {
    this.state.watchFailures.push({ remaining: count, resource: options.resource, code: options.code ?? 500 });
  }

  /** Open and new watches (optionally of one resource) go silent: headers flushed, nothing sent, no timeout. */
  hangWatches(options: { resource?: ResourceName } = {}): void {
    if (options.resource === undefined) this.state.hungResources = "all";
    else if (this.state.hungResources !== "all")
      this.state.hungResources = new Set([...(this.state.hungResources ?? []), options.resource]);
    this.watches.hang(options.resource);
  }

  /** Stops hanging: silenced streams end cleanly, new watches work again. */
  releaseWatches(): void {
    this.state.hungResources = undefined;
    this.watches.release();
  }

  /** Drops the watch history: any older resourceVersion gets 410 Expired. */
  compactHistory(): void {
    this.store.compactHistory();
  }

  /**
   * Restarts the resourceVersion sequence at `rv` (default: a tenth of the current one), lower than any a client
   * holds, and ends every watch as an API server restart does. Watches resumed at an old resourceVersion are then
   * ahead of the server and answered "Too large resource version".
   */
  restartHistory(rv?: number): number {
    const next = rv ?? Math.max(1, Math.floor(this.store.currentRv() / 10));
    this.store.restartHistory(next);
    this.watches.cut(undefined, "end");
    return next;
  }

  /** How an expired resourceVersion is answered: in-stream ERROR event (default) or HTTP 410. */
  expiredResponse(mode: "event" | "http"): void {
    this.state.expiredResponse = mode;
  }

  /** Clears every fault (and reopens the listener if it was closed). */
  async reset(): Promise<void> {
    this.state.listFailures = [];
    this.state.watchFailures = [];
    this.state.expiredResponse = "event";
    this.releaseWatches();
    await this.gate.accept();
  }
}
