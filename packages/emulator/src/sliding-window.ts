/**
 * A sliding window of weighted events: "no more than `limit` in any `windowMs`", the strict reading of a limit
 * "per minute" or "per hour" (a fixed window would let twice the limit through around its edge). Pure: the caller
 * passes the time, so a test that moves the clock moves the window.
 */
export class SlidingWindow {
  /** Event times and weights, oldest first; `#head` is the first live one (entries before it have expired). */
  #times: number[] = [];
  #weights: number[] = [];
  #head = 0;
  #used = 0;

  constructor(readonly windowMs: number) {}

  /** The weight counted in the window that ends at `now`. */
  used(now: number): number {
    this.#expire(now);
    return this.#used;
  }

  /** Whether an event of `weight` at `now` keeps the window within `limit` (a parameter: limits can be changed live). */
  admits(now: number, weight: number, limit: number): boolean {
    return this.used(now) + weight <= limit;
  }

  /** Counts an event of `weight` at `now` (whether or not it fits: the caller decided). */
  record(now: number, weight: number): void {
    this.#expire(now);
    this.#times.push(now);
    this.#weights.push(weight);
    this.#used += weight;
  }

  /**
   * How long from `now` until an event of `weight` fits within `limit`: when enough of the oldest events have left the window.
   * 0 when it fits now; the whole window when it can never fit (weight over the limit).
   */
  waitMs(now: number, weight: number, limit: number): number {
    this.#expire(now);
    if (weight > limit) return this.windowMs;
    let excess = this.#used + weight - limit;
    if (excess <= 0) return 0;
    for (let i = this.#head; i < this.#times.length; i++) {
      excess -= this.#weights[i]!;
      if (excess <= 0) return this.#times[i]! + this.windowMs - now;
    }
    return this.windowMs;
  }

  #expire(now: number): void {
    const newest = this.#times[this.#times.length - 1];
    // A clock set backwards (tests do) would leave events "in the future" counted for as long: start afresh.
    if (newest !== undefined && newest > now) {
      this.clear();
      return;
    }
    while (this.#head < this.#times.length && this.#times[this.#head]! + this.windowMs <= now) {
      this.#used -= this.#weights[this.#head]!;
      this.#head++;
    }
    // Compact once the expired prefix is the larger part, so memory follows the live events (amortised O(1)).
    if (this.#head > 64 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#weights = this.#weights.slice(this.#head);
      this.#head = 0;
    }
  }

  clear(): void {
    this.#times = [];
    this.#weights = [];
    this.#head = 0;
    this.#used = 0;
  }
}
