// The leadership fence: the one object every write that only the leader may make checks right before it leaves (a
// cluster call, a state ConfigMap write, an HTTP attempt of the service client), and whose signal cuts off what a
// deposed leader still has in flight. election/leadership.ts holds it; nothing else decides leadership.
import { ShiplogError } from "@shiplog/client";

/** May this replica write now, and a signal aborted the moment that ends. */
export interface LeadershipFence {
  /** This replica may write now (the election checks its renew deadline on the clock, not on a timer). */
  leading(): boolean;
  /** Aborted the moment this leadership ends; undefined while not leading. */
  readonly signal: AbortSignal | undefined;
}

/** A write was not made because this replica is not (or no longer) the leader. */
export class NotLeaderError extends ShiplogError {
  constructor() {
    super("not_leader", "not the leader: deployment records are posted only by the replica holding the lease");
  }
}
