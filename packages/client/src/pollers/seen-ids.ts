/** Ids already yielded, bounded to the newest `capacity` (a feed holds 300 events, so a few thousand suffice). */
export class SeenIds {
  readonly #ids = new Set<string>();
  readonly #capacity: number;

  constructor(capacity = 5000) {
    this.#capacity = capacity;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    if (this.#ids.has(id)) return;
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) {
      // A Set iterates in insertion order: the first id is the oldest.
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  get size(): number {
    return this.#ids.size;
  }
}

/**
 * Events collected newest first (possibly with repeats when pages shifted between requests), returned once
 * each, oldest first. Numeric ids order by value; others keep the feed's order, reversed.
 */
export function oldestFirst<T extends { id: string }>(events: readonly T[]): T[] {
  const unique = new Map<string, T>();
  for (const event of events) if (!unique.has(event.id)) unique.set(event.id, event);
  const list = [...unique.values()];
  if (list.every((e) => /^\d+$/.test(e.id))) {
    return list.sort((a, b) => {
      const x = BigInt(a.id);
      const y = BigInt(b.id);
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  return list.reverse();
}
