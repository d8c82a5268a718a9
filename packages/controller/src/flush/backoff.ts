// The controller's backoff: shiplog's one backoff formula (@shiplog/client's) with "equal jitter": half the step is
// fixed, half random, so a retry never comes immediately (as full jitter allows) yet many controllers do not retry
// in lockstep.
import { backoffDelay as sharedBackoff, EQUAL_JITTER } from "@shiplog/client/internal";

/** Delay before retry number `attempt` (0-based): between step/2 and step, step = min(max, min * 2^attempt). */
export function backoffDelay(attempt: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  return sharedBackoff(attempt, { minMs, maxMs, jitter: EQUAL_JITTER }, random);
}
