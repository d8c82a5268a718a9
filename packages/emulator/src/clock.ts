// The emulator's one clock: shiplog's clock interface (the client's TransportClock: the time, and waits), read
// through an offset or a frozen instant so tests can move the service's "now" (retirement dates, token expiry, event
// ages, rate-limit windows). Every part of the emulator that reads time or waits (the stores' timestamps, the limits'
// windows, the importer's timer, background jobs, injected latency) goes through it, so a test that injects a virtual
// TransportClock as its source runs the emulator with no real waits.
import type { TransportClock } from "@shiplog/client";
import { systemClock } from "@shiplog/client/internal";

/** The emulator's notion of now: its source's time (default the real one), shifted or frozen for tests. */
export class Clock implements TransportClock {
  #offsetMs = 0;
  #frozenAt: number | undefined;

  /** `source` gives the time that runs on and performs the waits: a test's virtual clock, or the real one. */
  constructor(private readonly source: TransportClock = systemClock) {}

  /** Milliseconds since the epoch on the emulator's clock. */
  now(): number {
    return this.#frozenAt ?? this.source.now() + this.#offsetMs;
  }

  /**
   * Waits `ms` of the source's time (a shift or a freeze of this clock does not shorten a wait), or rejects early
   * with the signal's reason.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.source.sleep(ms, signal);
  }

  /** Sets the current time; it keeps running from there unless frozen. */
  set(time: Date | string | number, options: { freeze?: boolean } = {}): void {
    const target = new Date(time).getTime();
    if (options.freeze) {
      this.#frozenAt = target;
    } else {
      this.#frozenAt = undefined;
      this.#offsetMs = target - this.source.now();
    }
  }

  /** Moves the clock forward. */
  advance(ms: number): void {
    if (this.#frozenAt !== undefined) this.#frozenAt += ms;
    else this.#offsetMs += ms;
  }

  /** Back to the source's time. */
  reset(): void {
    this.#offsetMs = 0;
    this.#frozenAt = undefined;
  }

  /** The service's timestamp form: ISO 8601 to the second, `Z`; default now. */
  timestamp(at: number | Date = this.now()): string {
    return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  /**
   * Runs `step` every `intervalMs` on this clock's waits while it returns true, until the returned function is
   * called (the demo's importer, a background job's batches).
   */
  every(intervalMs: number, step: () => boolean): () => void {
    const stop = new AbortController();
    void (async () => {
      try {
        while (!stop.signal.aborted) {
          await this.sleep(intervalMs, stop.signal);
          if (stop.signal.aborted || !step()) return;
        }
      } catch (error) {
        // Stopping ends the wait with the signal's reason; anything else is a step's own failure.
        if (!stop.signal.aborted) throw error;
      }
    })();
    return () => stop.abort();
  }
}
