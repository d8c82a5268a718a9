// Chooses the coalescing window from measurements without the machine's noise: the pod events of a benchmark phase
// and the moments its records became sendable (each new container first Running), as recorded, replayed through the
// controller's own schedule (controller flush/schedule.ts) for several windows, with the write budget and a round taking
// `roundMs`. For each setting: the calls (rounds carrying at least one changed record) and how long a changed record
// waits for the round that takes it.
import { nextWake } from "../../../packages/controller/src/flush/schedule.js";
import { DEFAULT_WRITE_BUDGET, WriteBudget, type WriteBudgetLimits } from "../../../packages/controller/src/flush/write-budget.js";
import { s } from "./format.js";

/** A phase's recording: pod event arrivals, when its records became sendable, and its rounds' measured time. */
export interface Trace {
  name: string;
  events: number[];
  changes: number[];
  roundMs: number;
}

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
  limits: WriteBudgetLimits = DEFAULT_WRITE_BUDGET,
): ReplayResult {
  const budget = new WriteBudget(limits);
  const starts: number[] = [];
  let first: number | undefined;
  let last: number | undefined;
  let now = events[0] ?? 0;
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
        budgetSlotAt: budget.nextSlot(now),
        prepareMs: 0,
      },
      { windowMs, maxWaitMs, heartbeatMs: 60_000 },
    );
    const nextEvent = events[i];
    if (wake.reason !== "heartbeat" && (nextEvent === undefined || wake.at <= nextEvent)) {
      // A round: it takes what changed before it began; events during it open the next window.
      starts.push(wake.at);
      if (changes.some((c) => c <= wake.at && c > (starts.at(-2) ?? Number.NEGATIVE_INFINITY))) budget.take(wake.at)(wake.at + roundMs);
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

/**
 * Replays each trace for windows of 0 to 500 ms and maximum waits of 0.5 to 2 s, with a round taking its measured time
 * and 300 ms (a round at 10,000 pods on a quiet machine), so the window's share of the wait shows apart from a loaded
 * machine's.
 */
export function printWindowSweep(traces: readonly Trace[]): void {
  for (const trace of traces) {
    for (const roundMs of [trace.roundMs, 300]) {
      console.log(
        `\nwindow replay, ${trace.name}: ${trace.events.length} pod events, ${trace.changes.length} records, a round taking ${s(roundMs)}`,
      );
      console.log(`  ${"window".padEnd(8)} ${"max wait".padEnd(9)} ${"rounds".padEnd(7)} ${"calls".padEnd(6)} wait p50 / p99`);
      for (const windowMs of [0, 50, 100, 200, 500]) {
        for (const maxWaitMs of [500, 1000, 2000]) {
          if (maxWaitMs < windowMs) continue;
          const r = replayWindow(trace.events, trace.changes, windowMs, maxWaitMs, roundMs);
          const cells = [`${windowMs}ms`.padEnd(8), `${maxWaitMs}ms`.padEnd(9), String(r.rounds).padEnd(7), String(r.calls).padEnd(6)];
          console.log(`  ${cells.join(" ")} ${s(r.waitP50Ms)} / ${s(r.waitP99Ms)}`);
        }
      }
    }
  }
}
