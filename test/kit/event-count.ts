// Awaiting an event instead of polling for its effect: a test counts what it can see happen (a request reaching its
// own receiver, a wait starting on the clock it injected) and awaits the n-th occurrence. No deadline of its own:
// an event that never comes fails the test at vitest's timeout.
import type { TransportClock } from "@shiplog/client";

/** Counts occurrences of one event and resolves `reached(n)` when the n-th has happened. */
export class EventCount {
  #count = 0;
  #waiting: { count: number; resolve: () => void }[] = [];

  /** How many have happened so far. */
  get count(): number {
    return this.#count;
  }

  /** One more occurred. */
  add(): void {
    this.#count++;
    const due = this.#waiting.filter((w) => w.count <= this.#count);
    this.#waiting = this.#waiting.filter((w) => w.count > this.#count);
    for (const w of due) w.resolve();
  }

  /** Resolves once `count` have happened (at once if they have). */
  reached(count: number): Promise<void> {
    if (this.#count >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }
}

/**
 * `clock` as a TransportClock whose every wait started is counted in `waits` (its timer is set before the count
 * moves): how a test awaits "the server now waits on the clock", e.g. a request held by an injected latency.
 */
export function countingWaits(clock: TransportClock): { clock: TransportClock; waits: EventCount } {
  const waits = new EventCount();
  return {
    waits,
    clock: {
      now: () => clock.now(),
      sleep: (ms, signal) => {
        const slept = clock.sleep(ms, signal);
        waits.add();
        return slept;
      },
    },
  };
}
