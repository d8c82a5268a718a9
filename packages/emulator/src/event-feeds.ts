import { EmulatorUsageError } from "./emulator-usage-error.js";
import type { Clock } from "./clock.js";
import { FeedLatency, type FeedLatencyOptions } from "./feed-latency.js";
import type { UserRef } from "./resource-views.js";

/** The most events one feed holds (spec 6.1 rule 1). */
export const FEED_CAPACITY = 300;
/** Events older than this leave every feed (spec 6.1 rule 2). */
export const FEED_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** Events kept in the store at most; older ones cannot be in any feed anyway once this many newer exist per feed. */
const STORE_CAPACITY = 50_000;

/** An activity event as the emulator keeps it; rendered per request (URLs follow the request's base). */
export interface StoredEvent {
  /** Increasing; sent as a numeric string. */
  id: number;
  type: string;
  actor: UserRef;
  repo: { owner: string; name: string; id: number };
  /** Set when the repository belongs to an organization. */
  org: { login: string; id: number } | undefined;
  payload: Record<string, unknown>;
  /** False for events in private repositories: only those who may see the repository get them. */
  public: boolean;
  createdAtMs: number;
}

export type NewEvent = Omit<StoredEvent, "id" | "createdAtMs"> & { createdAtMs?: number };

/**
 * Every activity event, and the rules the feeds share: newest first, at most 300, none older than 30 days;
 * plus the `X-Poll-Interval` the service asks of pollers, which grows under simulated load.
 */
export class EventFeeds {
  #events: StoredEvent[] = [];
  #nextId = 40_000_000_001;
  #baseIntervalSeconds = 60;
  #loadFactor = 1;
  /** Old network names (`owner/name`, lower case) and the network they now are. */
  readonly #renamedNetworks = new Map<string, { owner: string; name: string }>();
  readonly #latency = new FeedLatency();

  constructor(private readonly clock: Clock) {}

  /** Records an event; returns it with its id. */
  add(event: NewEvent): StoredEvent {
    const stored: StoredEvent = { ...event, id: this.#nextId++, createdAtMs: event.createdAtMs ?? this.clock.now() };
    this.#events.push(stored);
    if (stored.createdAtMs < (this.#events.at(-2)?.createdAtMs ?? 0)) {
      // A backdated event: keep the store in time order so ids and times agree for readers.
      this.#events.sort((a, b) => a.createdAtMs - b.createdAtMs || a.id - b.id);
    }
    if (this.#events.length > STORE_CAPACITY) this.#events.splice(0, this.#events.length - STORE_CAPACITY);
    return stored;
  }

  /** The events a feed shows: those matching, newest first, within 30 days, at most 300. */
  feed(matches: (event: StoredEvent) => boolean): StoredEvent[] {
    const oldest = this.clock.now() - FEED_MAX_AGE_MS;
    if (this.#latency.enabled) return this.#latency.visible(this.#events, this.clock.now(), oldest, FEED_CAPACITY, matches);
    const out: StoredEvent[] = [];
    for (let i = this.#events.length - 1; i >= 0 && out.length < FEED_CAPACITY; i--) {
      const event = this.#events[i]!;
      if (event.createdAtMs < oldest) break;
      if (event.createdAtMs > this.clock.now()) continue;
      if (matches(event)) out.push(event);
    }
    return out;
  }

  /** Every stored event, oldest first (for tests and the demo). */
  all(): readonly StoredEvent[] {
    return this.#events;
  }

  /** The base `X-Poll-Interval`, in seconds. Default 60. */
  setPollInterval(seconds: number): void {
    if (!(seconds >= 0)) {
      throw new EmulatorUsageError("setPollInterval", {
        argument: "seconds",
        rule: "minimum 0",
        message: `must be a non-negative number of seconds (got ${seconds})`,
      });
    }
    this.#baseIntervalSeconds = seconds;
  }

  /** Simulated load: the interval the service asks for is multiplied by this (1 = no load). */
  simulateLoad(factor: number): void {
    if (!(factor >= 1))
      throw new EmulatorUsageError("simulateLoad", {
        argument: "factor",
        rule: "minimum 1",
        message: `must be at least 1 (got ${factor})`,
      });
    this.#loadFactor = factor;
  }

  /** The `X-Poll-Interval` in force, in whole seconds. */
  get pollIntervalSeconds(): number {
    return Math.ceil(this.#baseIntervalSeconds * this.#loadFactor);
  }

  /**
   * Latency mode: a seeded share of events reaches the feeds late (by default 30 s to 6 h after `created_at`),
   * then shows above events delivered before it. `null` turns it off.
   */
  setLatency(options: FeedLatencyOptions | null): void {
    if (options === null) this.#latency.disable();
    else this.#latency.enable(options);
  }

  /** When an event reaches the feeds (its creation, unless the latency mode makes it late). */
  deliveredAtMs(event: StoredEvent): number {
    return this.#latency.deliveredAtMs(event);
  }

  /** Makes `/networks/{owner}/{old}/events` answer 301 to the network's current name. */
  renameNetwork(owner: string, oldName: string, current: { owner: string; name: string }): void {
    this.#renamedNetworks.set(`${owner}/${oldName}`.toLowerCase(), current);
  }

  /** The current name of a renamed network, if the given one is an old name. */
  renamedNetwork(owner: string, name: string): { owner: string; name: string } | undefined {
    return this.#renamedNetworks.get(`${owner}/${name}`.toLowerCase());
  }

  clear(): void {
    this.#events = [];
  }
}
