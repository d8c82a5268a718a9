// Chooses the coalescing window from measurements without the machine's noise: the pod events of a benchmark phase
// and the moments its records became sendable (each new container first Running), as recorded, replayed through the
// controller's own schedule (flush-schedule.ts) for several windows, with the budget's pace and a round taking
// `roundMs`. For each setting: the calls (rounds carrying at least one changed record) and how long a changed record
// waits for the round that takes it.
import { nextWake } from "../../../packages/controller/src/flush-schedule.js";

/** The replay's verdict for one setting. */
export interface ReplayResult {
  windowMs: number;
  maxWaitMs: number;
  rounds: number;
  calls: number;
  waitP50Ms: number;
  waitP99Ms: number;
}

/** Replays `events` (sorted arrival times) through the schedule; `changes` are when records became sendable. */
export function replayWindow(
  events: readonly number[],
  changes: readonly number[],
  windowMs: number,
  maxWaitMs: number,
  roundMs: number,
  paceMs = 750,
): ReplayResult {
  const starts: number[] = [];
  let first: number | undefined;
  let last: number | undefined;
  let now = events[0] ?? 0;
  let lastCall = Number.NEGATIVE_INFINITY;
  let i = 0;
  for (;;) {
    const wake = nextWake(
      {
        now,
        active: true,
        stateLoaded: true,
        firstRound: false,
        firstChangeAt: first,
        lastChangeAt: last,
        backlog: false,
        stateDirty: false,
        dueAt: undefined,
        notBefore: 0,
        gateOpensAt: 0,
        budgetSlotAt: lastCall + paceMs,
      },
      { windowMs, maxWaitMs, heartbeatMs: 60_000 },
    );
    const nextEvent = events[i];
    if (wake.reason !== "heartbeat" && (nextEvent === undefined || wake.at <= nextEvent)) {
      // A round: it takes what changed before it began; events during it open the next window.
      starts.push(wake.at);
      if (changes.some((c) => c <= wake.at && c > (starts.at(-2) ?? Number.NEGATIVE_INFINITY))) lastCall = wake.at;
      first = undefined;
      last = undefined;
      now = wake.at + roundMs;
      while (i < events.length && events[i]! <= now) {
        first ??= events[i]!;
        last = events[i]!;
        i++;
      }
      continue;
    }
    if (nextEvent === undefined) break;
    now = nextEvent;
    first ??= now;
    last = now;
    i++;
  }
  const waits = changes.map((c) => (starts.find((s) => s >= c) ?? c) - c).sort((a, b) => a - b);
  const calls = starts.filter((s, k) => changes.some((c) => c <= s && c > (starts[k - 1] ?? Number.NEGATIVE_INFINITY))).length;
  const at = (p: number) => waits[Math.min(waits.length - 1, Math.floor((p / 100) * waits.length))] ?? Number.NaN;
  return { windowMs, maxWaitMs, rounds: starts.length, calls, waitP50Ms: at(50), waitP99Ms: at(99) };
}
