// The write budget: the service's secondary limits on content-generating requests (published: generally no more than
// 80 a minute and 500 an hour), kept by the controller so that it never trips them. Both are sliding windows: no 60 s
// and no hour, wherever it starts, holds more calls than its limit. That is the strictest reading of "a minute", so
// the budget holds however the service counts, and within it calls may go back to back: a rollout after a quiet spell
// goes out at once, a long backlog at the windows' pace (80, then the next 80 a minute after the first, ...).
// A call counts from when it leaves until its answer is back: the service counts it at some instant in between, so a
// window measured from the answer is never shorter at the service, however the call's latency varies. An optional
// least gap between two calls' starts follows the service's advice of a second between mutating requests.
// Pure: time is passed in; the pacer plugin (flush/budget-pacer.ts) makes the waits.
import { SETTINGS } from "../config/settings.js";
import type { StateHeadParticipant } from "../state/head-participant.js";

/** The limits, in calls, and the least gap between two calls' starts. */
export interface WriteBudgetLimits {
  perMinute: number;
  perHour: number;
  /** Least time between two calls' starts (ms); 0 or absent: none beyond the windows. */
  minIntervalMs?: number;
}

/** Defaults: the settings table's, the service's published secondary limits for content-generating requests. */
export const DEFAULT_WRITE_BUDGET: WriteBudgetLimits = {
  perMinute: SETTINGS.writeBudgetPerMinute.default,
  perHour: SETTINGS.writeBudgetPerHour.default,
};

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** Settles a call taken from the budget: its answer came back (or it failed) at `at`. */
export type SettleCall = (at: number) => void;

/**
 * The budget's calls as the persisted state keeps them, so that a restarted or newly elected leader keeps to the same
 * windows: when the last hour's answered calls came back, and how many had left (or were about to) unanswered.
 */
export interface BudgetCalls {
  answeredAt: readonly number[];
  unanswered: number;
}

/** Calls made and when the next one may start. */
export class WriteBudget {
  /** When each answered call of the last hour came back, oldest first (from `#head`). */
  #answered: number[] = [];
  #head = 0;
  /** Calls that left and are not answered yet: they count in every window until they are. */
  #inFlight = 0;
  #lastStart = Number.NEGATIVE_INFINITY;
  readonly #minIntervalMs: number;

  constructor(readonly limits: WriteBudgetLimits = DEFAULT_WRITE_BUDGET) {
    if (!(limits.perMinute >= 1) || !(limits.perHour >= 1))
      throw new RangeError("a write budget needs at least one call a minute and an hour");
    this.#minIntervalMs = Math.max(0, limits.minIntervalMs ?? 0);
  }

  /** The earliest time at or after `now` at which a call may start. */
  nextSlot(now: number): number {
    this.#forget(now);
    return Math.max(
      now,
      this.#lastStart + this.#minIntervalMs,
      this.#windowOpensAt(now, MINUTE_MS, this.limits.perMinute),
      this.#windowOpensAt(now, HOUR_MS, this.limits.perHour),
    );
  }

  /** Calls that may start at `now` as far as the windows go (the least gap still spaces them). */
  room(now: number): number {
    return Math.max(0, Math.min(this.limits.perMinute - this.used(now, MINUTE_MS), this.limits.perHour - this.used(now, HOUR_MS)));
  }

  /** Records a call leaving at `now`; the returned function settles it when its answer is back. */
  take(now: number): SettleCall {
    this.#inFlight++;
    this.#lastStart = Math.max(this.#lastStart, now);
    let settled = false;
    return (at) => {
      if (settled) return;
      settled = true;
      this.#inFlight--;
      this.#insert(Math.max(now, at));
    };
  }

