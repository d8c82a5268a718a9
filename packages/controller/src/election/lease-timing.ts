// client-go's rules between the leader-election durations, as data (config/setting-relations.ts) so the controller's
// configuration and the chart check the same rules: pure, so the configuration checks them without loading the
// Kubernetes client.
import { type OrderRelation, relationProblem } from "../config/setting-relations.js";

/** client-go's JitterFactor for the candidates' retry loop. */
export const JITTER_FACTOR = 1.2;

/** The three durations of an election, in milliseconds. */
export interface LeaseTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * client-go's rules: a deposed leader stops (at its renew deadline) before another candidate may take the Lease (at
 * its duration), and a leader retries its renewal at least once, with jitter, before its deadline.
 */
export const LEASE_TIMING_RULES = [
  {
    kind: "order",
    setting: "leaseDurationMs",
    than: "renewDeadlineMs",
    factor: 1,
    orEqual: false,
    message: "the lease duration must be longer than the renew deadline",
  },
  {
    kind: "order",
    setting: "renewDeadlineMs",
    than: "retryPeriodMs",
    factor: JITTER_FACTOR,
    orEqual: false,
    message: `the renew deadline must be longer than ${JITTER_FACTOR} × the retry period`,
  },
] as const satisfies readonly OrderRelation<keyof LeaseTiming>[];

/** The Lease counts whole seconds. */
const LEAST_LEASE_MS = 1000;

/** Checks client-go's rules between the three durations; returns the problems found. */
export function leaseTimingProblems(t: LeaseTiming): string[] {
  const problems = LEASE_TIMING_RULES.flatMap((rule) => relationProblem(rule, t) ?? []);
  if (t.leaseDurationMs < LEAST_LEASE_MS) problems.push("the lease duration must be at least 1s (the Lease counts whole seconds)");
  return problems;
}
