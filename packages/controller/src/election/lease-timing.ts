// client-go's rules between the leader-election durations: pure, so the configuration checks them without loading
// the Kubernetes client.

/** client-go's JitterFactor for the candidates' retry loop. */
export const JITTER_FACTOR = 1.2;

/** Checks client-go's rules between the three durations; returns the problems found. */
export function leaseTimingProblems(t: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }): string[] {
  const problems: string[] = [];
  if (t.leaseDurationMs <= t.renewDeadlineMs) problems.push("the lease duration must be longer than the renew deadline");
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs)
    problems.push(`the renew deadline must be longer than ${JITTER_FACTOR} × the retry period`);
  if (t.leaseDurationMs < 1000) problems.push("the lease duration must be at least 1s (the Lease counts whole seconds)");
  return problems;
}
