// Who may post: the leader election's verdict (election/lease-election.ts decides; this wires it), or, without an election,
// this process from start to stop. Gives the flush loop a signal aborted the moment leadership is lost, so calls
// of a deposed leader are cut off, and tells it when leadership starts and stops.
import { NotLeaderError } from "../flush/batch-sender.js";

/** The election as the controller uses it (LeaseElection). */
export interface Elector {
  start(): void;
  stop(options: { release?: boolean }): Promise<void>;
  isLeader(): boolean;
  status(): { decided: boolean };
}

/** Callbacks of leadership changes. */
export interface LeadershipEvents {
  onStartedLeading(): void;
  onStoppedLeading(reason: string): void;
}

/** Leadership of this replica: elected, or (without an election) always. */
export class Leadership {
  readonly #elector: Elector | undefined;
  readonly #events: LeadershipEvents;
  #current: AbortController | undefined;

  /** `makeElector` receives the callbacks the election must call; without it, this replica leads while started. */
  constructor(
    events: LeadershipEvents,
    makeElector?: (callbacks: { onStartedLeading(): void; onStoppedLeading(reason: string): void }) => Elector,
  ) {
    this.#events = events;
    this.#elector = makeElector?.({ onStartedLeading: () => this.#started(), onStoppedLeading: (reason) => this.#stopped(reason) });
  }

  /** Leader election is configured. */
  get electing(): boolean {
    return this.#elector !== undefined;
  }

  /** An election round has shown who holds the Lease (always, without an election). */
  get decided(): boolean {
    return this.#elector ? this.#elector.status().decided : true;
  }

  /** Whether this replica may post now (the election checks its renew deadline on the clock, not on a timer). */
  leading(): boolean {
    return this.#elector ? this.#elector.isLeader() : this.#current !== undefined;
  }

  /** Aborted the moment this leadership ends; undefined while not leading. */
  get signal(): AbortSignal | undefined {
    return this.#current?.signal;
  }

  start(): void {
    if (this.#elector) this.#elector.start();
    else this.#started();
  }

  /** Stops campaigning; `release` hands the Lease over at once (a standby takes over within one retry period). */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.#elector) await this.#elector.stop(options);
    else if (this.#current) this.#stopped("released");
  }

  #started(): void {
    this.#current = new AbortController();
    this.#events.onStartedLeading();
  }

  #stopped(reason: string): void {
    this.#current?.abort(new NotLeaderError());
    this.#current = undefined;
    this.#events.onStoppedLeading(reason);
  }
}
