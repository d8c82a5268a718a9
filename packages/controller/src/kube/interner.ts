// One shared copy of values repeated across thousands of cached objects: strings (namespaces, container names,
// images, annotations: JSON.parse makes a new string for every occurrence) and whole projected parts (the containers
// and statuses that the pods of one workload have in common). Two generations of bounded size: a value
// seen in the current or the previous generation is shared; when the current one fills, the previous is dropped, so
// values no longer in use (old digests after rollouts) are not kept forever and the table stays bounded.

/** Shares equal values by key, in two bounded generations. */
export class Interner<T> {
  #current = new Map<string, T>();
  #previous = new Map<string, T>();

  constructor(private readonly generationSize = 1 << 16) {}

  /**
   * The shared value for `key` if it is `same` as `value`, else `value`, which becomes the shared one (the last
   * value seen for a key wins: a workload's pods change together).
   */
  share(key: string, value: T, same: (a: T, b: T) => boolean): T {
    const found = this.#current.get(key);
    if (found !== undefined) {
      // The common case, one lookup: seen in this generation.
      if (same(found, value)) return found;
      this.#current.set(key, value);
      return value;
    }
    const earlier = this.#previous.get(key);
    const shared = earlier !== undefined && same(earlier, value) ? earlier : value;
    if (this.#current.size >= this.generationSize) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, shared);
    return shared;
  }
}

const identical = (a: string, b: string): boolean => a === b;

/** Shares equal strings. */
export class StringInterner {
  readonly #values: Interner<string>;

  constructor(generationSize?: number) {
    this.#values = new Interner<string>(generationSize);
  }

  /** The shared copy of `value`. */
  intern(value: string): string {
    return this.#values.share(value, value, identical);
  }
}
