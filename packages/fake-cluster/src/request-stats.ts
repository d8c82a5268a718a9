import type { ResourceName } from "./resource-kinds.js";

/** Counters of list and watch requests per resource (lets tests see relists and re-watches). */
export class RequestStats {
  private readonly lists = new Map<ResourceName, number>();
  private readonly watches = new Map<ResourceName, number>();

  /** Counts one request. */
  count(kind: "list" | "watch", resource: ResourceName): void {
    const map = kind === "list" ? this.lists : this.watches;
    map.set(resource, (map.get(resource) ?? 0) + 1);
  }

  /** Snapshot of the counters. */
  snapshot(): { lists: Partial<Record<ResourceName, number>>; watches: Partial<Record<ResourceName, number>> } {
    return { lists: Object.fromEntries(this.lists), watches: Object.fromEntries(this.watches) };
  }
}
