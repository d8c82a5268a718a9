// Waiting on events instead of polling in real time. A callback of the code under test (an informer's onChange, an
// elector's onStartedLeading, a server's request handler) calls `changed()`, and `until(holds)` resolves the first
// time `holds()` is true: at once, or right after the change that makes it so. No deadline but the test's timeout,
// and no check between changes: what the test awaits happens in a known order, however loaded the machine is.
// EventCount is the common case (the n-th request reached the test's receiver); signal() a single event.

interface Waiter {
  holds: () => boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Conditions a test awaits, checked each time the code under test reports a change. */
export class Changes {
  readonly #waiters = new Set<Waiter>();

  /** Something changed: every awaited condition that now holds is met (one that throws fails its wait). */
  changed(): void {
    for (const waiter of [...this.#waiters]) this.#check(waiter);
  }

  /** Resolves the first time `holds()` is true: now, or after one of the changes to come. */
  until(holds: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = { holds, resolve, reject };
      this.#waiters.add(waiter);
      this.#check(waiter);
    });
  }

  #check(waiter: Waiter): void {
    let held: boolean;
    try {
      held = waiter.holds();
    } catch (error) {
      this.#waiters.delete(waiter);
      waiter.reject(error);
      return;
    }
    if (!held) return;
    this.#waiters.delete(waiter);
    waiter.resolve();
  }
}

/** A promise and the function that resolves it: an event a test awaits (a server received the request). */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Counts occurrences of one event; `reached(n)` resolves when the n-th has happened. */
export class EventCount {
  #count = 0;
  readonly #changes = new Changes();

  /** How many have happened so far. */
  get count(): number {
    return this.#count;
  }

  /** One more occurred. */
  add(): void {
    this.#count++;
    this.#changes.changed();
  }

  /** Resolves once `count` have happened (at once if they have). */
  reached(count: number): Promise<void> {
    return this.#changes.until(() => this.#count >= count);
  }
}
