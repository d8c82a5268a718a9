import type { KubeObject } from "./kube-object.js";
import { kindOf } from "./object-store.js";
import type { ObjectStore } from "./object-store.js";
import { namespaceRange, searchKeys } from "./object-table.js";
import type { ResourceName } from "./resource-kinds.js";
import type { ObjectFilter } from "./selectors.js";
import { matchesFilter } from "./selectors.js";

/** What a list request reads. */
export interface PageQuery {
  resource: ResourceName;
  filter: ObjectFilter;
  /** Most items to return; 0 for all. */
  limit: number;
  /** The key the page starts after (a continue token's position). */
  after?: string | undefined;
  /** Read the collection as it was at this resourceVersion (a continued list); undefined: as it is now. */
  rv?: number | undefined;
}

/** One page of a collection. */
export interface ListPage {
  /** JSON texts of the items, in key order (the store's own strings: nothing is copied). */
  items: string[];
  /** Set when keys remain after the page: the key the next page starts after. */
  continueAfter?: string;
  /** Objects after the page; only for lists without label or field selectors, as the API server counts. */
  remaining?: number;
}

/** The state at a past resourceVersion of every key changed since (null: absent then), built from the history. */
interface Snapshot {
  epoch: number;
  undo: Map<string, string | null>;
  /** History sequence number read up to (exclusive). */
  through: number;
}

const SNAPSHOTS_KEPT = 8;

/**
 * Reads collections as the API server reads etcd: keys in order from a start key, at the current revision or at an
 * older one (the changes since undone from the history log), filtered, up to a limit. A continue token is due
 * whenever keys remain in the range, matching or not, and `remainingItemCount` is given only without selectors
 * (the etcd3 store's GetList). Items are JSON texts; only selectors on labels or fields decode objects.
 */
export class ListPages {
  private readonly snapshots = new Map<string, Snapshot>();

  constructor(private readonly store: ObjectStore) {}

  /** Reads one page; throws 410 Expired when `rv` is older than the kept history. */
  read(query: PageQuery): ListPage {
    const { resource, filter, limit, after } = query;
    const table = this.store.table(resource);
    const keys = table.sortedKeys();
    const namespace = kindOf(resource).namespaced ? filter.namespace : undefined;
    const [lo, hi] = namespace === undefined ? [0, keys.length] : namespaceRange(keys, namespace);
    const inRange = (key: string) => (namespace === undefined || key.startsWith(`${namespace}/`)) && (after === undefined || key > after);
    const undo = query.rv !== undefined && query.rv < this.store.currentRv() ? this.undoSince(resource, query.rv) : undefined;
    // Keys gone since the snapshot but present in it, merged into the current keys in order.
    const gone: string[] = [];
    for (const [key, json] of undo ?? []) if (json !== null && !table.has(key) && inRange(key)) gone.push(key);
    gone.sort();
    const needsObject = filter.labels !== undefined || filter.fields !== undefined;
    const items: string[] = [];
    let last: string | undefined;
    let more = false;
    let i = after === undefined ? lo : Math.max(lo, searchKeys(keys, after));
    let j = 0;
    while (i < hi || j < gone.length) {
      const key = j >= gone.length || (i < hi && keys[i]! < gone[j]!) ? keys[i++]! : gone[j++]!;
      const record = undo?.has(key) ? undefined : table.get(key);
      const json = record ? record.json : undo?.get(key);
      if (json === null || json === undefined) continue;
      if (limit > 0 && items.length === limit) {
        more = true;
        break;
      }
      if (needsObject && !matchesFilter(filter, record?.parsed ?? (JSON.parse(json) as KubeObject))) continue;
      items.push(json);
      last = key;
    }
    if (!more || last === undefined) return { items };
    const page: ListPage = { items, continueAfter: last };
    if (!needsObject) {
      let remaining = hi - searchKeys(keys, last);
      for (const [key, json] of undo ?? []) {
        if (key <= last || !(namespace === undefined || key.startsWith(`${namespace}/`))) continue;
        const now = table.has(key);
        if (now && json === null) remaining--;
        else if (!now && json !== null) remaining++;
      }
      page.remaining = remaining;
    }
    return page;
  }

  /** The snapshot of `resource` at `rv`, brought up to date with the history since it was last read. */
  private undoSince(resource: ResourceName, rv: number): Map<string, string | null> {
    const history = this.store.history;
    const first = history.seqAfter(rv);
    const id = `${resource}@${rv}`;
    let snapshot = this.snapshots.get(id);
    if (snapshot === undefined || snapshot.epoch !== history.epoch) snapshot = { epoch: history.epoch, undo: new Map(), through: first };
    this.snapshots.delete(id);
    this.snapshots.set(id, snapshot);
    if (this.snapshots.size > SNAPSHOTS_KEPT) this.snapshots.delete(this.snapshots.keys().next().value!);
    const end = history.end();
    for (let seq = snapshot.through; seq < end; seq++) {
      if (history.resourceAt(seq) !== resource) continue;
      const event = history.at(seq);
      // The first change after rv tells the state at rv: what it replaced (nothing, for ADDED).
      if (!snapshot.undo.has(event.key)) snapshot.undo.set(event.key, event.prevJson ?? null);
    }
    snapshot.through = end;
    return snapshot.undo;
  }
}
