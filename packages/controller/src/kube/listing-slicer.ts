// While the pods are listing, the desired state takes them in slices as their pages come, not all at the next round:
// a round's plan then holds the event loop for a slice's time (about 0.1 s at 2,000 pods), not for the seconds of
// listing since the last round, while a budget slot passes. The pods of one ReplicaSet are listed together, so a
// slice seldom splits a workload and the work is the same as in one go. Once everything is listed, changes wait for
// the round: a rollout's events for one workload spread over seconds, and slicing them would recompute it each time.
import type { Logger } from "pino";
import type { DesiredStateTracker } from "../mapping/desired-state-tracker.js";

/** Changes folded into the desired state at a time while listing. */
export const LISTING_SLICE = 2000;

/**
 * A hook to call on every informer change: while `listing()`, once a slice of changes is pending, the tracker takes
 * them at the next turn of the event loop (after the list page being read).
 */
export function listingSlicer(
  tracker: Pick<DesiredStateTracker, "pendingChanges" | "state">,
  listing: () => boolean,
  logger: Logger,
): () => void {
  let scheduled = false;
  return () => {
    if (tracker.pendingChanges < LISTING_SLICE || scheduled || !listing()) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      try {
        if (listing()) tracker.state();
      } catch (error) {
        // The tracker builds afresh at the next round, which reports a failure of its own if there is one.
        logger.error({ err: (error as Error).message }, "desired state failed while the pods were listing");
      }
    });
  };
}
