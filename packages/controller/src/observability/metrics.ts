// Prometheus metrics of the controller, registered on an injectable registry (a fresh one per controller in tests).
import { Counter, Gauge, Histogram, Registry, type LabelValues } from "prom-client";

/**
 * An unlabelled gauge read at every scrape, with no sample while the reading is undefined. prom-client prints an
 * unlabelled Gauge as 0 when it has no value (even after reset()), and a 0 reads as a fact: a token expiring now.
 */
export class ReadingGauge extends Gauge {
  readonly #read: () => number | undefined;

  constructor(configuration: { name: string; help: string; registers: Registry[] }, read: () => number | undefined) {
    super(configuration);
    this.#read = read;
  }

  override async get(): ReturnType<Gauge["get"]> {
    const metric = await super.get();
    const value = this.#read();
    return { ...metric, values: value === undefined ? [] : [{ value, labels: {} }] };
  }
}

/** An unlabelled gauge with no sample until it is first set (and again after reset()): no value is not 0. */
export class OptionalGauge extends Gauge {
  // Not a #private field: the base constructor calls reset() before this class's fields exist.
  private present = false;

  override set(...args: [number] | [LabelValues<string>, number]): void {
    this.present = true;
    (super.set as (...values: unknown[]) => void).apply(this, args);
  }

  override reset(): void {
    this.present = false;
    super.reset();
  }

  override async get(): ReturnType<Gauge["get"]> {
    const metric = await super.get();
    return this.present ? metric : { ...metric, values: [] };
  }
}

/** The controller's metrics. */
export class ControllerMetrics {
  readonly requests: Counter<"result" | "code">;
  readonly recordsAccepted: Counter<"status">;
  readonly recordsRejected: Counter<"reason">;
  readonly refusedRecords: Gauge<"reason">;
  readonly unlinkedRecords: Gauge;
  readonly pendingRecords: Gauge;
  readonly desiredRecords: Gauge;
  readonly acknowledgedRecords: Gauge;
  readonly nameConflicts: Gauge;
  readonly skippedContainers: Gauge;
  readonly flushDuration: Histogram;
  readonly roundPhase: Histogram<"phase">;
  readonly lastSuccessfulFlush: Gauge;
  readonly informerSynced: Gauge<"kind">;
  readonly informerFailures: Gauge<"kind">;
  readonly watchRestarts: Counter<"kind" | "reason">;
  readonly requestDuration: Histogram<"result">;
  readonly retries: Counter<"reason">;
  readonly leader: Gauge;
  readonly leaderTransitions: Counter;
  readonly stateWrites: Counter<"result">;
  readonly stateBytes: Gauge;
  readonly stateDamaged: Gauge;
  readonly stateRecordsAtRisk: Gauge;
  readonly stateConflicts: Counter;
  readonly stateConflictingWriters: Gauge;
  readonly tokenRemaining: Gauge;
  readonly inFlightRecords: Gauge;
  readonly senderGateWaits: Counter<"reason">;
  readonly writeBudgetUsed: Gauge<"window">;
  readonly writeBudgetLimit: Gauge<"window">;
  readonly deferredCalls: Gauge<"reason">;
  readonly budgetWaits: Counter;
  /** When the API token expires (epoch ms), read at every scrape; undefined when unknown. */
  #tokenRemainingMs: (() => number | undefined) | undefined;
  /** The write budget's calls of the last minute and hour, read at every scrape. */
  #budgetUsed: ((window: "minute" | "hour") => number) | undefined;

