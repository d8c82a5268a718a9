// The one clock of the controller: the client's TransportClock (the time, and waits, so the same clock drives the HTTP
// client's retry waits) extended with cancellable timers and a monotonic reading for local durations. Injected into
// every part that reads time or waits (the flush loop, the write budget's pacer, the election, the reflectors and
// their requests), so tests run them on a virtual clock with no real waits.
import type { TransportClock } from "@shiplog/client";
import { systemClock as processClock } from "@shiplog/client/internal";

/** Time, waits and timers as the controller sees them. */
export interface Clock extends TransportClock {
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
  /**
   * Milliseconds on a clock that never steps (performance.now() on the system clock), for local durations: a lease's
   * age, how long a watch stayed open. A wall-clock step then neither deposes a leader nor extends a stale one.
   */
  monotonicNow(): number;
}

/** The process's clock. Globals are looked up at each call, so vitest's fake timers apply to it too. */
export const systemClock: Clock = {
  ...processClock,
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  monotonicNow: () => performance.now(),
};
