import type { KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";
import { expired } from "./status.js";

/** One change to the store, as watches see it. */
export interface StoreEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: ResourceName;
  /** New state (for DELETED: the final state, with the deletion's resourceVersion). */
  object: KubeObject;
  /** State before the change (undefined for ADDED); lets selector watches turn transitions into ADDED/DELETED. */
  prev: KubeObject | undefined;
  rv: number;
}

/** Bounded, ordered history of store events; resourceVersions at or below `compactedRv` are gone (410). */
export class HistoryLog {
  private events: StoreEvent[] = [];
  private head = 0;
  compactedRv: number;

  constructor(
    private readonly limit: number,
    startRv: number,
  ) {
    this.compactedRv = startRv;
  }

  /** Appends an event, dropping the oldest ones beyond the limit. */
  append(event: StoreEvent): void {
    this.events.push(event);
    const size = this.events.length - this.head;
    if (size > this.limit) {
      const drop = size - this.limit;
      this.compactedRv = this.events[this.head + drop - 1]!.rv;
      this.head += drop;
      // Reclaim the array's dead prefix now and then rather than shifting on every append.
      if (this.head > 4096 && this.head * 2 > this.events.length) {
        this.events = this.events.slice(this.head);
        this.head = 0;
      }
    }
  }

  /** Drops everything: any resourceVersion before `rv` becomes too old. */
  compact(rv: number): void {
    this.events = [];
    this.head = 0;
    this.compactedRv = rv;
  }

  /** Number of events kept. */
  size(): number {
    return this.events.length - this.head;
  }

  /** Events newer than `rv`, oldest first; throws 410 Expired when `rv` predates the kept history. */
  since(rv: number): StoreEvent[] {
    if (rv < this.compactedRv) throw expired(`too old resource version: ${rv} (${this.compactedRv + 1})`);
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }
}
