// Simulated time for the pollers' tests: a clock whose waits move the emulator's (frozen) clock by exactly what was
// asked, so an hour of polling runs in milliseconds against the emulator over real HTTP, every wait recorded.
import type { TransportClock } from "@shiplog/client";
import type { Emulator } from "@shiplog/emulator";

/** The emulator's time as a client's clock; `onWait` runs after each wait, with its length and number. */
export interface EmulatorTime extends TransportClock {
  /** Every wait asked for, in order. */
  waits: number[];
  /** How far the emulator's clock has moved since this began. */
  elapsedMs(): number;
}

/** Freezes the emulator's clock and returns a clock whose waits move it on (see EmulatorTime). */
export function emulatorTime(emulator: Emulator, onWait?: (ms: number, count: number) => void): EmulatorTime {
  const waits: number[] = [];
  const start = emulator.clock.now();
  emulator.clock.set(start, { freeze: true });
  return {
    waits,
    now: () => emulator.clock.now(),
    elapsedMs: () => emulator.clock.now() - start,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      waits.push(ms);
      emulator.clock.advance(ms);
      onWait?.(ms, waits.length);
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw signal.reason;
    },
  };
}
