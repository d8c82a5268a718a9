// Tells the operator what the desired state says about the cluster: name conflicts (logged when they appear),
// containers not recorded and annotations skipped (each reason logged once), and the gauges for both.
import type { Logger } from "pino";
import type { DesiredState, NameConflict } from "./desired-state.js";
import type { ControllerMetrics } from "../observability/metrics.js";

/** Skip reasons remembered as logged; beyond this the memory is cleared (and reasons may be logged again). */
const LOGGED_SKIPS_MAX = 10_000;

/** Reports conflicts and skipped items of each desired state, without repeating itself. */
export class DesiredStateReport {
  #conflicts: NameConflict[] = [];
  readonly #loggedSkips = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: ControllerMetrics,
  ) {}

  /** The conflicts of the last desired state reported. */
  get conflicts(): NameConflict[] {
    return this.#conflicts;
  }

  report(desired: DesiredState): void {
    const before = new Set(this.#conflicts.map((c) => c.key));
    for (const conflict of desired.conflicts) {
      if (before.has(conflict.key)) continue;
      this.logger.warn(
        {
          deploymentName: conflict.deploymentName,
          logicalEnvironment: conflict.group.logicalEnvironment,
          workloads: conflict.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`),
        },
        "workloads share one deployment name; neither is recorded until they differ (add {kind} to the deployment-name template)",
      );
    }
    this.#conflicts = desired.conflicts;
    this.metrics.desiredRecords.set(desired.records.size);
    this.metrics.nameConflicts.set(desired.conflicts.length);
    this.metrics.skippedContainers.set(desired.skipped.length);
    if (this.#loggedSkips.size > LOGGED_SKIPS_MAX) this.#loggedSkips.clear();
    for (const item of [...desired.skipped, ...desired.warnings]) {
      const id = `${item.subject}\u0000${item.reason}`;
      if (this.#loggedSkips.has(id)) continue;
      this.#loggedSkips.add(id);
      if ("annotation" in item)
        this.logger.warn({ subject: item.subject, annotation: item.annotation, reason: item.reason }, "annotation skipped");
      else this.logger.info({ subject: item.subject, reason: item.reason }, "container not recorded");
    }
  }
}
