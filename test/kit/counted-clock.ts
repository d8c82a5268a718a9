// Clocks that count what the code under test waits on, so a test knows it is waiting before it moves time.
// CountedClock counts a virtual clock's pending timers by duration: with distinct durations, "every watch has its idle
// watchdog armed and no request has its timeout pending" means every watch was answered and nothing is on the wire,
// so moving time fires only what the test means to fire, never a request's timeout while its real I/O is under way.
// countingWaits counts the waits started on any TransportClock: "the server now waits on the clock" (a request held
// by an injected latency).
import type { TransportClock } from "@shiplog/client";
import type { Clock } from "@shiplog/controller";
import { EventCount } from "./events.js";
import type { VirtualClock } from "./virtual-clock.js";

/**
 * `clock` as a TransportClock whose every wait started is counted in `waits` (its timer is set before the count
 * moves).
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

/** The clock to inject: `clock`'s time and timers, with the timers pending counted; `onChange` hears each change. */
export class CountedClock implements Clock {
  readonly #clock: VirtualClock;
  readonly #onChange: () => void;
  readonly #pending = new Map<number, number>();
  readonly #set = new Map<number, number>();

  constructor(clock: VirtualClock, onChange: () => void) {
    this.#clock = clock;
    this.#onChange = onChange;
  }

  /** Timers of `ms` set and neither fired nor cancelled yet. */
  pending(ms: number): number {
    return this.#pending.get(ms) ?? 0;
  }

  /** Timers of `ms` set so far (a watch's idle watchdog is set again at each line the watch hears). */
  set(ms: number): number {
    return this.#set.get(ms) ?? 0;
  }

  now(): number {
    return this.#clock.now();
  }

  monotonicNow(): number {
    return this.#clock.monotonicNow();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#clock.sleep(ms, signal);
  }

  setTimer(ms: number, fn: () => void): () => void {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.#pending.set(ms, this.pending(ms) - 1);
      this.#onChange();
    };
    const cancel = this.#clock.setTimer(ms, () => {
      end();
      fn();
    });
    this.#pending.set(ms, this.pending(ms) + 1);
    this.#set.set(ms, this.set(ms) + 1);
    this.#onChange();
    return () => {
      cancel();
      end();
    };
  }
}
