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
