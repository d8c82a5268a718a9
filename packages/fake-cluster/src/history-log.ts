import type { KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";
import { RESOURCE_NAMES } from "./resource-kinds.js";
import { expired } from "./status.js";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

/** One logged change, serialized: what watches replay and what older list pages undo. */
export interface LoggedEvent {
  rv: number;
  type: EventType;
  resource: ResourceName;
  /** The store key (`namespace/name`, or `name` for cluster-scoped resources). */
  key: string;
  /** JSON of the new (or final) state. */
  json: string;
  /** JSON of the state before (undefined for ADDED). */
  prevJson: string | undefined;
}

/** One change to the store as in-process subscribers (controllers, watches) see it: the logged event, decoded. */
export interface StoreEvent extends LoggedEvent {
  /** New state (for DELETED: the final state, with the deletion's resourceVersion). */
  object: KubeObject;
  /** State before the change (undefined for ADDED); lets selector watches turn transitions into ADDED/DELETED. */
  prev: KubeObject | undefined;
}

const TYPES: readonly EventType[] = ["ADDED", "MODIFIED", "DELETED"];
const RESOURCE_INDEX = new Map<ResourceName, number>(RESOURCE_NAMES.map((r, i) => [r, i]));

/**
 * Bounded, ordered history of store events as a ring of columns: JSON texts are the ones the store holds (shared, not
 * copied), type and resource are bytes. Events are numbered by a sequence that never repeats, so a reader's cursor
 * stays meaningful while the ring wraps; resourceVersions at or below `compactedRv` are gone (410).
 */
export class HistoryLog {
  private readonly rvs: Float64Array;
  private readonly types: Uint8Array;
  private readonly resources: Uint8Array;
  private readonly keys: (string | undefined)[];
  private readonly jsons: (string | undefined)[];
  private readonly prevJsons: (string | undefined)[];
  /** Sequence number of the oldest kept event, and of the next event to append. */
  private tail = 0;
  private head = 0;
  compactedRv: number;
  /** Counts compactions: sequence numbers and resourceVersions read before one may mean something else after it. */
  epoch = 0;

  constructor(
    private readonly limit: number,
    startRv: number,
  ) {
    this.compactedRv = startRv;
    this.rvs = new Float64Array(limit);
    this.types = new Uint8Array(limit);
    this.resources = new Uint8Array(limit);
    this.keys = new Array<string | undefined>(limit).fill(undefined);
    this.jsons = new Array<string | undefined>(limit).fill(undefined);
    this.prevJsons = new Array<string | undefined>(limit).fill(undefined);
  }

  /** Appends an event, dropping the oldest one when full. */
  append(event: LoggedEvent): void {
    if (this.head - this.tail === this.limit) {
      this.compactedRv = this.rvs[this.tail % this.limit]!;
      this.tail++;
    }
    const slot = this.head % this.limit;
    this.rvs[slot] = event.rv;
    this.types[slot] = TYPES.indexOf(event.type);
    this.resources[slot] = RESOURCE_INDEX.get(event.resource)!;
    this.keys[slot] = event.key;
    this.jsons[slot] = event.json;
    this.prevJsons[slot] = event.prevJson;
    this.head++;
  }

  /** Drops everything: any resourceVersion before `rv` becomes too old. */
  compact(rv: number): void {
    for (let seq = this.tail; seq < this.head; seq++) {
      const slot = seq % this.limit;
      this.keys[slot] = this.jsons[slot] = this.prevJsons[slot] = undefined;
    }
    this.tail = this.head;
    this.compactedRv = rv;
    this.epoch++;
  }

  /** Number of events kept. */
  size(): number {
    return this.head - this.tail;
  }

  /** Sequence number the next appended event gets. */
  end(): number {
    return this.head;
  }

  /** Sequence number of the oldest kept event (a reader behind it has lost events). */
  start(): number {
    return this.tail;
  }

  /** Sequence number of the first event newer than `rv`; throws 410 Expired when `rv` predates the kept history. */
  seqAfter(rv: number): number {
    if (rv < this.compactedRv) throw expired(`too old resource version: ${rv} (${this.compactedRv + 1})`);
    let lo = this.tail;
    let hi = this.head;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.rvs[mid % this.limit]! <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Resource of a kept event (cheap filter before `at`). */
  resourceAt(seq: number): ResourceName {
    return RESOURCE_NAMES[this.resources[seq % this.limit]!]!;
  }

  /** The kept event numbered `seq`. */
  at(seq: number): LoggedEvent {
    const slot = seq % this.limit;
    return {
      rv: this.rvs[slot]!,
      type: TYPES[this.types[slot]!]!,
      resource: RESOURCE_NAMES[this.resources[slot]!]!,
      key: this.keys[slot]!,
      json: this.jsons[slot]!,
      prevJson: this.prevJsons[slot],
    };
  }
}
