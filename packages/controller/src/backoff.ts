// Exponential backoff with "equal jitter": half the step is fixed, half random, so a retry never comes
// immediately (as full jitter allows) yet many controllers do not retry in lockstep.

/** Delay before retry number `attempt` (0-based): between step/2 and step, step = min(max, min * 2^attempt). */
export function backoffDelay(attempt: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (step / 2) * random());
}
