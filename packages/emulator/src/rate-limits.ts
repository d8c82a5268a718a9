/** The service's primary limit for callers without credentials: 60 requests an hour, counted by IP address. */
export const ANONYMOUS_RATE_LIMIT = 60;

/** One caller's use of the primary limit in the current window. */
export interface RateLimitStatus {
  limit: number;
  used: number;
  remaining: number;
  /** When the window ends, in epoch seconds. */
  reset: number;
}

/**
 * The core rate limit per caller, with the headers the service sends on every answer. Callers are keys:
 * `token:<name>` for a token, `ip:<address>` for a request without credentials, which gets the anonymous limit.
 */
export class RateLimits {
  #windows = new Map<string, { used: number; resetAt: number }>();

  constructor(
    /** Requests an hour for a caller with credentials. */
    public limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
    /** Requests an hour for a caller without credentials (by IP). */
    public anonymousLimit: number = ANONYMOUS_RATE_LIMIT,
  ) {}

  /** The limit that applies to this caller. */
  limitOf(caller: string): number {
    return caller.startsWith("ip:") ? this.anonymousLimit : this.limit;
  }

  #window(caller: string): { used: number; resetAt: number } {
    const now = this.now();
    let window = this.#windows.get(caller);
    if (!window || window.resetAt <= now) {
      window = { used: 0, resetAt: now + this.windowMs };
      this.#windows.set(caller, window);
    }
    return window;
  }

  /** Whether the caller has nothing left in this window. */
  exhausted(caller: string): boolean {
    return this.#window(caller).used >= this.limitOf(caller);
  }

  /** The caller's figures now, without counting anything (what `GET /rate_limit` reports). */
  status(caller: string): RateLimitStatus {
    const window = this.#window(caller);
    const limit = this.limitOf(caller);
    return { limit, used: window.used, remaining: Math.max(0, limit - window.used), reset: Math.ceil(window.resetAt / 1000) };
  }

  /** Counts an answer against the caller unless it is free (a 304, `GET /rate_limit`), and gives the headers to send. */
  charge(caller: string, free: boolean): Record<string, string> {
    const window = this.#window(caller);
    if (!free && window.used < this.limitOf(caller)) window.used++;
    const status = this.status(caller);
    return {
      "x-ratelimit-limit": String(status.limit),
      "x-ratelimit-remaining": String(status.remaining),
      "x-ratelimit-reset": String(status.reset),
      "x-ratelimit-used": String(status.used),
      "x-ratelimit-resource": "core",
    };
  }

  /** How many requests the caller has used in the current window. */
  used(caller: string): number {
    return this.#windows.get(caller)?.used ?? 0;
  }

  reset(): void {
    this.#windows.clear();
  }
}
