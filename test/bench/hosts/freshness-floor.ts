// The fewest calls a schedule can make for records that become sendable over time when none may wait longer than the
// flush's maximum wait: issue #19's rollout target (ceil(records / 1000) + 2 requests) assumed the rollout's records
// arrive as one burst. On a real control plane a Deployment rolls pod by pod, and 10% of 3,000 Deployments become
// sendable over 20 s or more; a schedule that kept every record within the maximum wait (the freshness target) then
// needs a call per max-wait window at least. This floor is exact for a burst (ceil(records / batch)), so the target
// built on it is the wherever the premise holds.
import { loadConfig } from "../../../packages/controller/src/config/config.js";

/**
 * The fewest calls that carry records becoming sendable at `times` (ms, any order) with none waiting longer than
 * `maxWaitMs` and at most `batch` records a call: the greedy cover (each call as late as the oldest waiting record
 * allows) is optimal.
 */
export function freshnessFloorCalls(times: readonly number[], maxWaitMs: number, batch: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let calls = 0;
  for (let i = 0; i < sorted.length; ) {
    const due = sorted[i]! + maxWaitMs;
    let j = i;
    while (j < sorted.length && sorted[j]! <= due) j++;
    calls += Math.ceil((j - i) / batch);
    i = j;
  }
  return calls;
}

/** The controller's maximum flush wait and batch size under `env` (its own configuration parser and defaults). */
export function controllerFlushSettings(env: Readonly<Record<string, string>>): { maxWaitMs: number; batch: number } {
  // Placeholders for the settings the parser requires; only the flush's are read.
  const config = loadConfig([], {
    SHIPLOG_API_URL: "http://127.0.0.1:1",
    SHIPLOG_TOKEN: "placeholder",
    SHIPLOG_CLUSTER: "bench",
    SHIPLOG_ORG: "bench",
    SHIPLOG_LOGICAL_ENVIRONMENT: "bench",
    ...env,
  });
  return { maxWaitMs: config.flushMaxWaitMs, batch: config.batchSize };
}