  /** The calls of the last hour at `now`, with `planned` more about to leave, as the persisted state keeps them. */
  calls(now: number, planned = 0): BudgetCalls {
    this.#forget(now);
    return { answeredAt: this.#answered.slice(this.#head), unanswered: this.#inFlight + planned };
  }

  /**
   * Counts the calls another process made, as its state recorded them (a restart, a new leader): each answered one
   * at its time, and each unanswered one as answered at `now` (it reached the service before this process took
   * over, if at all). Calls this budget holds itself (the same process leading again) are not counted twice: per
   * second of answer, the larger of the two counts stands.
   */
  adopt(calls: BudgetCalls | undefined, now: number): void {
    if (!calls) return;
    this.#forget(now);
    const own = new Map<number, number>();
    for (let i = this.#head; i < this.#answered.length; i++) {
      const second = Math.ceil(this.#answered[i]! / 1000);
      own.set(second, (own.get(second) ?? 0) + 1);
    }
    // No window counts more than an hour's limit of them: a state holding more (hand-edited, corrupt) adds no more.
    const cap = this.limits.perHour;
    for (const at of calls.answeredAt.slice(-cap)) {
      if (at <= now - HOUR_MS) continue;
      const second = Math.ceil(at / 1000);
      const left = own.get(second) ?? 0;
      if (left > 0) own.set(second, left - 1);
      else this.#insert(at);
    }
    for (let i = 0; i < Math.min(calls.unanswered, cap); i++) this.#insert(now);
    // The least gap too: from the latest of them (an answer time, so never earlier than that call's start).
    const latest = calls.unanswered > 0 ? now : calls.answeredAt.at(-1);
    if (latest !== undefined) this.#lastStart = Math.max(this.#lastStart, latest);
  }

  /** Calls counted in the `windowMs` up to `now` (a minute or an hour), those in flight included. */
  used(now: number, windowMs: number): number {
    this.#forget(now);
    return this.#inFlight + this.#answered.length - this.#firstWithin(now, windowMs);
  }

  /** When the window of `windowMs` ending then has room for one more call (at most `now`'s window length away). */
  #windowOpensAt(now: number, windowMs: number, limit: number): number {
    const first = this.#firstWithin(now, windowMs);
    const over = this.#inFlight + this.#answered.length - first - limit;
    if (over < 0) return now;
    // The over+1 oldest answered calls must leave the window; calls in flight leave no sooner than a window from now.
    const leaving = first + over;
    return leaving < this.#answered.length ? this.#answered[leaving]! + windowMs : now + windowMs;
  }

  /** Index of the oldest answered call still inside the window of `windowMs` ending at `now`. */
  #firstWithin(now: number, windowMs: number): number {
    let i = this.#head;
    while (i < this.#answered.length && this.#answered[i]! <= now - windowMs) i++;
    return i;
  }

  /** Inserts an answer time in order (answers of concurrent calls may come back out of order). */
  #insert(at: number): void {
    let i = this.#answered.length;
    while (i > this.#head && this.#answered[i - 1]! > at) i--;
    this.#answered.splice(i, 0, at);
  }

  /** Drops calls older than an hour (compacting now and then, so the array stays about perHour long). */
  #forget(now: number): void {
    this.#head = this.#firstWithin(now, HOUR_MS);
    if (this.#head > 1024 && this.#head * 2 > this.#answered.length) {
      this.#answered = this.#answered.slice(this.#head);
      this.#head = 0;
    }
  }
}

/**
 * The persisted form of the budget's calls: `unanswered;first,delta,...`, answer times in whole seconds rounded up
 * (a call then counts a little longer, never shorter), the first absolute and each next as the seconds after it.
 */
export function encodeBudgetCalls(calls: BudgetCalls): string {
  const seconds = calls.answeredAt.map((at) => Math.ceil(at / 1000));
  return `${calls.unanswered};${seconds.map((at, i) => (i === 0 ? at : at - seconds[i - 1]!)).join(",")}`;
}

/** Reads `encodeBudgetCalls`' form; undefined when it is not that form (the budget then starts from nothing). */
export function decodeBudgetCalls(text: string | undefined): BudgetCalls | undefined {
  const match = text === undefined ? null : /^(\d+);((?:\d+(?:,\d+)*)?)$/.exec(text);
  if (!match) return undefined;
  const answeredAt: number[] = [];
  let at = 0;
  for (const part of match[2] === "" ? [] : match[2]!.split(",")) {
    at += Number(part);
    answeredAt.push(at * 1000);
  }
  return { answeredAt, unanswered: Number(match[1]) };
}

/** The head's data key of the budget's calls. */
const BUDGET_CALLS_KEY = "budget-calls";

/**
 * The budget as a participant of the state head: every state write carries its calls (those about to leave count as
 * unanswered, and make the write urgent), and a load adopts what the head recorded.
 */
export function writeBudgetParticipant(budget: WriteBudget): StateHeadParticipant {
  return {
    key: BUDGET_CALLS_KEY,
    section: ({ now, plannedCalls }) => {
      const calls = budget.calls(now, plannedCalls);
      return { text: encodeBudgetCalls(calls), urgent: calls.unanswered > 0 };
    },
    restore: (text, now) => budget.adopt(decodeBudgetCalls(text), now),
  };
}

/** Calls the resync may make in an hour: its share of the hourly budget. */
export function resyncCallsPerHour(limits: WriteBudgetLimits, share: number): number {
  return Math.max(1, Math.floor(limits.perHour * share));
}

/**
 * Calls one resync interval's slice may take, so that a slice every interval stays within the resync's hourly
 * share (at least one, so a resync interval longer than its share allows still resends something).
 */
export function resyncCallsPerInterval(limits: WriteBudgetLimits, share: number, intervalMs: number): number {
  return Math.max(1, Math.floor((resyncCallsPerHour(limits, share) * intervalMs) / HOUR_MS));
}

/**
 * The least time from the first call's start to the last one's that `calls` calls take within the budget, answers
 * taken as instant: the floor a benchmark is judged by. 80 a minute: calls 1-80 at once, 81-160 a minute later, ...
 */
export function budgetFloorMs(limits: WriteBudgetLimits, calls: number): number {
  const budget = new WriteBudget(limits);
  let at = 0;
  for (let i = 0; i < calls; i++) {
    at = budget.nextSlot(at);
    budget.take(at)(at);
  }
  return at;
}
