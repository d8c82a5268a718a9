import type { ServerResponse } from "node:http";
import type { EventType, LoggedEvent, StoreEvent } from "./history-log.js";
import type { KubeObject } from "./kube-object.js";
import type { ListPages } from "./list-pages.js";
import { formatEventObject, type OutputForm } from "./output-form.js";
import type { ObjectStore } from "./object-store.js";
import { kindOf } from "./object-store.js";
import type { ResourceKind, ResourceName } from "./resource-kinds.js";
import { viewJson } from "./events-view.js";
import { apiVersionOf } from "./resource-kinds.js";
import type { ObjectFilter } from "./selectors.js";
import { matchesFilter } from "./selectors.js";
import { ApiError, badRequest } from "./status.js";

/** How long the API server's watch cache waits for a list's future resourceVersion before refusing it (3 s). */
export const TOO_LARGE_RV_WAIT_MS = 3000;

/**
 * What the API server says to a list at a resourceVersion it has not reached (storage.NewTooLargeResourceVersionError):
 * 504 Timeout, cause ResourceVersionTooLarge, retry after 1 s. (A watch at such a version is not refused: it waits.)
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
  /** The form of each event's object (Accept): the object, a Table of it, or its metadata alone. */
  form?: OutputForm;
  /** A Table row's object (`includeObject`). */
  includeObject?: string | undefined;
  /** The API whose view of the objects the events carry (events.k8s.io/v1 Events), when not the stored kind's. */
  view?: ResourceKind;
}

/** Bytes queued on a socket before a watcher stops writing and waits for it to drain (reading on from the log). */
const MAX_BUFFERED = 1 << 20;

/** How an event looks through a filter: selector transitions become ADDED/DELETED, like the watch cache does. */
export function filteredEvent(filter: ObjectFilter, event: StoreEvent): { type: EventType; json: string } | undefined {
  const prevMatch = event.prev !== undefined && matchesFilter(filter, event.prev);
  if (event.type === "DELETED") return prevMatch ? { type: "DELETED", json: event.json } : undefined;
  const nowMatch = matchesFilter(filter, event.object);
  if (nowMatch) return { type: event.type === "MODIFIED" && prevMatch ? "MODIFIED" : "ADDED", json: event.json };
  return prevMatch ? { type: "DELETED", json: event.json } : undefined;
}

/** The same for a logged event: decoded only when the filter looks at labels or fields (a namespace is in the key). */
function filteredLogEvent(filter: ObjectFilter, event: LoggedEvent): { type: EventType; json: string } | undefined {
  if (filter.labels === undefined && filter.fields === undefined) {
    const inNamespace = filter.namespace === undefined || event.key.startsWith(`${filter.namespace}/`);
    return inNamespace ? { type: event.type, json: event.json } : undefined;
  }
  const object = JSON.parse(event.json) as KubeObject;
  const prev = event.prevJson === undefined ? undefined : (JSON.parse(event.prevJson) as KubeObject);
  return filteredEvent(filter, { ...event, object, prev });
}

const eventLine = (type: string, json: string): string => `{"type":"${type}","object":${json}}\n`;

/**
 * One open watch stream: a cursor over the history log. Events are written as they happen while the client keeps
 * up; when the socket backs up, the watcher stops and reads on from the log once it drains, so a slow client costs
 * a position, not a queue. Replays (a resourceVersion to start from, or the initial ADDED events) stream the same
 * way. A watcher that falls behind the kept history is ended, as the API server drops an unresponsive watcher; the
 * client re-watches from its last resourceVersion (and relists on 410).
 */
class Watcher {
  hung = false;
  /** Cancels this stream's timers (its timeout, its BOOKMARKs). */
  private timers: (() => void)[] = [];
  private waiting = false;

  constructor(
    readonly request: WatchRequest,
    readonly res: ServerResponse,
    private readonly store: ObjectStore,
    /** Sequence number of the next history event to look at. */
    private cursor: number,
    /** JSON of the objects still to send as ADDED before the history (a watch without resourceVersion). */
    private initial: readonly string[] = [],
  ) {}

  private initialSent = 0;

  /** True while it waits for its socket to drain (the client is behind). */
  get backedUp(): boolean {
    return this.waiting && !this.hung && !this.res.destroyed;
  }

  /** True when everything up to the store's present has been handled. */
  private caughtUp(): boolean {
    return !this.waiting && this.initialSent === this.initial.length && this.cursor === this.store.history.end();
  }

  /** A store event: written now when this watcher is current, else picked up from the log. */
  deliver(event: StoreEvent): void {
    if (this.hung || this.waiting || this.initialSent < this.initial.length || this.res.writableEnded) return;
    if (this.cursor !== this.store.history.end() - 1) {
      this.pump();
      return;
    }
    this.cursor++;
    if (event.resource !== this.request.resource) return;
    const out = filteredEvent(this.request.filter, event);
    if (out) this.write(out.type, out.json);
  }

  /** Writes what is due (initial objects, then history from the cursor) until the socket backs up. */
  pump(): void {
    if (this.hung || this.waiting || this.res.writableEnded || this.res.destroyed) return;
    while (this.initialSent < this.initial.length) {
      if (!this.write("ADDED", this.initial[this.initialSent++]!)) return;
    }
    this.initial = [];
    this.initialSent = 0;
    const history = this.store.history;
    if (this.cursor < history.start()) {
      this.res.end();
      return;
    }
    while (this.cursor < history.end()) {
      const seq = this.cursor++;
      if (history.resourceAt(seq) !== this.request.resource) continue;
      const out = filteredLogEvent(this.request.filter, history.at(seq));
      if (out && !this.write(out.type, out.json)) return;
    }
  }

