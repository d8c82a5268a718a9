import { JITTER_ABOVE, backoffDelay } from "../timing/backoff.js";
import { RateLimitedError, ShiplogError } from "../errors/errors.js";

/** How a poller paces itself. */
export interface PollScheduleOptions {
  /** Wait before the service has named an interval. Default 60 s. */
  defaultIntervalSeconds?: number;
  /** Never poll more often than this, whatever the service says. Default 0 (follow the service). */
  minIntervalSeconds?: number;
  /** Ceiling of the error backoff. Default 15 minutes. */
  maxBackoffSeconds?: number;
  /** Source of jitter, for tests. Default Math.random. */
  random?: () => number;
}

/** Error codes worth another poll later: the service or the network may recover. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(["network_error", "timeout", "service_unavailable", "rate_limited"]);

/** Whether a poller should survive an error (back off and poll again) rather than end with it. */
export function isTransientPollError(error: unknown): boolean {
  return error instanceof ShiplogError && TRANSIENT_CODES.has(error.code);
}

/**
 * The pacing rules of spec 6.1 and 6.2 as pure state: wait at least `X-Poll-Interval` seconds between polls
 * (following it when it grows or shrinks), and after consecutive failures back off exponentially from the
 * interval, never below it, and no sooner than a rate limit allows.
 */
export class PollSchedule {
  #intervalSeconds: number;
  #failures = 0;
  readonly #min: number;
  readonly #maxBackoff: number;
  readonly #random: () => number;

  constructor(options: PollScheduleOptions = {}) {
    this.#intervalSeconds = options.defaultIntervalSeconds ?? 60;
    this.#min = options.minIntervalSeconds ?? 0;
    this.#maxBackoff = options.maxBackoffSeconds ?? 900;
    this.#random = options.random ?? Math.random;
  }

  /** The interval in force, in seconds: the service's latest `X-Poll-Interval`, raised to the minimum. */
  get intervalSeconds(): number {
    return Math.max(this.#intervalSeconds, this.#min);
  }

  /** Consecutive failed polls. */
  get failures(): number {
    return this.#failures;
  }

  /** Takes the interval from an `X-Poll-Interval` header; ignores a missing or malformed one. */
  observe(header: string | null | undefined): void {
    if (header === null || header === undefined) return;
    const seconds = Number(header.trim());
    if (Number.isFinite(seconds) && seconds >= 0) this.#intervalSeconds = seconds;
  }

  /** A poll went through: the wait before the next one, in ms. */
  succeeded(): number {
    this.#failures = 0;
    return this.intervalSeconds * 1000;
  }

  /** A poll failed: the wait before trying again, in ms. */
  failed(error: unknown, nowMs: number): number {
    this.#failures++;
    const base = Math.max(this.intervalSeconds, 1);
    // Jitter only above, never below: the interval is a floor.
    const policy = { minMs: base * 1000, maxMs: Math.max(this.#maxBackoff, base) * 1000, jitter: JITTER_ABOVE };
    let delay = backoffDelay(this.#failures - 1, policy, this.#random);
    if (error instanceof RateLimitedError) {
      if (error.retryAfterSeconds !== undefined) delay = Math.max(delay, error.retryAfterSeconds * 1000);
      if (error.resetAt) delay = Math.max(delay, error.resetAt.getTime() - nowMs);
    }
    return Math.round(delay);
  }
}
