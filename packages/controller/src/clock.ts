// The one clock of the controller: the time, waits (the client's TransportClock, so the same clock drives the HTTP
// client's retry waits) and cancellable timers. Injected, so tests run the flush loop on a virtual clock or fake
// timers with no real waits.
import { systemClock as clientSystemClock, type TransportClock } from "@shiplog/client";

/** Time, waits and timers as the controller sees them. */
export interface Clock extends TransportClock {
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The process's clock. Globals are looked up at each call, so vitest's fake timers apply to it too. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => clientSystemClock.sleep(ms, signal),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};
