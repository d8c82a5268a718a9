// A virtual clock with a monotonic and a wall reading, for the election's tests: time moves only when a test moves
// it, timers fire in order on the way, and the promises a timer starts settle before the next one fires. No real
// waits. Each process (candidate) sees it through a scope, the controller's Clock.
import type { Clock } from "@shiplog/controller";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
  owner: ClockScope;
}

/** Lets every queued promise (and those they queue) settle: a macrotask turn runs after all microtasks. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One process's view of the clock (the controller's Clock): its timers can all be dropped at once, as `kill -9` would. */
export class ClockScope implements Clock {
  killed = false;

  constructor(private readonly clock: ManualClock) {}

  /** The wall clock. */
  now(): number {
    return this.clock.wallNow();
  }

  monotonicNow(): number {
    return this.clock.now();
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = this.clock.add(fn, ms, this);
    return () => this.clock.remove(timer);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The process dies: none of its timers fires again. */
  kill(): void {
    this.killed = true;
  }
}

/** Virtual monotonic and wall clocks with timers. */
export class ManualClock {
  #monotonic = 1_000;
  #wall = Date.UTC(2026, 0, 1, 12);
  #seq = 0;
  readonly #timers = new Set<Timer>();
  /** Called after every timer that fired (and the promises it started settled), e.g. to check an invariant. */
  afterEach: (() => void) | undefined;

  now(): number {
    return this.#monotonic;
  }

  wallNow(): number {
    return this.#wall;
  }

  /** A scope whose timers can be dropped together. */
  scope(): ClockScope {
    return new ClockScope(this);
  }

  add(callback: () => void, ms: number, owner: ClockScope): Timer {
    const timer = { at: this.#monotonic + Math.max(0, ms), seq: this.#seq++, callback, owner };
    this.#timers.add(timer);
    return timer;
  }

  remove(timer: Timer | undefined): void {
    if (timer) this.#timers.delete(timer);
  }

  /**
   * Moves both clocks on by `ms`, firing the timers due on the way in order. Timers due at the same instant fire
   * together before anything settles, so two candidates acting at one instant race as two processes would.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#monotonic + ms;
    for (;;) {
      await settle();
      let at = Infinity;
      for (const t of this.#timers) if (t.at <= end && t.at < at) at = t.at;
      if (at === Infinity) break;
      const due = [...this.#timers].filter((t) => t.at === at).sort((x, y) => x.seq - y.seq);
      for (const t of due) this.#timers.delete(t);
      this.#move(at);
      for (const t of due) if (!t.owner.killed) t.callback();
      await settle();
      this.afterEach?.();
    }
    this.#move(end);
  }

  /** Advances in steps of `stepMs` until `condition` holds; fails after `limitMs` of virtual time. */
  async advanceUntil(condition: () => boolean, limitMs: number, stepMs = 10): Promise<number> {
    const start = this.#monotonic;
    while (!condition()) {
      if (this.#monotonic - start >= limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time`);
      await this.advance(stepMs);
    }
    return this.#monotonic - start;
  }

  /** The wall clock jumps (an NTP step, a VM resumed); the monotonic clock does not. */
  stepWall(ms: number): void {
    this.#wall += ms;
  }

  /** Time passes with no timer run: a stalled event loop. */
  stall(ms: number): void {
    this.#monotonic += ms;
    this.#wall += ms;
  }

  #move(to: number): void {
    this.#wall += to - this.#monotonic;
    this.#monotonic = to;
  }
}
