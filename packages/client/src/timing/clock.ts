// shiplog's one clock interface: the time, and waits. Everything that reads time or waits takes one (the client's
// transport, the emulator, the fake cluster; the controller's Clock extends it with timers), so tests run it on a
// virtual clock with no real waits.
import { sleep } from "./sleep.js";

/** Time as shiplog's parts see it; injectable so tests need no real waits. */
export interface TransportClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Waits `ms`, or rejects early with the signal's reason. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The process's clock. Globals are looked up at each call, so vitest's fake timers apply to it too. */
export const systemClock: TransportClock = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

/**
 * Runs `fire` once `ms` have passed on `clock`, unless the returned function is called first: a timer made of a
 * wait, so whatever drives the clock's waits (a virtual clock in tests) drives it.
 */
export function timerOn(clock: TransportClock, ms: number, fire: () => void): () => void {
  const cancelled = new AbortController();
  clock.sleep(ms, cancelled.signal).then(
    () => {
      if (!cancelled.signal.aborted) fire();
    },
    // Cancelled: the wait ends with the signal's reason, which is no failure.
    () => undefined,
  );
  return () => cancelled.abort();
}
