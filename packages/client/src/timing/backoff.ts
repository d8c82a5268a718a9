// The one backoff formula of shiplog: the client's retries, the pollers' error backoff and the controller's
// retries differ only in how much of each step is random.

/** How much of a backoff step is random: the wait is a uniform fraction of the step between `low` and `high`. */
export interface Jitter {
  low: number;
  high: number;
}

/** Anywhere from nothing to the whole step (AWS's "full jitter"): callers spread out the most. */
export const FULL_JITTER: Jitter = { low: 0, high: 1 };
/** Half the step fixed, half random ("equal jitter"): never immediately, yet not in lockstep. */
export const EQUAL_JITTER: Jitter = { low: 0.5, high: 1 };
/** The whole step and up to a tenth more: the step is a floor (a poll interval the service asked for). */
export const JITTER_ABOVE: Jitter = { low: 1, high: 1.1 };

/** A backoff: steps double from `minMs` up to `maxMs`, each drawn within `jitter` (default full jitter). */
export interface BackoffPolicy {
  minMs: number;
  maxMs: number;
  jitter?: Jitter;
}

/** The wait before retry number `attempt` (0-based): step = min(maxMs, minMs * 2^attempt), scaled by the jitter. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  // 2^30 steps overflow nothing and exceed any ceiling a caller sets.
  const step = Math.min(policy.maxMs, policy.minMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  const { low, high } = policy.jitter ?? FULL_JITTER;
  return Math.round(step * (low + (high - low) * random()));
}
