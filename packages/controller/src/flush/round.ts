// One round of the flush loop, in the order the write-ahead needs (see README, "Persisted state"):
//   1. the desired state and the plan (flush/reconciler.ts): the batches the budget allows now, and their intents;
//   2. the intent write: those batches' deployed entries join the in-flight set on disk (nothing is sent unless it
//      succeeds: an intent not on disk must not be acted on);
//   3. the calls;
//   4. the answer write: accepted entries move to the acknowledged set and leave the in-flight set. It runs while the
//      next round plans; the next round waits for it before its own intent write, so writes stay in order. When
//      more is left to send and the budget has a call for it soon, it is left to the next round's intent write, which
//      carries both (one state write a round in a long backlog instead of two; answers not yet on disk at a crash
//      only mean those entries are sent again, never that one is lost).
import type { Logger } from "pino";
import type { BatchSender, SendResult } from "./batch-sender.js";
import type { DesiredStateReport } from "../mapping/desired-state-report.js";
import type { DesiredStateSource } from "../mapping/desired-state-source.js";
import type { ControllerMetrics } from "../observability/metrics.js";
import { planRound, settleRound, type ReconcilerSettings, type ReconcilerState, type RoundPlan } from "./reconciler.js";
import type { StatePersistence } from "../state/persistence.js";
import type { UnlinkedRecords } from "../mapping/unlinked-records.js";

/** The outcome of one round. */
export interface FlushSummary {
  /** Records the cluster should have. */
  desired: number;
  /** Entries that needed sending when the round was planned. */
  pending: number;
  /** Entries left for later rounds by the write budget (or the resync's share). */
  deferred: number;
  requests: number;
  accepted: number;
  rejected: number;
  failed: number;
  conflicts: number;
  /** Where the round's time went (ms): the plan (desired state, diff), the intent write (after the previous round's
   * answer write), the calls. */
  timings: { planMs: number; intentWriteMs: number; callsMs: number };
}

/** Points of a round, in order: intents on disk and no call made; calls issued; answers back, not yet on disk. */
export type RoundPoint = "before-send" | "in-flight" | "after-answer";

/** Watches a round: what it is about to send, and each point it reaches. What it does there is its own (tests). */
export interface RoundProbe {
  sending(deploymentNames: readonly string[]): void;
  reached(point: RoundPoint): void;
}

/** What a round works with. */
export interface RoundContext {
  logger: Logger;
  metrics: ControllerMetrics;
  source: DesiredStateSource;
  report: DesiredStateReport;
  persistence: StatePersistence;
  sender: BatchSender;
  reconciler: ReconcilerSettings;
  /** Watches the round's points (the crash matrix's hook kills the process at one). */
  probe?: RoundProbe | undefined;
  /** Reports records the service refuses for want of a repository. */
  unlinked?: UnlinkedRecords | undefined;
}

/** What the loop asks of a round. */
export interface RoundRequest {
  now: number;
  /** Calls the budget allows this round. */
  calls: number;
  /** Start a resync slice of this many records. */
  resyncSlice?: number;
  /** The pod cache is still being listed: desired records only, no decommission. */
  partial?: boolean;
  /** Aborted when the controller stops or this replica stops leading. */
  signal: AbortSignal;
  /** The previous round's answer write, if still running: awaited before this round writes. */
  previousWrite?: Promise<unknown> | undefined;
  /** The budget has room for another call soon: answers may wait for the next round's intent write. */
  nextCallSoon?: boolean;
  /** Changes came in since the round began: the next round runs within the coalescing window, and writes the answers. */
  changesPending?: () => boolean;
  /** Called when the round is ready to send (plan made, intents on disk), right before its calls wait for their slot. */
  onPrepared?: () => void;
}

/** What a round did. */
export interface RoundResult {
  summary: FlushSummary;
  plan: RoundPlan;
  state: ReconcilerState;
  /** The calls' result; absent when nothing was sent (nothing to send, or the intent write failed). */
  sent?: SendResult;
  /** The answer write, started: resolves with its duration (ms) once the answers are on disk (or the write failed). */
  answerWrite?: Promise<number>;
}

