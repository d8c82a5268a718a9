/** The core rate limit per caller, with the headers the service sends on every answer. */
export class RateLimits {
  #windows = new Map<string, { used: number; resetAt: number }>();

  constructor(
    public limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

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
    return this.#window(caller).used >= this.limit;
  }

  /** Counts an answer against the caller unless it is free (a 304), and gives the headers to send. */
  charge(caller: string, free: boolean): Record<string, string> {
    const window = this.#window(caller);
    if (!free && window.used < this.limit) window.used++;
    return {
      "x-ratelimit-limit": String(this.limit),
      "x-ratelimit-remaining": String(Math.max(0, this.limit - window.used)),
      "x-ratelimit-reset": String(Math.ceil(window.resetAt / 1000)),
      "x-ratelimit-used": String(window.used),
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
