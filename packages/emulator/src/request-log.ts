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

/** The requests the emulator has answered, for tests to read (bounded to the newest entries). */
export class RequestLog {
  #entries: LoggedRequest[] = [];

  constructor(private readonly limit = 100_000) {}

  record(entry: LoggedRequest): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.limit) this.#entries.splice(0, this.#entries.length - this.limit);
  }

  /** Every logged request, oldest first; optionally only those matching. */
  list(filter?: { method?: string; route?: string }): LoggedRequest[] {
    return this.#entries.filter(
      (e) => (!filter?.method || e.method === filter.method.toUpperCase()) && (!filter?.route || e.route === filter.route),
    );
  }

  count(filter?: { method?: string; route?: string }): number {
    return this.list(filter).length;
  }

  clear(): void {
    this.#entries = [];
  }
}