  /** Writes one event line; false (and a pump on drain) when the socket has backed up. */
  private write(type: EventType, stored: string): boolean {
    const { form, resource, includeObject, view } = this.request;
    const json = view ? viewJson(view, stored) : stored;
    this.res.write(eventLine(type, form ? formatEventObject(form, resource, json, includeObject, this.store.clock.now()) : json));
    if (this.res.writableLength <= MAX_BUFFERED) return true;
    this.waiting = true;
    this.res.once("drain", () => {
      this.waiting = false;
      this.pump();
    });
    return false;
  }

  /** A BOOKMARK at the current resourceVersion, only when every earlier event has been sent. */
  bookmark(): void {
    if (this.hung || !this.request.allowBookmarks || !this.caughtUp()) return;
    const kind = this.request.view ?? kindOf(this.request.resource);
    const object = { kind: kind.kind, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(this.store.currentRv()) } };
    this.res.write(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  /** Keeps a timer's cancel function, to be called when the stream ends. */
  addTimer(cancel: () => void): void {
    this.timers.push(cancel);
  }

  /** Cancels every timer of the stream. */
  clearTimers(): void {
    for (const cancel of this.timers) cancel();
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
    private readonly pages: ListPages,
    private readonly faults: WatchFaults,
    private readonly bookmarkIntervalMs: number,
  ) {
    store.subscribe((e) => {
      for (const w of this.watchers) w.deliver(e);
    });
  }

  /** Serves a watch on a hijacked response. Throws ApiError (before any byte is written) for bad requests. */
  open(request: WatchRequest, res: ServerResponse): void {
    const rvText = request.resourceVersion;
    let watcher: Watcher;
    if (rvText === undefined || rvText === "" || rvText === "0") {
      const initial = this.pages.read({ resource: request.resource, filter: request.filter, limit: 0 }).items;
      watcher = new Watcher(request, res, this.store, this.store.history.end(), initial);
    } else {
      const rv = Number(rvText);
      if (!Number.isInteger(rv) || rv < 0) throw badRequest(`resourceVersion: Invalid value: "${rvText}": must be an integer`);
      if (rv > this.store.currentRv()) {
        this.openAhead(request, res, rv);
        return;
      }
      let cursor: number;
      try {
        cursor = this.store.history.seqAfter(rv);
      } catch (error) {
        if (this.faults.expiredResponse === "http") throw error;
        // The real server answers 200, then one ERROR event carrying the 410 Status, then ends.
        this.writeHead(res);
        res.end(`{"type":"ERROR","object":${JSON.stringify((error as ApiError).toStatus())}}\n`);
        return;
      }
      watcher = new Watcher(request, res, this.store, cursor);
    }
    this.writeHead(res);
    this.start(watcher, request.timeoutSeconds);
  }

  /** Serves an open stream: what is due now, then live events, BOOKMARKs, and the end at `timeoutSeconds`. */
  private start(watcher: Watcher, timeoutSeconds: number | undefined): void {
    const { request, res } = watcher;
    if (this.faults.hung(request.resource)) watcher.hung = true;
    this.serve(watcher);
    watcher.pump();
    const clock = this.store.clock;
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
      watcher.addTimer(
        clock.after(timeoutSeconds * 1000, () => {
          if (watcher.hung) return;
          watcher.bookmark();
          res.end();
        }),
      );
    }
    if (request.allowBookmarks) watcher.addTimer(clock.every(this.bookmarkIntervalMs, () => watcher.bookmark()));
    this.checkWaiters();
  }

  /** Registers an open stream until its connection closes. */
  private serve(watcher: Watcher): void {
    this.watchers.add(watcher);
    watcher.res.on("close", () => {
      watcher.clearTimers();
      this.watchers.delete(watcher);
    });
  }

  /**
   * A watch ahead of the store, as the API server (v1.37) serves it: 200, then nothing (no event, no BOOKMARK) until
   * the store reaches that resourceVersion, from where it goes on as any watch; or, should it never, a clean end at
   * `timeoutSeconds`. No ERROR: "Too large resource version" (504) is only what a list at such a version gets.
   */
  private openAhead(request: WatchRequest, res: ServerResponse, rv: number): void {
    this.writeHead(res);
    const clock = this.store.clock;
    const opened = clock.now();
    let unsubscribe = (): void => {};
    const timeoutMs = request.timeoutSeconds === undefined || request.timeoutSeconds <= 0 ? undefined : request.timeoutSeconds * 1000;
    const cancelTimer =
      timeoutMs === undefined
        ? () => {}
        : clock.after(timeoutMs, () => {
            unsubscribe();
            res.end();
          });
    unsubscribe = this.store.subscribe(() => {
      if (this.store.currentRv() < rv) return;
      cancelTimer();
      unsubscribe();
      if (res.destroyed || res.writableEnded) return;
      // Caught up: serve the watch as usual (nothing newer than rv has happened yet), for the time it has left.
      const left = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (clock.now() - opened)) / 1000;
      this.start(new Watcher(request, res, this.store, this.store.history.end()), left);
    });
    res.on("close", () => {
      cancelTimer();
      unsubscribe();
    });
  }

  private writeHead(res: ServerResponse): void {
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
  }

  /** True while some open stream waits for its client to read (the control loop slows down meanwhile). */
  backedUp(): boolean {
    for (const w of this.watchers) if (w.backedUp) return true;
    return false;
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
