// The one clock of the controller: the time, waits (the client's TransportClock, so the same clock drives the HTTP
// client's retry waits) and cancellable timers. Injected, so tests run the flush loop on a virtual clock or fake
// timers with no real waits. The leader elector takes the same clock (electionClockOf).
import type { TransportClock } from "@shiplog/client";
import { sleep } from "@shiplog/client/internal";
import { systemElectionClock, type ElectionClock } from "./election/leader-elector.js";

/** Time, waits and timers as the controller sees them. */
export interface Clock extends TransportClock {
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The process's clock. Globals are looked up at each call, so vitest's fake timers apply to it too. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, signal),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * The elector's view of a clock: the system's (its local durations on the monotonic clock, so a wall-clock step
 * neither deposes a leader nor extends a stale one), or an injected clock's own time.
 */
export function electionClockOf(clock: Clock): ElectionClock {
  if (clock === systemClock) return systemElectionClock;
  return {
    now: () => clock.now(),
    wallNow: () => clock.now(),
    setTimeout: (callback, ms) => clock.setTimer(ms, callback),
    clearTimeout: (handle) => (handle as () => void)(),
  };
}
