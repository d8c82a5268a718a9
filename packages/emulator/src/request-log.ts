/** One request as the emulator saw it. `status` 0 means the connection was dropped. */
export interface LoggedRequest {
  method: string;
  /** The path and query as sent. */
  url: string;
  /** The matched route template, if any. */
  route: string | undefined;
  status: number;
  /** Which fixture token was used, by its name; never the token itself. */
  tokenName: string | undefined;
  apiVersion: string | undefined;
  userAgent: string | undefined;
  accept: string | undefined;
  time: string;
}

/**
 * The requests the emulator has answered, for tests to read: a ring buffer of the newest `limit` entries, so
 * recording is O(1) however long the emulator runs.
 */
export class RequestLog {
  #ring: (LoggedRequest | undefined)[];
  /** Where the next entry goes. */
  #next = 0;
  #size = 0;

  constructor(private readonly limit = 100_000) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`request log limit must be a positive integer (got ${limit})`);
    this.#ring = new Array<LoggedRequest | undefined>(limit);
  }

  record(entry: LoggedRequest): void {
    this.#ring[this.#next] = entry;
    this.#next = (this.#next + 1) % this.limit;
    if (this.#size < this.limit) this.#size++;
  }

  /** Every logged request, oldest first; optionally only those matching. */
  list(filter?: { method?: string; route?: string }): LoggedRequest[] {
    const start = (this.#next - this.#size + this.limit) % this.limit;
    const entries: LoggedRequest[] = [];
    for (let i = 0; i < this.#size; i++) {
      const entry = this.#ring[(start + i) % this.limit]!;
      const methodMatches = !filter?.method || entry.method === filter.method.toUpperCase();
      if (methodMatches && (!filter?.route || entry.route === filter.route)) entries.push(entry);
    }
    return entries;
  }

  count(filter?: { method?: string; route?: string }): number {
    return filter ? this.list(filter).length : this.#size;
  }

  clear(): void {
    this.#ring = new Array<LoggedRequest | undefined>(this.limit);
    this.#next = 0;
    this.#size = 0;
  }
}
