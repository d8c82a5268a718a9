// What a round's calls mean for the rounds after it: the failure backoff (no round before `notBefore`), the count
// of rounds in which the service refused the token on every call (readiness looks at it), and the totals.
import type { Logger } from "pino";
import { backoffDelay } from "./backoff.js";
import type { SendResult } from "./batch-sender.js";
import { TOKEN_REFUSED_FLUSHES_UNREADY } from "../observability/readiness.js";

/** The flush loop's record of its calls' outcomes. */
export class CallOutcomes {
  consecutiveFailures = 0;
  /** Failure backoff: no round before this time. */
  notBefore = 0;
  requests = 0;
  recordsSent = 0;
  /** Consecutive rounds in which the service refused every call for the token; reset by any successful call. */
  tokenRefusedFlushes = 0;
  tokenRefusedStatus = 0;

  constructor(
    private readonly logger: Logger,
    private readonly retry: { minDelayMs: number; maxDelayMs: number },
  ) {}

  /** A fresh leadership starts without backoff. */
  reset(): void {
    this.consecutiveFailures = 0;
    this.notBefore = 0;
  }

  /** Takes in a round's calls at `now`; `deposed` when this replica stopped leading meanwhile. */
  record(sent: SendResult, deposed: boolean, now: number): void {
    const { logger } = this;
    this.requests += sent.requests;
    this.recordsSent += sent.accepted.length;
    if (sent.succeeded > 0) this.tokenRefusedFlushes = 0;
    else if (sent.requests > 0 && sent.refusedToken === sent.requests) {
      this.tokenRefusedFlushes += 1;
      this.tokenRefusedStatus = sent.refusedTokenStatus ?? 401;
      if (this.tokenRefusedFlushes === TOKEN_REFUSED_FLUSHES_UNREADY) {
        logger.error(
          { status: this.tokenRefusedStatus, flushes: this.tokenRefusedFlushes },
          "the service refuses the API token on every call: not ready until a call succeeds",
        );
      }
    }
    if (sent.failed.length > 0 && deposed) {
      logger.warn(
        { failed: sent.failed.length, accepted: sent.accepted.length },
        "not the leader any more; what is left is for the new leader to send",
      );
    } else if (sent.failed.length > 0) {
      const delay = Math.max(backoffDelay(this.consecutiveFailures, this.retry.minDelayMs, this.retry.maxDelayMs), sent.retryAfterMs ?? 0);
      this.consecutiveFailures += 1;
      this.notBefore = now + delay;
      const code = (sent.error as { code?: string } | undefined)?.code;
      logger.warn(
        { failed: sent.failed.length, accepted: sent.accepted.length, retryInMs: delay, err: sent.error?.message, code },
        "sending deployment records failed; they stay pending",
      );
    } else this.reset();
  }
}
