// The write budget with plain numbers for time: the minute and the hour as sliding windows counted from each call's
// answer, the least gap, the resync's share, the floor.
import { describe, expect, it } from "vitest";
import {
  budgetFloorMs,
  decodeBudgetCalls,
  DEFAULT_WRITE_BUDGET,
  encodeBudgetCalls,
  HOUR_MS,
  resyncCallsPerHour,
  resyncCallsPerInterval,
  WriteBudget,
} from "../src/flush/write-budget.js";

/** Makes `n` calls as early as the budget allows from `from`, each answered `latencyMs` after it leaves. */
function burst(budget: WriteBudget, from: number, n: number, latencyMs = 0): number[] {
  const starts: number[] = [];
  let now = from;
  for (let i = 0; i < n; i++) {
    now = budget.nextSlot(now);
    budget.take(now)(now + latencyMs);
    starts.push(now);
    now += latencyMs;
  }
  return starts;
}

describe("WriteBudget", () => {
  it("a burst goes at once up to the minute's limit; the next call waits until the first answer is a minute old", () => {
    const budget = new WriteBudget(DEFAULT_WRITE_BUDGET);
    const starts = burst(budget, 0, 200);
    expect(starts.slice(0, 80)).toEqual(Array.from({ length: 80 }, () => 0));
    expect(starts.slice(80, 160)).toEqual(Array.from({ length: 80 }, () => 60_000));
    expect(starts[160]).toBe(120_000);
    // Every window of a minute, wherever it starts, holds at most 80 call starts.
    for (const from of starts) expect(starts.filter((t) => t >= from && t < from + 60_000).length).toBeLessThanOrEqual(80);
    expect(budget.used(120_000, 60_000)).toBe(40);
    expect(budget.room(120_000)).toBe(40);
  });

  it("counts a call from its answer: a slow answer moves the next minute later, never earlier", () => {
    const budget = new WriteBudget({ perMinute: 1, perHour: 500 });
    const settle = budget.take(0);
    // Still in flight: it leaves the window no sooner than a minute from now.
    expect(budget.nextSlot(1000)).toBe(61_000);
    expect(budget.used(1000, 60_000)).toBe(1);
    settle(5000);
    expect(budget.nextSlot(1000)).toBe(65_000);
    expect(budget.room(64_999)).toBe(0);
    expect(budget.room(65_000)).toBe(1);
  });

  it("answers out of order are counted in order", () => {
    const budget = new WriteBudget({ perMinute: 2, perHour: 500 });
    const a = budget.take(0);
    const b = budget.take(0);
    b(3000);
    a(9000);
    expect(budget.nextSlot(9000)).toBe(63_000);
  });

  it("keeps a least gap between starts when asked (the service's advice of a second)", () => {
    const budget = new WriteBudget({ perMinute: 80, perHour: 500, minIntervalMs: 1000 });
    expect(burst(budget, 5000, 3)).toEqual([5000, 6000, 7000]);
    expect(budget.nextSlot(20_000)).toBe(20_000);
  });

  it("keeps the hour: the 501st call waits until the first of the hour leaves the window", () => {
    const budget = new WriteBudget({ perMinute: 60_000, perHour: 500 });
    for (let i = 0; i < 500; i++) budget.take(i * 10)(i * 10);
    expect(budget.room(5000)).toBe(0);
    expect(budget.nextSlot(5000)).toBe(HOUR_MS);
    expect(budget.room(HOUR_MS)).toBe(1);
    expect(budget.used(HOUR_MS + 4980, HOUR_MS)).toBe(1);
  });

  it("gives its calls for the state and takes in another process's: answered ones at their time, unanswered ones now", () => {
    const before = new WriteBudget({ perMinute: 3, perHour: 500 });
    before.take(1_000)(1_200);
    before.take(2_000)(2_500);
    before.take(3_000);
    expect(before.calls(4_000, 2)).toEqual({ answeredAt: [1_200, 2_500], unanswered: 3 });
    // The state rounds answers up to the second; a new process takes them in at 10 s.
    const calls = decodeBudgetCalls(encodeBudgetCalls(before.calls(4_000)))!;
    expect(calls).toEqual({ answeredAt: [2_000, 3_000], unanswered: 1 });
    const after = new WriteBudget({ perMinute: 3, perHour: 500 });
    after.adopt(calls, 10_000);
    expect(after.used(10_000, 60_000)).toBe(3);
    // The minute is full until the first answer is a minute old.
    expect(after.nextSlot(10_000)).toBe(62_000);
    // A call more than an hour old is not taken in, nor more calls than the hour's limit.
    const old = new WriteBudget({ perMinute: 3, perHour: 500 });
    old.adopt({ answeredAt: [1_000], unanswered: 0 }, HOUR_MS + 5_000);
    expect(old.used(HOUR_MS + 5_000, HOUR_MS)).toBe(0);
    const corrupt = new WriteBudget({ perMinute: 3, perHour: 10 });
    corrupt.adopt({ answeredAt: Array.from({ length: 1e5 }, (_, i) => i), unanswered: 1e9 }, 200_000);
    expect(corrupt.used(200_000, HOUR_MS)).toBe(20);
  });

  it("takes in its own calls once: per second of answer, the larger count stands", () => {
    const budget = new WriteBudget({ perMinute: 10, perHour: 500 });
    budget.take(1_000)(1_100);
    budget.take(1_200)(1_300);
    // The state it wrote (both in second 2) plus one call another process answered in second 5.
    budget.adopt({ answeredAt: [2_000, 2_000, 5_000], unanswered: 0 }, 6_000);
    expect(budget.used(6_000, 60_000)).toBe(3);
  });

  it("reads back only its own form of the calls", () => {
    expect(encodeBudgetCalls({ answeredAt: [1_795_713_584_001, 1_795_713_584_900, 1_795_713_590_000], unanswered: 2 })).toBe(
      "2;1795713585,0,5",
    );
    expect(decodeBudgetCalls("0;")).toEqual({ answeredAt: [], unanswered: 0 });
    for (const text of [undefined, "", "x;1", "1;1,,2", "-1;5", "1;2;3"]) expect(decodeBudgetCalls(text)).toBeUndefined();
  });

  it("refuses a budget of nothing", () => {
    expect(() => new WriteBudget({ perMinute: 0, perHour: 500 })).toThrow(RangeError);
  });

  it("the resync's share: half the hour's 500 is 250 calls, 41 per 10-minute interval (246 an hour)", () => {
    expect(resyncCallsPerHour(DEFAULT_WRITE_BUDGET, 0.5)).toBe(250);
    expect(resyncCallsPerInterval(DEFAULT_WRITE_BUDGET, 0.5, 600_000)).toBe(41);
    // An interval too short for a whole call still resends one batch (the hourly share still caps it).
    expect(resyncCallsPerInterval(DEFAULT_WRITE_BUDGET, 0.5, 5_000)).toBe(1);
  });

  it("the floor: 80 calls at once, 90 a minute, 150 a minute, 161 two; beyond the hour's 500 the next hour", () => {
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 1)).toBe(0);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 80)).toBe(0);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 90)).toBe(60_000);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 150)).toBe(60_000);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 161)).toBe(120_000);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 501)).toBe(HOUR_MS);
    expect(budgetFloorMs({ ...DEFAULT_WRITE_BUDGET, minIntervalMs: 1000 }, 10)).toBe(9000);
  });
});
