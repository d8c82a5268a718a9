// The fake cluster's one clock: shiplog's clock interface (the client's TransportClock: the time, and waits), by
// default the machine's. Everything in the cluster that reads the time or waits goes through it: the objects'
// timestamps (creationTimestamp, deletionTimestamp, conditions, managedFields, a CronJob's schedule), a Table's AGE,
// a watch's timeoutSeconds and BOOKMARKs, a list's wait for a future resourceVersion, the connection gate's reopening.
// A test that injects a virtual clock runs the cluster with no real waits. Timers are waits on it, cut short by an
// AbortController, so whatever drives the clock's sleeps drives them.
// Not on it, by design: the control loop's batch slice and the fleet's build time measure the machine's own work
// (how long the CPU has been busy), not the cluster's time; a virtual clock standing still must not change them.
import type { TransportClock } from "@shiplog/client";
import { systemClock, timerOn } from "@shiplog/client/internal";

/** The fake cluster's notion of now, and its timers, on an injectable TransportClock. */
export class ClusterClock implements TransportClock {
  #second = Number.NaN;
  #timestamp = "";

  /** `source`: a test's virtual clock, or (default) the machine's. */
  constructor(private readonly source: TransportClock = systemClock) {}

  /** Milliseconds since the epoch. */
  now(): number {
    return this.source.now();
  }

  /** Waits `ms` on the source, or rejects early with the signal's reason. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.source.sleep(ms, signal);
  }

  /**
   * Now as a Kubernetes timestamp (RFC 3339, second precision). Formatted once per second: the store stamps many
   * objects a second.
   */
  timestamp(): string {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#timestamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    }
    return this.#timestamp;
  }

  /** Runs `fire` once `ms` have passed, unless the returned function is called first. */
  after(ms: number, fire: () => void): () => void {
    return timerOn(this.source, ms, fire);
  }

  /** Runs `fire` every `ms` until the returned function is called. */
  every(ms: number, fire: () => void): () => void {
    const stop = new AbortController();
    void (async () => {
      for (;;) {
        try {
          await this.source.sleep(ms, stop.signal);
        } catch {
          return; // cancelled
        }
        if (stop.signal.aborted) return;
        fire();
      }
    })();
    return () => stop.abort();
  }
}
