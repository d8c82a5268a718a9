// Who may write: the leader election's verdict (election/lease-election.ts decides; this holds it), or, without an
// election, this process from start to stop. It is the leadership fence (election/fence.ts) every fenced write
// checks, and it tells the manager when leadership starts and stops (the manager starts and stops the leader-only
// runnables then).
import { NotLeaderError, type LeadershipFence } from "./fence.js";

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

/** Builds the elector, given the callbacks it must call. */
export type ElectorFactory = (callbacks: LeadershipEvents) => Elector;

/** Leadership of this replica: elected, or (without an election) always while started. */
export class Leadership implements LeadershipFence {
  readonly #elector: Elector | undefined;
  #events: LeadershipEvents | undefined;
  #current: AbortController | undefined;

  /** Without `makeElector`, this replica leads from start() to stop(). */
  constructor(makeElector?: ElectorFactory) {
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

  /** Whether this replica may write now (the election checks its renew deadline on the clock, not on a timer). */
  leading(): boolean {
    return this.#elector ? this.#elector.isLeader() : this.#current !== undefined;
  }

  /** Aborted the moment this leadership ends; undefined while not leading. */
  get signal(): AbortSignal | undefined {
    return this.#current?.signal;
  }

  /** Starts campaigning (or leads at once without an election); `events` hear every change from now on. */
  start(events: LeadershipEvents): void {
    this.#events = events;
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
    this.#events?.onStartedLeading();
  }

  #stopped(reason: string): void {
    this.#current?.abort(new NotLeaderError());
    this.#current = undefined;
    this.#events?.onStoppedLeading(reason);
  }
}
