// Good manners on the wire (the service's published advice on rate limits): one not-before gate per client, so
// when one request is told to slow down, every request of the client waits with it rather than each finding out
// on its own; and mutating requests (POST, PATCH, PUT, DELETE) sent one at a time when asked.
import { AbortedError } from "../errors/errors.js";
import type { EngineResponse } from "./http-engine.js";
import { rateLimitDelay } from "./retry-policy.js";
import { systemClock, type TransportClock } from "../timing/clock.js";
import type { Attempt, TransportPlugin } from "./pipeline.js";

export interface ThrottleOptions {
  /** Send POST, PATCH, PUT and DELETE one at a time (the service's advice). Default false. */
  serializeMutations?: boolean;
  /** Default: the system clock. */
  clock?: TransportClock;
  /**
   * The longest the gate stays closed for one answer. Default 60 s: a primary limit that resets in 40 minutes
   * must not hang every caller for 40 minutes; after this, calls are sent and fail fast as `rate_limited`.
   */
  maxWaitMs?: number;
  /** Told whenever a rate-limited answer closes the gate (for logs and metrics). */
  onRateLimited?(info: { method: string; route: string; status: number; waitMs: number; secondary: boolean }): void;
}

const MUTATING = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** The client's shared not-before gate and mutation queue, as a transport plugin. */
export class Throttle implements TransportPlugin {
  readonly name = "throttle";
  readonly #clock: TransportClock;
  readonly #serialize: boolean;
  readonly #onRateLimited: ThrottleOptions["onRateLimited"];
  readonly #maxWaitMs: number;
  #notBefore = 0;
  /** The tail of the mutation queue: each mutating attempt waits for the one before it to settle. */
  #mutationTail: Promise<unknown> = Promise.resolve();

  constructor(options: ThrottleOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#serialize = options.serializeMutations ?? false;
    this.#onRateLimited = options.onRateLimited;
    this.#maxWaitMs = options.maxWaitMs ?? 60_000;
    if (this.#serialize) this.wrap = (send, attempt) => this.#serialized(send, attempt);
  }

  /** When the gate opens (epoch ms); 0 or the past when open. */
  get notBefore(): number {
    return this.#notBefore;
  }

  /** Closes the gate until `until` (epoch ms), unless it already stays closed longer. */
  closeUntil(until: number): void {
    if (until > this.#notBefore) this.#notBefore = until;
  }

  /** Waits while the gate is closed; nothing to wait for (the usual case) costs no promise. */
  before(attempt: Attempt): Promise<void> | undefined {
    return this.#notBefore > this.#clock.now() ? this.#passGate(attempt) : undefined;
  }

  after(response: EngineResponse, attempt: Attempt): void {
    // A serialised mutation was observed before it let the next one go.
    if (!this.#serialize || !MUTATING.has(attempt.method)) this.#observe(response, attempt);
  }

  /** Present only when mutations are serialised: each waits for the one before it, then for the gate again. */
  readonly wrap?: (send: (attempt: Attempt) => Promise<EngineResponse>, attempt: Attempt) => Promise<EngineResponse>;

  async #serialized(send: (attempt: Attempt) => Promise<EngineResponse>, attempt: Attempt): Promise<EngineResponse> {
    if (!MUTATING.has(attempt.method)) return send(attempt);
    const previous = this.#mutationTail;
    let release!: () => void;
    this.#mutationTail = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      // The gate may have closed while this one queued.
      await this.before(attempt);
      const response = await send(attempt);
      this.#observe(response, attempt);
      return response;
    } finally {
      release();
    }
  }

  /** Waits while the gate is closed; a gate closed again meanwhile (another answer) is waited for too. */
  async #passGate(attempt: Attempt): Promise<void> {
    for (let wait = this.#notBefore - this.#clock.now(); wait > 0; wait = this.#notBefore - this.#clock.now()) {
      try {
        await this.#clock.sleep(wait, attempt.signal);
      } catch (reason) {
        throw new AbortedError(attempt.operation, { cause: reason });
      }
    }
  }

  #observe(response: EngineResponse, attempt: Attempt): void {
    const status = response.status;
    if (status !== 403 && status !== 429) return;
    const waitMs = rateLimitDelay(response.headers, response.body, this.#clock.now());
    // A 403 asking for no wait is a refusal, not a limit.
    if (waitMs === undefined) return;
    this.closeUntil(this.#clock.now() + Math.min(waitMs, this.#maxWaitMs));
    this.#onRateLimited?.({
      method: attempt.method,
      route: attempt.route,
      status,
      waitMs,
      secondary: response.headers.get("x-ratelimit-remaining") !== "0",
    });
  }
}
