// Sends pending entries through the cluster endpoint: grouped by logical and physical environment, in calls of
// at most `batchSize` (≤ 1000) entries, with p-queue bounding the calls in flight. A failed call leaves its
// entries pending (the caller retries them after a backoff); an entry the service refuses on its own (422 after
// bisection, or listed in `errors` under partial success) is reported as rejected, never silently dropped.
import type { ClusterDeploymentEntry, ClusterDeploymentResult, SetClusterDeploymentRecordsParams } from "@shiplog/client";
import PQueue from "p-queue";
import type { Logger } from "pino";
import { systemClock, type Clock } from "../clock.js";
import type { AcknowledgedRecord } from "../state/acknowledged-state.js";
import type { RecordGroup } from "../mapping/pod-records.js";
import type { PendingRecord } from "../mapping/record-diff.js";
import { callBudget, classifyFailure, SendGate, type CallFailure } from "./send-gate.js";
import { NotLeaderError, type LeadershipFence } from "../election/fence.js";

/** The one client call the sender needs (ShiplogClient#artifacts has it). */
export interface ClusterRecordsApi {
  setClusterDeploymentRecords(
    params: SetClusterDeploymentRecordsParams,
    options?: { signal?: AbortSignal },
  ): Promise<ClusterDeploymentResult>;
}

/** Settings of the sender. */
export interface BatchSenderOptions {
  api: ClusterRecordsApi;
  org: string;
  cluster: string;
  batchSize: number;
  concurrency: number;
  dryRun: boolean;
  logger: Logger;
  /**
   * Called after each call with its outcome, for metrics: `refused`, of an answered call, is how many of its entries
   * the answer refused (all of them: the call achieved nothing).
   */
  onRequest?: (outcome: { ok: boolean; entries: number; refused?: number; durationMs: number; code?: string }) => void;
  /**
   * Checked right before every call: when this replica does not lead, the batch is not sent and stays pending.
   * Default: unfenced.
   */
  fence?: LeadershipFence;
  /** The sender-wide not-before gate; default one of its own (retry delays 1 s .. 60 s). */
  gate?: SendGate;
  /** Called when the gate closes, with the reason and delay. */
  onGateClosed?: (reason: string, delayMs: number) => void;
  /** The clock the gate's not-before time is read on. Default the system's. */
  clock?: Pick<Clock, "now">;
}

/** An entry the service refused on its own merits. */
export interface RejectedRecord {
  record: PendingRecord;
  /** The service's words, for the log. */
  reason: string;
  /**
   * Why, as a stable code (a metric label): the entry's `cause` in the answer's `errors` (not_found: nothing links
   * the image to a repository of the organization; unauthorized), or the error code of a call refused for it alone.
   */
  cause: string;
}

/** The stable code of a call's refusal, for the entries it refused (see RejectedRecord.cause). */
export function refusalCause(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code !== "" ? code : "refused";
}

/** What one send achieved. */
export interface SendResult {
  /** Calls sent to the service. */
  requests: number;
  /** Calls the service answered with success. */
  succeeded: number;
  /** Calls the service refused for the token itself: 401, or 403 other than a rate limit. */
  refusedToken: number;
  /** The status of the last such refusal, for the readiness reason. */
  refusedTokenStatus?: number;
  accepted: AcknowledgedRecord[];
  rejected: RejectedRecord[];
  failed: PendingRecord[];
  /** The longest wait the service asked for (Retry-After), if any. */
  retryAfterMs?: number;
  /** The first failure, for logs. */
  error?: Error;
  /** The most calls this send could make (see callBudget). */
  budget?: number;
  /** Entries left unsent because the gate closed or the call budget ran out. */
  held?: number;
}

/** One send's bookkeeping across its batches. */
interface SendRun {
  result: SendResult;
  signal: AbortSignal | undefined;
  budget: number;
  /** Whole-call refusals since the last success in this send. */
  refusalsInARow: number;
}

/** The identity of an environment group: entries of one call share it. */
export function groupKey(group: RecordGroup): string {
  return `${group.logicalEnvironment}\u0000${group.physicalEnvironment ?? ""}`;
}

