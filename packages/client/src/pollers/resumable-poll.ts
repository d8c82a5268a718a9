import type { TransportClock } from "../timing/clock.js";
import { checkCheckpoint, type PollCheckpoint } from "./checkpoint.js";
import { pollLoop, type PollAnswer, type PollProgress, type PollTarget } from "./poll-loop.js";
import type { PollerOptions, PollerStats } from "./poller-options.js";
import { SeenIds } from "./seen-ids.js";

/** What a poller keeps while it runs, and what its checkpoint is made of. */
export interface ResumableState {
  progress: PollProgress;
  /** Items yielded that the listing can still show. */
  seen: SeenIds;
  /** Notifications: the `since` the next poll asks with. */
  since?: string;
}

/** How one poller resumes: its listing, its state from a checkpoint, and its polling target over that state. */
export interface ResumableSpec<T, A extends PollAnswer> {
  listing: string;
  /** The state to run from: the checkpoint's, or a fresh one. */
  begin(checkpoint: PollCheckpoint | undefined): ResumableState;
  target(state: ResumableState): PollTarget<T, A>;
}

/**
 * Runs a poller from its starting checkpoint: the one given in `options.checkpoint`, else the one the
 * `options.checkpointStore` holds (checked to be of the same listing), else from scratch; and saves the
 * poller's checkpoint to the store as the loop asks. It waits on `options.clock`, else on `clientClock`.
 */
export async function* resumablePoll<T, A extends PollAnswer>(
  poller: { readonly checkpoint: PollCheckpoint; readonly stats: PollerStats },
  options: PollerOptions,
  spec: ResumableSpec<T, A>,
  clientClock: TransportClock,
): AsyncGenerator<T, void, undefined> {
  const store = options.checkpointStore;
  let start = options.checkpoint;
  if (!start && store) {
    const loaded = await store.load();
    if (loaded !== undefined) start = checkCheckpoint(loaded, spec.listing, "poller checkpoint from the store");
  }
  const state = spec.begin(start);
  const clock = options.clock ?? clientClock;
  yield* pollLoop(spec.target(state), options, poller.stats, state.progress, clock, store && (() => store.save(poller.checkpoint)));
}

/** The state a poller starts from: the checkpoint's, or a fresh one (seen ids bounded to `capacity`). */
export function stateFrom(checkpoint: PollCheckpoint | undefined, capacity: number): ResumableState {
  return {
    progress: { validator: checkpoint?.validator, first: !checkpoint },
    seen: new SeenIds(capacity, checkpoint?.seen),
    ...(checkpoint?.since ? { since: checkpoint.since } : {}),
  };
}

/** The checkpoint of a poller's state: plain JSON. */
export function checkpointOf(listing: string, state: ResumableState): PollCheckpoint {
  const { progress, seen, since } = state;
  return {
    version: 1,
    listing,
    ...(progress.validator ? { validator: progress.validator } : {}),
    seen: seen.entries(),
    ...(since ? { since } : {}),
  };
}