  constructor(readonly registry: Registry = new Registry()) {
    const registers = [registry];
    this.requests = new Counter({
      name: "shiplog_controller_requests_total",
      help: "Cluster endpoint calls, by result and error code.",
      labelNames: ["result", "code"],
      registers,
    });
    this.recordsAccepted = new Counter({
      name: "shiplog_controller_records_accepted_total",
      help: "Entries the service accepted, by status.",
      labelNames: ["status"],
      registers,
    });
    this.recordsRejected = new Counter({
      name: "shiplog_controller_records_rejected_total",
      help: "Entries the service refused on their own merits, by reason (the service's cause: not_found, unauthorized; or the code of a call refused for that entry alone).",
      labelNames: ["reason"],
      registers,
    });
    this.refusedRecords = new Gauge({
      name: "shiplog_controller_refused_records",
      help: "Records the service refuses now (the leader's; each retried with backoff, or when it changes), by reason.",
      labelNames: ["reason"],
      registers,
    });
    this.unlinkedRecords = new Gauge({
      name: "shiplog_controller_unlinked_records",
      help: "Records refused not_found that no rule links to a repository (the `no repository for a record` log line names each workload and the fix).",
      registers,
    });
    this.pendingRecords = new Gauge({
      name: "shiplog_controller_pending_records",
      help: "Entries waiting to be sent after the last flush.",
      registers,
    });
    this.desiredRecords = new Gauge({
      name: "shiplog_controller_desired_records",
      help: "Records the cluster should have now.",
      registers,
    });
    this.acknowledgedRecords = new Gauge({
      name: "shiplog_controller_acknowledged_records",
      help: "Deployed records the service has acknowledged.",
      registers,
    });
    this.nameConflicts = new Gauge({
      name: "shiplog_controller_name_conflicts",
      help: "Deployment names claimed by more than one workload.",
      registers,
    });
    this.skippedContainers = new Gauge({
      name: "shiplog_controller_skipped_containers",
      help: "Running containers without a record (see logs for reasons).",
      registers,
    });
    this.flushDuration = new Histogram({
      name: "shiplog_controller_flush_duration_seconds",
      help: "Time to compute and send one flush.",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.roundPhase = new Histogram({
      name: "shiplog_controller_round_phase_seconds",
      help: "Where a round's time goes: plan (desired state and diff), intent_write, calls, answer_write.",
      labelNames: ["phase"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.lastSuccessfulFlush = new Gauge({
      name: "shiplog_controller_last_successful_flush_timestamp_seconds",
      help: "When a flush last left nothing pending.",
      registers,
    });
    this.informerSynced = new Gauge({
      name: "shiplog_controller_informer_synced",
      help: "1 when every informer of the kind has listed.",
      labelNames: ["kind"],
      registers,
    });
    this.informerFailures = new Gauge({
      name: "shiplog_controller_informer_failures",
      help: "Lists or watches failed in a row, the most of any informer of the kind; 0 while they list and watch.",
      labelNames: ["kind"],
      registers,
    });
    this.watchRestarts = new Counter({
      name: "shiplog_controller_watch_restarts_total",
      help: "Watch and informer restarts, by reason.",
      labelNames: ["kind", "reason"],
      registers,
    });
    this.requestDuration = new Histogram({
      name: "shiplog_controller_request_duration_seconds",
      help: "Time of one cluster endpoint call (with the client's own retries), by result.",
      labelNames: ["result"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.retries = new Counter({
      name: "shiplog_controller_retries_total",
      help: "Retries: HTTP attempts the client repeated (by reason) and flushes resending failed entries (reason flush).",
      labelNames: ["reason"],
      registers,
    });
    this.leader = new Gauge({
      name: "shiplog_controller_leader",
      help: "1 while this replica leads and may post, 0 while it stands by.",
      registers,
    });
    this.leaderTransitions = new Counter({
      name: "shiplog_controller_leader_transitions_total",
      help: "Times this replica became the leader.",
      registers,
    });
    this.stateWrites = new Counter({
      name: "shiplog_controller_state_writes_total",
      help: "Writes of the acknowledged-state ConfigMap, by result.",
      labelNames: ["result"],
      registers,
    });
    this.stateBytes = new OptionalGauge({
      name: "shiplog_controller_state_bytes",
      help: "Size of the acknowledged state last written to the ConfigMap (absent before a write, and without a state ConfigMap).",
      registers,
    });
    this.stateDamaged = new Gauge({
      name: "shiplog_controller_state_damaged",
      help: "1 while the acknowledged state the leader loaded records damage (pieces not read back exactly), until an operator clears it; /readyz names the pieces.",
      registers,
    });
    this.stateRecordsAtRisk = new Gauge({
      name: "shiplog_controller_state_records_at_risk",
      help: "Records whose decommissioning can no longer be guaranteed: what the damaged pieces of the acknowledged state held (the head's counts).",
      registers,
    });
    this.stateConflicts = new Counter({
      name: "shiplog_controller_state_conflicts_total",
      help: "State writes that met another controller's write (a resourceVersion conflict, the state's head then written by another identity).",
      registers,
    });
    this.stateConflictingWriters = new Gauge({
      name: "shiplog_controller_state_conflicting_writers",
      help: "1 while another controller writes the same state (repeated conflicts with its writes: leader election off on more than one replica); /readyz and the log name it.",
      registers,
    });
    const metrics = this;
    this.tokenRemaining = new ReadingGauge(
      {
        name: "shiplog_controller_token_remaining_seconds",
        help: "Seconds until the API token expires (App installation tokens; absent when the expiry is unknown).",
        registers,
      },
      () => {
        const remaining = metrics.#tokenRemainingMs?.();
        return remaining === undefined ? undefined : Math.max(0, remaining / 1000);
      },
    );
    this.inFlightRecords = new Gauge({
      name: "shiplog_controller_in_flight_records",
      help: "Entries of the write-ahead set: sent without an answer yet, so they may exist at the service.",
      registers,
    });
    this.senderGateWaits = new Counter({
      name: "shiplog_controller_sender_backoffs_total",
      help: "Times the whole sender was held back after a whole-call refusal (spammed 422, repeated refusals), by reason.",
      labelNames: ["reason"],
      registers,
    });
    this.writeBudgetUsed = new Gauge({
      name: "shiplog_controller_write_budget_used",
      help: "Cluster endpoint calls made in the last minute and the last hour (the write budget's windows).",
      labelNames: ["window"],
      registers,
      collect() {
        for (const window of ["minute", "hour"] as const) {
          const used = metrics.#budgetUsed?.(window);
          if (used !== undefined) this.set({ window }, used);
        }
      },
    });
    this.writeBudgetLimit = new Gauge({
      name: "shiplog_controller_write_budget_limit",
      help: "The write budget: calls allowed a minute and an hour.",
      labelNames: ["window"],
      registers,
    });
    this.deferredCalls = new Gauge({
      name: "shiplog_controller_deferred_calls",
      help: "Calls' worth of entries the last round left for later rounds: by the write budget, or by the resync's share of it.",
      labelNames: ["reason"],
      registers,
    });
    this.budgetWaits = new Counter({
      name: "shiplog_controller_budget_waits_total",
      help: "Rounds that waited for the write budget's next slot rather than running when their work came due.",
      registers,
    });
  }

  /** Where the write budget's usage is read from at each scrape, and its limits. */
  watchWriteBudget(limits: { perMinute: number; perHour: number }, used: (window: "minute" | "hour") => number): void {
    this.writeBudgetLimit.set({ window: "minute" }, limits.perMinute);
    this.writeBudgetLimit.set({ window: "hour" }, limits.perHour);
    this.#budgetUsed = used;
  }

  /** Where the token's remaining lifetime (ms, on the controller's clock) is read from at each scrape. */
  watchTokenRemaining(read: () => number | undefined): void {
    this.#tokenRemainingMs = read;
  }
}
