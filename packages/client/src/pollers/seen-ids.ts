/** One item already yielded: its id and its time (`created_at`, or a thread's `updated_at`), as received. */
export type SeenEntry = [id: string, at: string | null];

/**
 * Items already yielded, in the order they were yielded, bounded to what the listing can still show: at most
 * `capacity` (the newest kept) and, once `dropOlderThan` is called, none older than a cut-off. A feed holds
 * 300 events; twice that covers events reordered within a poll and late ones.
 */
export class SeenIds {
  /** A Map iterates in insertion order: the first entry is the one yielded longest ago. */
  readonly #items = new Map<string, string | null>();
  readonly #capacity: number;

  constructor(capacity = 600, entries: readonly SeenEntry[] = []) {
    this.#capacity = capacity;
    for (const [id, at] of entries) this.add(id, at);
  }

  has(id: string): boolean {
    return this.#items.has(id);
  }

  /** The time recorded with `id` (undefined when unseen). */
  at(id: string): string | null | undefined {
    return this.#items.get(id);
  }

  /** Records `id` as yielded now (moving it to the newest end), dropping the oldest beyond capacity. */
  add(id: string, at: string | null = null): void {
    this.#items.delete(id);
    this.#items.set(id, at);
    if (this.#items.size > this.#capacity) {
      const oldest = this.#items.keys().next().value;
      if (oldest !== undefined) this.#items.delete(oldest);
    }
  }

  /** Forgets items whose time is before `cutoffMs`: the listing no longer shows them. */
  dropOlderThan(cutoffMs: number): void {
    for (const [id, at] of this.#items) {
      const ms = at === null ? NaN : Date.parse(at);
      if (ms < cutoffMs) this.#items.delete(id);
    }
  }

  /** The entries, yielded longest ago first: the serialisable form. */
  entries(): SeenEntry[] {
    return [...this.#items];
  }

  get size(): number {
    return this.#items.size;
  }
}

/**
 * Items collected newest first (possibly with repeats when pages shifted between requests), returned once
 * each, oldest first. Numeric ids order by value; others keep the listing's order, reversed.
 */
export function oldestFirst<T extends { id: string | number }>(items: readonly T[]): T[] {
  const unique = new Map<string, T>();
  for (const item of items) if (!unique.has(String(item.id))) unique.set(String(item.id), item);
  const list = [...unique.values()];
  if (list.every((e) => /^\d+$/.test(String(e.id)))) {
    return list.sort((a, b) => {
      const x = BigInt(a.id);
      const y = BigInt(b.id);
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  return list.reverse();
}
