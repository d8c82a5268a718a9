// The one test clock: a virtual clock for shiplog's clock interface (the controller's Clock, which extends the
// client's TransportClock, so the client's transport and the emulator take it too). Time moves only when a test moves
// it, firing the timers (and waking the sleeps) that come due, in order. Tests of every package run on it with no real
// waits. It keeps a wall reading (now()) and a monotonic one (monotonicNow()), which move together unless a test steps
// the wall clock (an NTP step) or the event loop stalls; timers run on the monotonic one, as Node's do. Each process
// of a multi-process test (an election's candidates) sees it through its own scope, whose timers `kill -9` drops.
import type { TransportClock } from "@shiplog/client";
import type { Clock } from "@shiplog/controller";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets promise callbacks queued so far (and those they queue, a few macrotask turns deep) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A sleep on `clock`'s timers, cut short (rejected with the signal's reason) by `signal`. */
function sleepOn(clock: Pick<Clock, "setTimer">, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class VirtualClock implements Clock {
  #wall: number;
  #monotonic: number;
  #seq = 0;
  readonly #timers = new Set<Timer>();
  /** Called after the timers due at one instant fired and their effects settled, e.g. to check an invariant. */
  afterEach: (() => void) | undefined;

  /**
   * Starts the wall clock at `start` and the monotonic one at `monotonicStart` (by default the same reading; a test
   * that must tell the two apart starts them apart, as a process's performance.now() is not the epoch).
   */
  constructor(start = Date.parse("2026-01-01T00:00:00Z"), monotonicStart = start) {
    this.#wall = start;
    this.#monotonic = monotonicStart;
  }

  /** The wall clock. */
  now(): number {
    return this.#wall;
  }

  /** The monotonic clock: it never steps, and timers run on it. */
  monotonicNow(): number {
    return this.#monotonic;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#monotonic + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.add(timer);
    return () => void this.#timers.delete(timer);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** One process's view of this clock (the controller's Clock), whose timers can all be dropped as `kill -9` would. */
  scope(): ClockScope {
    return new ClockScope(this);
  }

  /** When (on the monotonic clock) the next timer fires, if any. */
  get nextAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.#timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  /**
   * Moves both clocks forward by `ms`, firing the timers that come due on the way, in order, and letting their effects
   * settle. The timers due at one instant fire together before anything settles, so two processes acting at one
   * instant race as two real ones would.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#monotonic + ms;
    await settle();
    for (;;) {
      const at = this.nextAt;
      if (at === undefined || at > end) break;
      const due = [...this.#timers].filter((t) => t.at === at).sort((a, b) => a.seq - b.seq);
      this.#move(Math.max(this.#monotonic, at));
      for (const t of due) {
        // A timer cancelled by one fired before it at this instant does not fire, as with Node's timers.
        if (this.#timers.delete(t)) t.fn();
      }
      await settle();
      this.afterEach?.();
    }
    this.#move(end);
    await settle();
  }

  /** Advances in steps of `stepMs` until `condition` holds; fails after `limitMs` of virtual time. Returns the time taken. */
  async advanceUntil(condition: () => boolean, limitMs: number, stepMs = 10): Promise<number> {
    const start = this.#monotonic;
    while (!condition()) {
      if (this.#monotonic - start >= limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time`);
      await this.advance(stepMs);
    }
    return this.#monotonic - start;
  }

  /** The wall clock jumps by `ms` (an NTP step, a VM resumed); the monotonic clock, and so the timers, do not. */
  stepWall(ms: number): void {
    this.#wall += ms;
  }

  /** Both clocks move on by `ms` with no timer run: a stalled event loop. The overdue timers fire at the next advance. */
  stall(ms: number): void {
    this.#monotonic += ms;
    this.#wall += ms;
  }

  /**
   * Moves virtual time on by itself while real I/O goes on: every `realEveryMs` of real time, by `stepMs` (or to the
   * next timer, if sooner). Returns a function that stops it.
   */
  autoAdvance(stepMs: number, realEveryMs = 5): () => void {
    let running = true;
    let busy = false;
    const interval = setInterval(() => {
      if (!running || busy) return;
      busy = true;
      const next = this.nextAt;
      const step = next === undefined ? stepMs : Math.min(stepMs, Math.max(0, next - this.#monotonic));
      void this.advance(step).finally(() => (busy = false));
    }, realEveryMs);
    return () => {
      running = false;
      clearInterval(interval);
    };
  }

  #move(to: number): void {
    this.#wall += to - this.#monotonic;
    this.#monotonic = to;
  }
}

/** One process's view of a VirtualClock (the controller's Clock): once killed, none of its timers fires again. */
export class ClockScope implements Clock {
  readonly #clock: VirtualClock;
  readonly #pending = new Set<() => void>();
  #killed = false;

  constructor(clock: VirtualClock) {
    this.#clock = clock;
  }

  /** Whether the process was killed. */
  get killed(): boolean {
    return this.#killed;
  }

  /** The wall clock. */
  now(): number {
    return this.#clock.now();
  }

  monotonicNow(): number {
    return this.#clock.monotonicNow();
  }

  setTimer(ms: number, fn: () => void): () => void {
    // A dead process's leftover promises may still try to schedule work: it never runs.
    if (this.#killed) return () => {};
    const cancel = this.#clock.setTimer(ms, () => {
      this.#pending.delete(cancel);
      fn();
    });
    this.#pending.add(cancel);
    return () => {
      this.#pending.delete(cancel);
      cancel();
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** The process dies (`kill -9`): its timers are dropped and it sets no more. */
  kill(): void {
    this.#killed = true;
    for (const cancel of this.#pending) cancel();
    this.#pending.clear();
  }
}

/**
 * A clock whose every wait does `act` at once instead of waiting, for tests in which no time has to pass: stop a
 * poller after its first poll (`actingClock(() => stop.abort())`), step a simulated importer. The time is the system's.
 */
export function actingClock(act: (ms: number, signal?: AbortSignal) => void | Promise<void>): TransportClock {
  return { now: () => Date.now(), sleep: async (ms, signal) => act(ms, signal) };
}
