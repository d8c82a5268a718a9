// The write budget: the service's secondary limits on content-generating requests (published: generally no more than
// 80 a minute and 500 an hour), kept by the controller so that it never trips them. Calls are paced, one every
// 60 s / perMinute, so no minute however counted holds more than perMinute of them; the hour is a sliding window.
// Pure: time is passed in; the pacer plugin (budget-pacer.ts) makes the waits.

/** The limits, in calls. */
export interface WriteBudgetLimits {
  perMinute: number;
  perHour: number;
}

/** Defaults: the service's published secondary limits for content-generating requests. */
export const DEFAULT_WRITE_BUDGET: WriteBudgetLimits = { perMinute: 80, perHour: 500 };

const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** Calls made and when the next one may start. */
export class WriteBudget {
  /** The pacing: the least time between the starts of two calls. */
  readonly intervalMs: number;
  /** Start times of the calls of the last hour, oldest first (from `#head`). */
  #calls: number[] = [];
  #head = 0;
  #last = Number.NEGATIVE_INFINITY;

  constructor(readonly limits: WriteBudgetLimits = DEFAULT_WRITE_BUDGET) {
    if (!(limits.perMinute >= 1) || !(limits.perHour >= 1))
      throw new RangeError("a write budget needs at least one call a minute and an hour");
    this.intervalMs = MINUTE_MS / limits.perMinute;
  }

  /** The earliest time at or after `now` at which a call may start. */
  nextSlot(now: number): number {
    this.#forget(now);
    let at = Math.max(now, this.#last + this.intervalMs);
    const inHour = this.#calls.length - this.#head;
    // The hour is full: wait until the call that makes it so leaves the window.
    if (inHour >= this.limits.perHour) at = Math.max(at, this.#calls[this.#head + inHour - this.limits.perHour]! + HOUR_MS);
    return at;
  }

  /** Records a call starting at `now`. */
  take(now: number): void {
    this.#calls.push(now);
    this.#last = Math.max(this.#last, now);
  }

  /** Calls started in the `windowMs` up to `now` (a minute or an hour). */
  used(now: number, windowMs: number): number {
    this.#forget(now);
    let n = 0;
    for (let i = this.#calls.length - 1; i >= this.#head && this.#calls[i]! > now - windowMs; i--) n++;
    return n;
  }

  /** Calls the hour window has room for at `now`. */
  hourRemaining(now: number): number {
    return Math.max(0, this.limits.perHour - this.used(now, HOUR_MS));
  }

  /** Drops calls older than an hour (compacting now and then, so the array stays about perHour long). */
  #forget(now: number): void {
    while (this.#head < this.#calls.length && this.#calls[this.#head]! <= now - HOUR_MS) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#calls.length) {
      this.#calls = this.#calls.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** Calls the resync may make in an hour: its share of the hourly budget. */
export function resyncCallsPerHour(limits: WriteBudgetLimits, share: number): number {
  return Math.max(1, Math.floor(limits.perHour * share));
}

/**
 * Calls one resync interval's slice may take, so that a slice every interval stays within the resync's hourly
 * share (at least one, so a resync interval longer than its share allows still resends something).
 */
export function resyncCallsPerInterval(limits: WriteBudgetLimits, share: number, intervalMs: number): number {
  return Math.max(1, Math.floor((resyncCallsPerHour(limits, share) * intervalMs) / HOUR_MS));
}

/** The least time `calls` calls take at the budget's pace (the first at once): the floor a benchmark is judged by. */
export function budgetFloorMs(limits: WriteBudgetLimits, calls: number): number {
  if (calls <= 0) return 0;
  const interval = MINUTE_MS / limits.perMinute;
  const paced = (calls - 1) * interval;
  // Beyond the hour's allowance, every further perHour calls wait for the next hour.
  const hours = Math.floor((calls - 1) / limits.perHour);
  return Math.max(paced, hours * HOUR_MS + ((calls - 1) % limits.perHour) * interval);
}
