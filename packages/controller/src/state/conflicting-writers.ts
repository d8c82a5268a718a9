// Conflicting writers: two controllers writing the same state (leader election disabled by mistake on two
// replicas, or two installs given one state ConfigMap) both post every record and keep overwriting each other's
// state. Each state write meeting another's (a resourceVersion conflict) reads the head again, and the head names who
// wrote it (data.written-by): a conflict with another identity is counted, and CONFLICTS_TO_REPORT of them within
// CONFLICT_WINDOW_MS make that identity a conflicting writer, reported by one log line naming it, a metric, and
// /readyz, until no conflict with it has been met for a window. One conflict is no conflicting writer: a leader's
// last write may land just after a new leader read the state, once, at a takeover.
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { ControllerMetrics } from "../observability/metrics.js";

/** Conflicts with another writer's writes within CONFLICT_WINDOW_MS that make it a conflicting writer. */
export const CONFLICTS_TO_REPORT = 3;
/** How long a conflict counts, and how long a reported writer stays reported after its last conflict. */
export const CONFLICT_WINDOW_MS = 10 * 60_000;

/** What the detector needs. */
export interface ConflictingWritersOptions {
  clock: Clock;
  logger: Logger;
  metrics: ControllerMetrics;
  /** This replica's identity, as it writes it into the state (data.written-by). */
  self: string;
  /** The state ConfigMap, `namespace/name`, for the log line and the reason. */
  configMap: string;
}

/** Detects another controller writing the same state, from the conflicts its writes cause. */
export class ConflictingWriters {
  /** When each recent conflict with another writer was met, and with whom. */
  #conflicts: { at: number; writer: string }[] = [];
  #reported: string | undefined;

  constructor(private readonly options: ConflictingWritersOptions) {}

  /** A state write met a conflict; `writer` is who wrote the head meanwhile, as the head says (undefined: unknown). */
  conflicted(writer: string | undefined): void {
    const { clock, logger, metrics, self, configMap } = this.options;
    if (writer === undefined || writer === self) return;
    const now = clock.now();
    metrics.stateConflicts.inc();
    this.#conflicts.push({ at: now, writer });
    this.#forget(now);
    const fromWriter = this.#conflicts.filter((c) => c.writer === writer).length;
    if (this.#reported === undefined && fromWriter >= CONFLICTS_TO_REPORT) {
      this.#reported = writer;
      metrics.stateConflictingWriters.set(1);
      logger.error(
        { otherWriter: writer, identity: self, configMap, conflicts: fromWriter, runbook: "ShiplogConflictingStateWriters" },
        `another controller (${writer}) writes the same state: both post every record and overwrite each other's state; ` +
          "run one replica without leader election, or set the same lease on every replica",
      );
    }
  }

  /** The conflicting writer while it is reported, else undefined (a quiet window clears it). */
  current(): string | undefined {
    this.#forget(this.options.clock.now());
    if (this.#reported !== undefined && !this.#conflicts.some((c) => c.writer === this.#reported)) {
      this.options.logger.info({ otherWriter: this.#reported }, "no conflicting state writes for a while: the other writer is gone");
      this.#reported = undefined;
      this.options.metrics.stateConflictingWriters.set(0);
    }
    return this.#reported;
  }

  /** Why /readyz fails while a conflicting writer is reported, else undefined. */
  reason(): string | undefined {
    const writer = this.current();
    if (writer === undefined) return undefined;
    return (
      `another controller (${writer}) writes the same state ConfigMap ${this.options.configMap}: two replicas post without ` +
      "leader election; run one, or give every replica the same lease (runbook: ShiplogConflictingStateWriters)"
    );
  }

  #forget(now: number): void {
    this.#conflicts = this.#conflicts.filter((c) => c.at > now - CONFLICT_WINDOW_MS);
  }
}