/** Groups entries by environment, in a stable order. */
export function groupRecords(pending: readonly PendingRecord[]): { group: RecordGroup; records: PendingRecord[] }[] {
  const groups = new Map<string, { group: RecordGroup; records: PendingRecord[] }>();
  for (const record of pending) {
    const id = groupKey(record.group);
    let g = groups.get(id);
    if (!g) {
      g = { group: record.group, records: [] };
      groups.set(id, g);
    }
    g.records.push(record);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The client refused the request before sending it (its own validation): no call was made. */
function isUnsent(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "invalid_request";
}

/** Sends entries in batches through the cluster endpoint. */
export class BatchSender {
  readonly #queue: PQueue;
  /** The sender-wide not-before gate (shared by every flush). */
  readonly gate: SendGate;
  readonly #clock: Pick<Clock, "now">;

  constructor(private readonly options: BatchSenderOptions) {
    this.#queue = new PQueue({ concurrency: options.concurrency });
    this.gate = options.gate ?? new SendGate({ minDelayMs: 1000, maxDelayMs: 60_000 });
    this.#clock = options.clock ?? systemClock;
  }

  /** Sends the entries, grouped by environment in calls of at most batchSize; resolves when every call has finished. */
  send(pending: readonly PendingRecord[], signal?: AbortSignal): Promise<SendResult> {
    const batches: PendingRecord[][] = [];
    for (const { records } of groupRecords(pending)) batches.push(...chunk(records, this.options.batchSize));
    return this.sendBatches(batches, signal);
  }

  /** Sends batches already made (each of one environment, at most batchSize entries), one call each. */
  async sendBatches(batches: readonly (readonly PendingRecord[])[], signal?: AbortSignal): Promise<SendResult> {
    const result: SendResult = { requests: 0, succeeded: 0, refusedToken: 0, accepted: [], rejected: [], failed: [], held: 0 };
    const run: SendRun = { result, signal, budget: callBudget(batches.length, this.options.batchSize), refusalsInARow: 0 };
    result.budget = run.budget;
    const calls = batches
      .filter((batch) => batch.length > 0)
      .map((batch) => this.#queue.add(() => this.#sendBatch(batch[0]!.group, [...batch], run)));
    await Promise.all(calls);
    return result;
  }

  /** Leaves a batch pending unsent (gate closed, budget spent, aborted). */
  #hold(batch: PendingRecord[], result: SendResult): void {
    result.failed.push(...batch);
    result.held = (result.held ?? 0) + batch.length;
  }

  async #sendBatch(group: RecordGroup, batch: PendingRecord[], run: SendRun): Promise<void> {
    const { result, signal } = run;
    if (signal?.aborted || !this.gate.isOpen(this.#clock.now()) || result.requests >= run.budget) {
      this.#hold(batch, result);
      if (result.requests >= run.budget)
        result.error ??= new Error(`call budget of ${run.budget} spent; the rest waits for the next flush`);
      return;
    }
    const deployments: ClusterDeploymentEntry[] = batch.map((r) => r.entry);
    if (this.options.dryRun) {
      this.options.logger.info(
        { dryRun: true, logicalEnvironment: group.logicalEnvironment, physicalEnvironment: group.physicalEnvironment, deployments },
        "would send deployment records",
      );
      result.accepted.push(...batch);
      return;
    }
    const params: SetClusterDeploymentRecordsParams = {
      org: this.options.org,
      cluster: this.options.cluster,
      logical_environment: group.logicalEnvironment,
      deployments,
      return_records: false,
      partial_success: true,
    };
    if (group.physicalEnvironment !== undefined) params.physical_environment = group.physicalEnvironment;
    if (this.options.fence && !this.options.fence.leading()) {
      result.failed.push(...batch);
      result.error ??= new NotLeaderError();
      return;
    }
    const decommissioned = batch.reduce((n, r) => n + (r.entry.status === "decommissioned" ? 1 : 0), 0);
    const batchLog = {
      logicalEnvironment: group.logicalEnvironment,
      physicalEnvironment: group.physicalEnvironment,
      entries: batch.length,
      deployed: batch.length - decommissioned,
      decommissioned,
    };
    const started = performance.now();
    try {
      const answer = await this.options.api.setClusterDeploymentRecords(params, signal ? { signal } : {});
      const durationMs = performance.now() - started;
      result.requests += 1;
      result.succeeded += 1;
      run.refusalsInARow = 0;
      this.gate.succeeded();
      const refused = new Map<string, string>();
      for (const e of answer.errors ?? []) refused.set(e.deployment.deployment_name, e.cause);
      let accepted = 0;
      for (const record of batch) {
        const cause = refused.get(record.entry.deployment_name);
        if (cause !== undefined) result.rejected.push({ record, reason: cause, cause });
        else {
          result.accepted.push(record);
          accepted += 1;
        }
      }
      this.options.onRequest?.({ ok: true, entries: batch.length, refused: batch.length - accepted, durationMs });
      this.options.logger.info(
        { ...batchLog, accepted, refused: batch.length - accepted, durationMs: Math.round(durationMs) },
        "batch sent",
      );
    } catch (error) {
      const durationMs = performance.now() - started;
      const code = (error as { code?: string }).code;
      const status = (error as { status?: number }).status;
      const sent = !isUnsent(error);
      if (sent) {
        result.requests += 1;
        this.options.onRequest?.({ ok: false, entries: batch.length, durationMs, ...(code ? { code } : {}) });
      }
      if ((status === 401 || status === 403) && code !== "rate_limited") {
        result.refusedToken += 1;
        result.refusedTokenStatus = status;
      }
      this.options.logger.info(
        { ...batchLog, failed: true, sent, code: code ?? null, status: status ?? null, durationMs: Math.round(durationMs) },
        sent ? "batch failed" : "batch not sent: the client refused it",
      );
      const failure = error as CallFailure & { serviceMessage?: string; retryAfterSeconds?: number };
      const action = classifyFailure({ ...failure, message: failure.serviceMessage ?? failure.message ?? "" });
      const reason = (error as Error).message;
      const cause = refusalCause(error);
      if (action.kind === "reject-named") {
        // The service named the bad entries: reject them, send the rest again (one call, no bisection).
        const rest: PendingRecord[] = [];
        for (const record of batch) {
          if (action.names.has(record.entry.deployment_name)) result.rejected.push({ record, reason, cause });
          else rest.push(record);
        }
        if (rest.length > 0 && rest.length < batch.length) await this.#sendBatch(group, rest, run);
        else if (rest.length > 0) this.#failWhole(batch, run, error as Error, "whole-call");
        return;
      }
      if (action.kind === "bisect" || (action.kind === "probe" && batch.length > 1 && run.refusalsInARow === 0)) {
        // One bad entry must not hold back a thousand good ones: bisect until it is isolated. A 422 naming nothing
        // is probed the same way, but a half refused likewise (refusalsInARow) closes the gate instead.
        if (action.kind === "probe") run.refusalsInARow += 1;
        if (batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          await this.#sendBatch(group, batch.slice(0, half), run);
          await this.#sendBatch(group, batch.slice(half), run);
        } else {
          result.rejected.push({ record: batch[0]!, reason, cause });
        }
        return;
      }
      if (action.kind === "probe" && batch.length === 1 && run.refusalsInARow === 0) {
        // A single entry refused right after a success: it is the bad one.
        result.rejected.push({ record: batch[0]!, reason, cause });
        return;
      }
      this.#failWhole(
        batch,
        run,
        error as Error,
        action.kind === "spammed" ? "spammed" : action.kind === "probe" ? "refused" : "whole-call",
      );
    }
  }

  /** A whole-call refusal: the batch stays pending; a spammed 422 or a repeat closes the sender-wide gate. */
  #failWhole(batch: PendingRecord[], run: SendRun, error: Error, reason: "spammed" | "refused" | "whole-call"): void {
    const { result } = run;
    result.failed.push(...batch);
    result.error ??= error;
    const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    if (retryAfter !== undefined) result.retryAfterMs = Math.max(result.retryAfterMs ?? 0, retryAfter * 1000);
    run.refusalsInARow += 1;
    if (reason === "whole-call" && run.refusalsInARow < 2) return;
    if (!this.gate.isOpen(this.#clock.now())) return;
    const delay = this.gate.close(this.#clock.now(), reason, result.retryAfterMs ?? 0);
    this.options.onGateClosed?.(reason, delay);
    this.options.logger.warn({ reason, delayMs: delay, err: error.message }, "the service refuses whole calls; the sender backs off");
  }
}
