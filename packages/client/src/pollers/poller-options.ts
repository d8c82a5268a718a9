import type { TransportClock } from "../timing/clock.js";
import type { CheckpointStore, PollCheckpoint } from "./checkpoint.js";
import type { PollScheduleOptions } from "./poll-schedule.js";

/** What every poller accepts. */
export interface PollerOptions extends PollScheduleOptions {
  /** Ends the poller cleanly (the iteration completes; no error is thrown). */
  signal?: AbortSignal;
  /**
   * The time (rate-limit resets are measured against it) and the waits between polls. Default the client's clock
   * (ShiplogClient's `clock` option, else the system's); a virtual one runs simulated hours at once.
   */
  clock?: TransportClock;
  /** Called after every poll that got an answer. */
  onPoll?: (info: PollInfo) => void;
  /** Called when a poll failed and the poller will try again after `delayMs`. */
  onError?: (error: unknown, info: { failures: number; delayMs: number }) => void;
  /**
   * Where to start: a checkpoint an earlier poller exposed (`poller.checkpoint`). The first poll is then
   * conditional and nothing yielded before is yielded again; `start` does not apply.
   */
  checkpoint?: PollCheckpoint;
  /**
   * Keeps the checkpoint between runs (e.g. `new FileCheckpointStore(path)`): loaded when iteration starts (unless
   * `checkpoint` is given) and saved each time the caller comes back for the next item and when iteration ends.
   * An item is thus saved as handled only after the loop body that handled it ran: a crash repeats at most that one.
   */
  checkpointStore?: CheckpointStore;
}

/** What one poll found. */
export interface PollInfo {
  /** 200 (something changed) or 304 (nothing new). */
  status: number;
  /** Items yielded from this poll. */
  newItems: number;
  /** Pages fetched (0 on 304). */
  pages: number;
  /** The interval the service asked for, in seconds. */
  intervalSeconds: number;
  /** The wait before the next poll, in ms. */
  nextPollInMs: number;
}

/** Counters a poller keeps, for metrics and tests. */
export interface PollerStats {
  polls: number;
  notModified: number;
  errors: number;
  yielded: number;
  /** Every wait between polls, in ms, in order. */
  waits: number[];
}

/**
 * Whether the caller's signal has fired: then any error on the way out is the abort, and the poller ends cleanly.
 * The error itself does not decide: an abort the caller did not ask for (a request timeout) is not an end.
 */
export function callerAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
