import { EmulatorUsageError } from "./emulator-usage-error.js";

/** How late the feeds deliver some events (spec 6.1: event latency ranges from 30 seconds to 6 hours). */
export interface FeedLatencyOptions {
  /** Share of events delivered late, from 0 to 1. */
  fraction: number;
  /** The shortest delay of a late event, in ms. Default 30 s. */
  minDelayMs?: number;
  /** The longest delay of a late event, in ms. Default 6 h. */
  maxDelayMs?: number;
  /** Seed of the choice of late events and their delays: the same seed makes the same events late by the same delays. */
  seed?: number;
}

/** An event as the latency mode sees it: its id and when it happened. */
interface TimedEvent {
  id: number;
  createdAtMs: number;
}

/**
 * The feeds' late delivery: when on, a seeded share of events reaches the feeds only some time after its
 * `created_at`, and then shows above events delivered before it, as the real feeds do: out of `created_at` order
 * (and of id order). Whether an event is late, and by how much, depends only on its id and the seed.
 */
export class FeedLatency {
  #mode: Required<FeedLatencyOptions> | undefined;

  /** Turns the latency mode on (or changes it). */
  enable(options: FeedLatencyOptions): void {
    const minDelayMs = options.minDelayMs ?? 30_000;
    const maxDelayMs = options.maxDelayMs ?? 6 * 3600 * 1000;
    const problems = [];
    if (!(options.fraction >= 0 && options.fraction <= 1))
      problems.push({ argument: "fraction", rule: "0 to 1", message: "must be a share between 0 and 1" });
    if (!(minDelayMs >= 0)) problems.push({ argument: "minDelayMs", rule: "minimum 0", message: "must be a non-negative number of ms" });
    if (!(maxDelayMs >= minDelayMs))
      problems.push({ argument: "maxDelayMs", rule: "at least minDelayMs", message: "must not be below minDelayMs" });
    if (options.seed !== undefined && !Number.isInteger(options.seed))
      problems.push({ argument: "seed", rule: "integer", message: "must be an integer" });
    if (problems.length > 0) throw new EmulatorUsageError("events.setLatency", problems);
    this.#mode = { fraction: options.fraction, minDelayMs, maxDelayMs, seed: options.seed ?? 1 };
  }

  /** Back to delivering every event at once. */
  disable(): void {
    this.#mode = undefined;
  }

  get enabled(): boolean {
    return this.#mode !== undefined;
  }

  /** When the event reaches the feeds: its creation time, or later when it is one of the late ones. */
  deliveredAtMs(event: TimedEvent): number {
    const mode = this.#mode;
    if (!mode) return event.createdAtMs;
    if (unitRandom(mode.seed, event.id, 1) >= mode.fraction) return event.createdAtMs;
    return event.createdAtMs + Math.round(mode.minDelayMs + (mode.maxDelayMs - mode.minDelayMs) * unitRandom(mode.seed, event.id, 2));
  }

  /**
   * What a feed shows at `nowMs` from `events` (kept oldest first): those delivered by then and created since
   * `oldestMs`, most recently delivered first, at most `capacity`.
   */
  visible<E extends TimedEvent>(
    events: readonly E[],
    nowMs: number,
    oldestMs: number,
    capacity: number,
    matches: (event: E) => boolean,
  ): E[] {
    const shown: { event: E; at: number }[] = [];
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.createdAtMs < oldestMs) break;
      const at = this.deliveredAtMs(event);
      if (at <= nowMs && matches(event)) shown.push({ event, at });
    }
    shown.sort((a, b) => b.at - a.at || b.event.id - a.event.id);
    return shown.slice(0, capacity).map((s) => s.event);
  }
}

/** A number in [0, 1) from the seed, the event id and a stream: a 32-bit integer hash (mulberry32's finaliser). */
function unitRandom(seed: number, id: number, stream: number): number {
  let h =
    (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^
      Math.imul(id % 0x100000000, 0xc2b2ae35) ^
      Math.floor(id / 0x100000000) ^
      Math.imul(stream, 0x27d4eb2f)) >>>
    0;
  h = Math.imul(h ^ (h >>> 15), h | 1);
  h ^= h + Math.imul(h ^ (h >>> 7), h | 61);
  return ((h ^ (h >>> 14)) >>> 0) / 4294967296;
}