/** Runs one round: plan, intent write, calls, answer write. */
export async function runRound(ctx: RoundContext, state: ReconcilerState, request: RoundRequest): Promise<RoundResult> {
  const { persistence, sender, metrics, logger } = ctx;
  const store = persistence.store;
  let mark = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
  const { desired, changedKeys } = ctx.source.current();
  ctx.report.report(desired);
  const workloadOf = (key: string) => desired.records.get(key)?.workload;
  const live = (key: string) => desired.records.has(key);
  ctx.unlinked?.update({ accepted: [], rejected: [] }, workloadOf, live);
  const plan = planRound(
    state,
    {
      desired,
      acknowledged: store.all(),
      inFlight: store.inFlight(),
      ...(changedKeys !== undefined ? { changedKeys } : {}),
      now: request.now,
      calls: request.calls,
      ...(request.resyncSlice !== undefined ? { resyncSlice: request.resyncSlice } : {}),
      ...(request.partial ? { partial: true } : {}),
    },
    ctx.reconciler,
  );
  const summary: FlushSummary = {
    desired: desired.records.size,
    pending: plan.pending,
    deferred: plan.pending - plan.batches.reduce((n, b) => n + b.records.length, 0),
    requests: 0,
    accepted: 0,
    rejected: 0,
    failed: 0,
    conflicts: desired.conflicts.length,
    timings: { planMs: lap(), intentWriteMs: 0, callsMs: 0 },
  };
  // Write-ahead: the deployed entries about to be sent are made durable first, so after a crash at any later
  // instant the next leader knows they may exist at the service. The same write records the calls about to leave
  // (also a round's that only decommissions), so that leader also keeps to the windows they fill.
  if (plan.intents.length > 0) store.intend(plan.intents);
  await request.previousWrite;
  const written = plan.batches.length > 0 || persistence.unwritten ? await persistence.write({ plannedCalls: plan.batches.length }) : true;
  summary.timings.intentWriteMs = lap();
  if (!written || plan.batches.length === 0) return { summary, plan, state: plan.state };

  request.onPrepared?.();
  const batches = plan.batches.map((b) => b.records);
  ctx.probe?.sending(batches.flatMap((b) => b.map((r) => r.entry.deployment_name)));
  ctx.probe?.reached("before-send");
  ctx.probe?.reached("in-flight");
  const sent = await sender.sendBatches(batches, request.signal);
  summary.timings.callsMs = lap();
  ctx.probe?.reached("after-answer");
  store.acknowledge(sent.accepted);
  // A refused entry is answered too: the service holds none of it, so it is no longer in flight.
  store.refuse(sent.rejected.map((r) => r.record));
  const next = settleRound(
    plan.state,
    plan,
    { accepted: sent.accepted, rejected: sent.rejected, requests: sent.requests },
    request.now,
    ctx.reconciler,
  );
  for (const { record, reason, cause } of sent.rejected) {
    logger.warn(
      { deploymentName: record.entry.deployment_name, digest: record.entry.digest, cause, reason },
      "service refused a deployment record",
    );
    metrics.recordsRejected.inc({ reason: cause });
  }
  ctx.unlinked?.update(sent, workloadOf, live);
  for (const record of sent.accepted) metrics.recordsAccepted.inc({ status: record.entry.status ?? "deployed" });
  summary.requests = sent.requests;
  summary.accepted = sent.accepted.length;
  summary.rejected = sent.rejected.length;
  summary.failed = sent.failed.length;
  if (sent.accepted.length === 0 && sent.rejected.length === 0) return { summary, plan, state: next, sent };
  const nextRound = next.backlog.size > 0 || request.changesPending?.() === true;
  const nextRoundWrites = request.nextCallSoon === true && nextRound && sent.failed.length === 0 && (sent.held ?? 0) === 0;
  if (nextRoundWrites) {
    persistence.defer();
    return { summary, plan, state: next, sent };
  }
  const answerWrite = persistence.write().then(() => Math.round(performance.now() - mark));
  return { summary, plan, state: next, sent, answerWrite };
}
