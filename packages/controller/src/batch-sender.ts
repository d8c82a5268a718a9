// Sends pending entries through the cluster endpoint: grouped by logical and physical environment, in calls of
// at most `batchSize` (≤ 1000) entries, with p-queue bounding the calls in flight. A failed call leaves its
// entries pending (the caller retries them after a backoff); an entry the service refuses on its own (422 after
// bisection, or listed in `errors` under partial success) is reported as rejected, never silently dropped.
import { ShiplogError } from "@shiplog/client";
import type { ClusterDeploymentEntry, ClusterDeploymentResult, SetClusterDeploymentRecordsParams } from "@shiplog/client";
import PQueue from "p-queue";
import type { Logger } from "pino";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
import type { RecordGroup } from "./pod-records.js";
import type { PendingRecord } from "./record-diff.js";

/** The one client call the sender needs (ShiplogClient#artifacts has it). */
export interface ClusterRecordsApi {
  setClusterDeploymentRecords(params: SetClusterDeploymentRecordsParams, options?: { signal?: AbortSignal }): Promise<ClusterDeploymentResult>;
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
  /** Called after each call with its outcome, for metrics. */
  onRequest?: (outcome: { ok: boolean; entries: number; durationMs: number; code?: string }) => void;
  /**
   * Checked right before every call (leader fencing): when it says no, the batch is not sent and stays pending.
   * Default: always yes.
   */
  mayPost?: () => boolean;
}

/** A batch was not sent because this replica is not (or no longer) the leader. */
export class NotLeaderError extends ShiplogError {
  constructor() {
    super("not_leader", "not the leader: deployment records are posted only by the replica holding the lease");
  }
}

/** An entry the service refused on its own merits. */
export interface RejectedRecord {
  record: PendingRecord;
  reason: string;
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
}

/** Groups entries by environment, in a stable order. */
export function groupRecords(pending: readonly PendingRecord[]): { group: RecordGroup; records: PendingRecord[] }[] {
  const groups = new Map<string, { group: RecordGroup; records: PendingRecord[] }>();
  for (const record of pending) {
    const id = `${record.group.logicalEnvironment}\u0000${record.group.physicalEnvironment ?? ""}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { group: record.group, records: [] }));
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

function isEntryValidationError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "validation_failed" || code === "invalid_request";
}

/** The client refused the request before sending it (its own validation): no call was made. */
function isUnsent(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "invalid_request";
}

/** Sends entries in batches through the cluster endpoint. */
export class BatchSender {
  readonly #queue: PQueue;

  constructor(private readonly options: BatchSenderOptions) {
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Sends the entries; resolves when every call has finished, successful or not. */
  async send(pending: readonly PendingRecord[], signal?: AbortSignal): Promise<SendResult> {
    const result: SendResult = { requests: 0, succeeded: 0, refusedToken: 0, accepted: [], rejected: [], failed: [] };
    const tasks: Promise<void>[] = [];
    for (const { group, records } of groupRecords(pending)) {
      for (const batch of chunk(records, this.options.batchSize)) {
        tasks.push(this.#queue.add(() => this.#sendBatch(group, batch, result, signal)));
      }
    }
    await Promise.all(tasks);
    return result;
  }

  async #sendBatch(group: RecordGroup, batch: PendingRecord[], result: SendResult, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) {
      result.failed.push(...batch);
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
    if (this.options.mayPost && !this.options.mayPost()) {
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
      this.options.onRequest?.({ ok: true, entries: batch.length, durationMs });
      result.succeeded += 1;
      const refused = new Map<string, string>();
      for (const e of answer.errors ?? []) refused.set(e.deployment.deployment_name, e.cause);
      let accepted = 0;
      for (const record of batch) {
        const cause = refused.get(record.entry.deployment_name);
        if (cause !== undefined) result.rejected.push({ record, reason: cause });
        else {
          result.accepted.push(record);
          accepted += 1;
        }
      }
      this.options.logger.info({ ...batchLog, accepted, refused: batch.length - accepted, durationMs: Math.round(durationMs) }, "batch sent");
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
      if (isEntryValidationError(error)) {
        // One bad entry must not hold back a thousand good ones: bisect until it is isolated.
        if (batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          await this.#sendBatch(group, batch.slice(0, half), result, signal);
          await this.#sendBatch(group, batch.slice(half), result, signal);
        } else {
          result.rejected.push({ record: batch[0]!, reason: (error as Error).message });
        }
        return;
      }
      result.failed.push(...batch);
      result.error ??= error as Error;
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfter !== undefined) result.retryAfterMs = Math.max(result.retryAfterMs ?? 0, retryAfter * 1000);
    }
  }
}
