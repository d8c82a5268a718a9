import type { ServerResponse } from "node:http";
import type { StoreEvent } from "./history-log.js";
import type { KubeObject } from "./kube-object.js";
import { objectJson } from "./kube-object.js";
import type { ObjectStore } from "./object-store.js";
import { kindOf } from "./object-store.js";
import type { ResourceName } from "./resource-kinds.js";
import { apiVersionOf } from "./resource-kinds.js";
import type { ObjectFilter } from "./selectors.js";
import { matchesFilter } from "./selectors.js";
import { ApiError, badRequest } from "./status.js";

/** How long the API server's watch cache waits for a future resourceVersion before refusing it (client-go: 3 s). */
export const TOO_LARGE_RV_WAIT_MS = 3000;

/**
 * What the API server says to a watch at a resourceVersion it has not reached (storage.NewTooLargeResourceVersionError):
 * 504 Timeout, cause ResourceVersionTooLarge, retry after 1 s. client-go's reflector relists on it.
 */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  const error = new ApiError(504, "Timeout", `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
  });
  (error.details as { retryAfterSeconds?: number }).retryAfterSeconds = 1;
  return error;
}

/** What a watch request asked for. */
export interface WatchRequest {
  resource: ResourceName;
  filter: ObjectFilter;
  resourceVersion: string | undefined;
  timeoutSeconds: number | undefined;
  allowBookmarks: boolean;
}

type EventType = "ADDED" | "MODIFIED" | "DELETED";

/** How an event looks through a filter: selector transitions become ADDED/DELETED, like the watch cache does. */
export function filteredEvent(filter: ObjectFilter, event: StoreEvent): { type: EventType; object: KubeObject } | undefined {
  const prevMatch = event.prev !== undefined && matchesFilter(filter, event.prev);
  if (event.type === "DELETED") return prevMatch ? { type: "DELETED", object: event.object } : undefined;
  const nowMatch = matchesFilter(filter, event.object);
  if (nowMatch) return { type: event.type === "MODIFIED" && prevMatch ? "MODIFIED" : "ADDED", object: event.object };
  return prevMatch ? { type: "DELETED", object: event.object } : undefined;
}

function eventLine(type: string, object: KubeObject): string {
  return `{"type":"${type}","object":${objectJson(object)}}\n`;
}

/** One open watch stream. */
class Watcher {
  hung = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    readonly request: WatchRequest,
    readonly res: ServerResponse,
    private readonly store: ObjectStore,
  ) {}

  deliver(event: StoreEvent): void {
    if (this.hung || event.resource !== this.request.resource) return;
    const out = filteredEvent(this.request.filter, event);
    if (out) this.res.write(eventLine(out.type, out.object));
  }

  bookmark(): void {
    if (this.hung || !this.request.allowBookmarks) return;
    const kind = kindOf(this.request.resource);
    const object = { kind: kind.kind, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(this.store.currentRv()) } };
    this.res.write(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  addTimer(timer: NodeJS.Timeout): void {
    this.timers.push(timer);
  }

  clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }
}

/** Fault switches the watch hub consults for new streams. */
export interface WatchFaults {
  expiredResponse: "event" | "http";
  hung: (resource: ResourceName) => boolean;
}

/**
 * All open watch streams: replay from the bounded history (410 Expired once compacted), initial ADDED events
 * for watches without a resourceVersion, live events, BOOKMARKs, timeoutSeconds, and the fault operations.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  private waiters: { resource: ResourceName | undefined; count: number; resolve: () => void }[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly faults: WatchFaults,
    private readonly bookmarkIntervalMs: number,
  ) {
    store.subscribe((e) => {
      for (const w of this.watchers) w.deliver(e);
    });
  }

  /** Serves a watch on a hijacked response. Throws ApiError (before any byte is written) for bad requests. */
  open(request: WatchRequest, res: ServerResponse): void {
    let initial: string[];
    const rvText = request.resourceVersion;
    if (rvText === undefined || rvText === "" || rvText === "0") {
      initial = this.store.list(request.resource, request.filter).map((o) => eventLine("ADDED", o));
    } else {
      const rv = Number(rvText);
      if (!Number.isInteger(rv) || rv < 0) throw badRequest(`resourceVersion: Invalid value: "${rvText}": must be an integer`);
      if (rv > this.store.currentRv()) {
        this.openAhead(request, res, rv);
        return;
      }
      try {
        initial = [];
        for (const e of this.store.history.since(rv)) {
          if (e.resource !== request.resource) continue;
          const out = filteredEvent(request.filter, e);
          if (out) initial.push(eventLine(out.type, out.object));
        }
      } catch (error) {
        if (this.faults.expiredResponse === "http") throw error;
        // The real server answers 200, then one ERROR event carrying the 410 Status, then ends.
        this.writeHead(res);
        res.end(`{"type":"ERROR","object":${JSON.stringify((error as ApiError).toStatus())}}\n`);
        return;
      }
    }
    this.writeHead(res);
    const watcher = new Watcher(request, res, this.store);
    if (this.faults.hung(request.resource)) watcher.hung = true;
    else for (const line of initial) res.write(line);
    this.watchers.add(watcher);
    res.on("close", () => {
      watcher.clearTimers();
      this.watchers.delete(watcher);
    });
    if (request.timeoutSeconds !== undefined && request.timeoutSeconds > 0) {
      watcher.addTimer(
        setTimeout(() => {
          if (watcher.hung) return;
          watcher.bookmark();
          res.end();
        }, request.timeoutSeconds * 1000),
      );
    }
    if (request.allowBookmarks) {
      const timer = setInterval(() => watcher.bookmark(), this.bookmarkIntervalMs);
      timer.unref();
      watcher.addTimer(timer);
    }
    this.checkWaiters();
  }

  /**
   * A watch ahead of the store: as the watch cache, wait up to TOO_LARGE_RV_WAIT_MS for the store to reach it, then
   * answer 200 with one ERROR event carrying the 504 "Too large resource version" Status (the cacher's errWatcher).
   */
  private openAhead(request: WatchRequest, res: ServerResponse, rv: number): void {
    this.writeHead(res);
    let unsubscribe = (): void => {};
    const timer = setTimeout(() => {
      unsubscribe();
      if (res.destroyed) return;
      res.end(`{"type":"ERROR","object":${JSON.stringify(tooLargeResourceVersion(rv, this.store.currentRv()).toStatus())}}\n`);
    }, TOO_LARGE_RV_WAIT_MS);
    unsubscribe = this.store.subscribe(() => {
      if (this.store.currentRv() < rv) return;
      clearTimeout(timer);
      unsubscribe();
      // Caught up: serve the watch as usual (nothing newer than rv has happened yet).
      const watcher = new Watcher(request, res, this.store);
      this.watchers.add(watcher);
      res.on("close", () => {
        watcher.clearTimers();
        this.watchers.delete(watcher);
      });
    });
    res.on("close", () => {
      clearTimeout(timer);
      unsubscribe();
    });
  }

  private writeHead(res: ServerResponse): void {
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
  }

  /** Number of open streams (for one resource or all). */
  count(resource?: ResourceName): number {
    let n = 0;
    for (const w of this.watchers) if (resource === undefined || w.request.resource === resource) n++;
    return n;
  }

  /** Resolves once at least `count` streams are open. */
  waitFor(resource: ResourceName | undefined, count: number): Promise<void> {
    if (this.count(resource) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ resource, count, resolve }));
  }

  private checkWaiters(): void {
    this.waiters = this.waiters.filter((w) => {
      if (this.count(w.resource) < w.count) return true;
      w.resolve();
      return false;
    });
  }

  /** Sends a BOOKMARK now on every stream that allows them. */
  sendBookmarks(): void {
    for (const w of this.watchers) w.bookmark();
  }

  /** Ends streams: "destroy" cuts the socket mid-stream, "end" closes cleanly. Returns how many. */
  cut(resource: ResourceName | undefined, mode: "destroy" | "end"): number {
    let n = 0;
    for (const w of [...this.watchers]) {
      if (resource !== undefined && w.request.resource !== resource) continue;
      n++;
      this.watchers.delete(w);
      w.clearTimers();
      if (mode === "destroy") w.res.destroy();
      else w.res.end();
    }
    return n;
  }

  /** Silences open streams (nothing more is sent, no timeout). */
  hang(resource: ResourceName | undefined): void {
    for (const w of this.watchers) if (resource === undefined || w.request.resource === resource) w.hung = true;
  }

  /** Ends silenced streams cleanly, so clients re-watch and replay what they missed. */
  release(): void {
    for (const w of [...this.watchers]) {
      if (!w.hung) continue;
      this.watchers.delete(w);
      w.clearTimers();
      w.res.end();
    }
  }

  /** Closes everything (server stop). */
  closeAll(): void {
    this.cut(undefined, "end");
  }
}
