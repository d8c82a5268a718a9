// A virtual clock for shiplog's clock interface (the controller's Clock, which extends the client's TransportClock,
// so the client's transport and the emulator take it too): time moves only when a test moves it, firing the timers
// (and waking the sleeps) that come due, in order. Tests of every package run on it with no real waits.
import type { Clock } from "@shiplog/controller";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets promise callbacks queued so far (and those they queue) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = Date.parse("2026-01-01T00:00:00Z")) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** The same reading: a virtual clock never steps. */
  monotonicNow(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
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

  /** When the next timer fires, if any. */
  get nextAt(): number | undefined {
    return this.#timers.reduce<number | undefined>((min, t) => (min === undefined || t.at < min ? t.at : min), undefined);
  }

  /** Moves time forward by `ms`, firing each timer that comes due at its own time, and letting its effects settle. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = end;
    await settle();
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
      const step = next === undefined ? stepMs : Math.min(stepMs, Math.max(0, next - this.#now));
      void this.advance(step).finally(() => (busy = false));
    }, realEveryMs);
    return () => {
      running = false;
      clearInterval(interval);
    };
  }
}
