// The steady state's calls an hour, on a virtual clock: the controller's own flush loop, reconciler and write budget
// (a service that accepts everything, paced by the real pacer), `records` records all acknowledged, no change, the
// spread resync every `resyncIntervalMs`, for one hour. An hour of real time is not needed to count an hour's calls.
import { pino } from "pino";
import { InMemoryAcknowledgedStore } from "../../../packages/controller/src/state/acknowledged-state.js";
import { BatchSender } from "../../../packages/controller/src/flush/batch-sender.js";
import type { DesiredRecord, DesiredState } from "../../../packages/controller/src/mapping/desired-state.js";
import { DesiredStateReport } from "../../../packages/controller/src/mapping/desired-state-report.js";
import { FlushLoop } from "../../../packages/controller/src/flush/loop.js";
import { ControllerMetrics } from "../../../packages/controller/src/observability/metrics.js";
import { recordKey } from "../../../packages/controller/src/mapping/pod-records.js";
import { SendGate } from "../../../packages/controller/src/flush/send-gate.js";
import { StatePersistence } from "../../../packages/controller/src/state/persistence.js";
import {
  DEFAULT_WRITE_BUDGET,
  HOUR_MS,
  resyncCallsPerHour,
  resyncCallsPerInterval,
  WriteBudget,
} from "../../../packages/controller/src/flush/write-budget.js";
import { acceptingApi } from "../../../packages/controller/test/accepting-api.js";
import { VirtualClock } from "../../kit/virtual-clock.js";

/** Calls and records resent in one virtual hour of a quiet cluster. */
export async function steadyStateCallsPerHour(
  records: number,
  resyncIntervalMs: number,
  share = 0.5,
): Promise<{ calls: number; resent: number }> {
  const clock = new VirtualClock();
  const logger = pino({ level: "silent" });
  const metrics = new ControllerMetrics();
  const group = { logicalEnvironment: "production" };
  const desired: DesiredState = { records: new Map(), held: new Set(), conflicts: [], skipped: [], warnings: [] };
  const store = new InMemoryAcknowledgedStore();
  for (let i = 0; i < records; i++) {
    const name = `team-${i % 300}-svc-${i}-c0`;
    const record: DesiredRecord = {
      key: recordKey(group, name),
      group,
      entry: { name: `ghcr.io/acme/svc-${i}`, digest: `sha256:${"a".repeat(64)}`, status: "deployed", deployment_name: name },
      workload: { kind: "Deployment", namespace: `team-${i % 300}`, name: `svc-${i}` },
      pod: `svc-${i}-pod`,
      ready: true,
      revision: 1,
      createdAt: "2026-01-01T00:00:00Z",
    };
    desired.records.set(record.key, record);
  }
  store.acknowledge([...desired.records.values()]);
  const budget = new WriteBudget(DEFAULT_WRITE_BUDGET);
  let calls = 0;
  let resent = 0;
  const api = acceptingApi(budget, clock, (params) => {
    calls++;
    resent += params.deployments.length;
  });
  const leadership = new AbortController();
  const loop = new FlushLoop({
    clock,
    logger,
    metrics,
    // Nothing changes in a quiet cluster: what a desired-state tracker says (without it, each round diffs all, to
    // the same result, slower).
    source: { current: () => ({ desired, changedKeys: new Set<string>() }) },
    report: new DesiredStateReport(logger, metrics),
    persistence: new StatePersistence({ store, clock, logger, metrics, retryMinDelayMs: 1000, retryMaxDelayMs: 60_000 }),
    sender: new BatchSender({
      api,
      org: "acme",
      cluster: "c",
      batchSize: 1000,
      concurrency: 4,
      dryRun: false,
      logger,
      clock,
      gate: new SendGate({ minDelayMs: 1000, maxDelayMs: 60_000 }),
    }),
    budget,
    reconciler: { batchSize: 1000, retryMaxDelayMs: 60_000, resyncCallsPerHour: resyncCallsPerHour(DEFAULT_WRITE_BUDGET, share) },
    settings: {
      windowMs: 100,
      maxWaitMs: 1000,
      heartbeatMs: 1000,
      callsPerRound: 4,
      resyncIntervalMs,
      resyncSliceRecords: resyncCallsPerInterval(DEFAULT_WRITE_BUDGET, share, resyncIntervalMs) * 1000,
      retryMinDelayMs: 1000,
      retryMaxDelayMs: 60_000,
      dryRun: false,
    },
    fence: { leading: () => true, signal: leadership.signal },
    synced: () => true,
  });
  loop.start();
  loop.startedLeading();
  // The first round (nothing to send: all acknowledged) and half an interval, so that the hour counted holds six
  // whole resyncs rather than starting or ending on one; then an hour of quiet.
  await clock.advance(resyncIntervalMs / 2);
  calls = 0;
  resent = 0;
  await clock.advance(HOUR_MS);
  await loop.stop({ timeoutMs: 0 });
  return { calls, resent };
}
