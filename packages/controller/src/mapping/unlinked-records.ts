// Records the service refuses because nothing links their image to a repository (mapping/repository-rules.ts,
// refusedUnlinked): each workload is logged once, naming the workload, the image and the fix, and the records are
// counted in shiplog_controller_unlinked_records until they land or go away.
import type { Logger } from "pino";
import type { PendingRecord } from "./record-diff.js";
import type { ControllerMetrics } from "../observability/metrics.js";
import { refusedUnlinked, unlinkedFix, type RepositoryRules } from "./repository-rules.js";
import { workloadId } from "./desired-state.js";
import type { WorkloadRef } from "./workload-owner.js";

/** The leader's record of unlinked records and of the workloads already reported. */
export class UnlinkedRecords {
  /** Unlinked record keys, with the workload each belongs to. */
  readonly #records = new Map<string, string>();
  /** Workloads logged since they last had an unlinked record. */
  readonly #reported = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: ControllerMetrics,
    private readonly rules: RepositoryRules,
  ) {}

  /**
   * Takes in a round's answers: `workloadOf` gives a record's workload (from the desired state; undefined when it
   * went away), `live` whether a key is still desired.
   */
  update(
    answers: { accepted: readonly PendingRecord[]; rejected: readonly { record: PendingRecord; cause: string }[] },
    workloadOf: (key: string) => WorkloadRef | undefined,
    live: (key: string) => boolean,
  ): void {
    for (const record of answers.accepted) this.#records.delete(record.key);
    for (const { record, cause } of answers.rejected) {
      if (!refusedUnlinked(record.entry, cause)) {
        this.#records.delete(record.key);
        continue;
      }
      const workload = workloadOf(record.key);
      if (!workload) continue;
      const id = workloadId(workload);
      this.#records.set(record.key, id);
      if (this.#reported.has(id)) continue;
      this.#reported.add(id);
      this.logger.warn(
        {
          workload: `${workload.kind} ${workload.namespace}/${workload.name}`,
          image: record.entry.name,
          deploymentName: record.entry.deployment_name,
          fix: unlinkedFix(workload, record.entry.name, this.rules),
        },
        "no repository for a record",
      );
    }
    for (const key of [...this.#records.keys()]) if (!live(key)) this.#records.delete(key);
    // A workload with no unlinked record left is reported again if it has one later.
    const unlinkedWorkloads = new Set(this.#records.values());
    for (const id of [...this.#reported]) if (!unlinkedWorkloads.has(id)) this.#reported.delete(id);
    this.metrics.unlinkedRecords.set(this.#records.size);
  }

  /** This replica stopped leading: the next leadership starts afresh. */
  reset(): void {
    this.#records.clear();
    this.#reported.clear();
    this.metrics.unlinkedRecords.set(0);
  }
}
