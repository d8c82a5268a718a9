import type { KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";

/**
 * One stored object: its current JSON text (the source of truth) and what the store indexes without parsing it.
 * The record lives as long as the object; each write replaces `json` (and `parsed`, the cached decoded form).
 */
export class StoredObject {
  /** The decoded object while it is in the parse cache; never mutated. */
  parsed: KubeObject | undefined;
  /** Slot in the parse cache's ring that holds this record, or -1. */
  cacheSlot = -1;

  constructor(
    readonly resource: ResourceName,
    readonly key: string,
    readonly uid: string,
    public json: string,
    /** uids in metadata.ownerReferences (undefined when none). */
    public owners: readonly string[] | undefined,
    /** uid of the ownerReference with controller: true. */
    public controllerUid: string | undefined,
  ) {}
}

/** Index of the first element of sorted `keys` that is greater than `key` (or >= when `inclusive`). */
export function searchKeys(keys: readonly string[], key: string, inclusive = false): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key || (!inclusive && keys[mid] === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The objects of one resource by key, with the keys kept in etcd's order (bytewise, which is JavaScript's order for
 * the ASCII that names allow). The sorted index is brought up to date lazily, when a reader asks for it: keys added
 * since are sorted alone and merged in, removed ones filtered out, so a quiet table is never re-sorted.
 */
export class ObjectTable {
  private readonly objects = new Map<string, StoredObject>();
  private sorted: string[] = [];
  private added: string[] = [];
  private removed = 0;

  get size(): number {
    return this.objects.size;
  }

  get(key: string): StoredObject | undefined {
    return this.objects.get(key);
  }

  has(key: string): boolean {
    return this.objects.has(key);
  }

  /** Adds a new object (its key must be free). */
  insert(object: StoredObject): void {
    this.objects.set(object.key, object);
    this.added.push(object.key);
  }

  delete(key: string): void {
    if (this.objects.delete(key)) this.removed++;
  }

  /** Records in storage order (no sorting). */
  values(): IterableIterator<StoredObject> {
    return this.objects.values();
  }

  /** All keys in order; the array is shared until the next change, so callers must not modify it. */
  sortedKeys(): readonly string[] {
    if (this.added.length === 0 && this.removed === 0) return this.sorted;
    const fresh = this.added.filter((k) => this.objects.has(k)).sort();
    const kept = this.removed === 0 ? this.sorted : this.sorted.filter((k) => this.objects.has(k));
    const merged = new Array<string>(kept.length + fresh.length);
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < kept.length || j < fresh.length) {
      const key = j >= fresh.length || (i < kept.length && kept[i]! < fresh[j]!) ? kept[i++]! : fresh[j++]!;
      // A key removed and added again since the last merge shows up twice: keep one.
      if (n === 0 || merged[n - 1] !== key) merged[n++] = key;
    }
    merged.length = n;
    this.sorted = merged;
    this.added = [];
    this.removed = 0;
    return merged;
  }
}

/** [start, end) of the keys of one namespace in sorted keys (`namespace/name`): '0' is the character after '/'. */
export function namespaceRange(keys: readonly string[], namespace: string): [number, number] {
  return [searchKeys(keys, `${namespace}/`, true), searchKeys(keys, `${namespace}0`, true)];
}
