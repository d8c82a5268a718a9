import type { KubeObject } from "./kube-object.js";
import type { StoredObject } from "./object-table.js";

/**
 * Keeps the decoded form of the most recently touched objects, so the simulated controllers (which read what was
 * just written) do not parse JSON on every step; everything else stays as text. A ring: remembering an object
 * evicts the one remembered `capacity` calls ago, unless that one was remembered again since.
 */
export class ParseCache {
  private readonly ring: (StoredObject | undefined)[];
  private next = 0;

  constructor(private readonly capacity: number) {
    this.ring = new Array<StoredObject | undefined>(capacity).fill(undefined);
  }

  /** The decoded object (do not mutate): from the cache, or parsed now and remembered. */
  decode(record: StoredObject): KubeObject {
    if (record.parsed !== undefined) return record.parsed;
    const parsed = JSON.parse(record.json) as KubeObject;
    this.remember(record, parsed);
    return parsed;
  }

  /** Caches `parsed` as the decoded form of `record.json` (the store calls this on every write). */
  remember(record: StoredObject, parsed: KubeObject): void {
    record.parsed = parsed;
    const slot = this.next;
    const evicted = this.ring[slot];
    if (evicted !== undefined && evicted !== record && evicted.cacheSlot === slot) {
      evicted.parsed = undefined;
      evicted.cacheSlot = -1;
    }
    this.ring[slot] = record;
    record.cacheSlot = slot;
    this.next = (slot + 1) % this.capacity;
  }

  /** Forgets a record (its object was removed). */
  forget(record: StoredObject): void {
    if (record.cacheSlot >= 0 && this.ring[record.cacheSlot] === record) this.ring[record.cacheSlot] = undefined;
    record.parsed = undefined;
    record.cacheSlot = -1;
  }
}
