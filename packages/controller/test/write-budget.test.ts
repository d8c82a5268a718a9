// The write budget with plain numbers for time: paced calls, the sliding hour, the resync's share, the floor.
import { describe, expect, it } from "vitest";
import {
  budgetFloorMs,
  DEFAULT_WRITE_BUDGET,
  HOUR_MS,
  resyncCallsPerHour,
  resyncCallsPerInterval,
  WriteBudget,
} from "../src/write-budget.js";

describe("WriteBudget", () => {
  it("paces calls one every 60 s / perMinute: 80 a minute is one every 750 ms, so no minute holds more than 80", () => {
    const budget = new WriteBudget(DEFAULT_WRITE_BUDGET);
    expect(budget.intervalMs).toBe(750);
    let now = 0;
    const starts: number[] = [];
    for (let i = 0; i < 200; i++) {
      now = budget.nextSlot(now);
      budget.take(now);
      starts.push(now);
    }
    expect(starts.slice(0, 3)).toEqual([0, 750, 1500]);
    // Every window of a minute, wherever it starts, holds at most 80 call starts.
    for (const from of starts) expect(starts.filter((t) => t >= from && t < from + 60_000).length).toBeLessThanOrEqual(80);
    expect(budget.used(now, 60_000)).toBe(80);
  });

  it("a call after a quiet spell goes at once; the next one waits its interval", () => {
    const budget = new WriteBudget({ perMinute: 60, perHour: 500 });
    budget.take(10_000);
    expect(budget.nextSlot(10_500)).toBe(11_000);
    expect(budget.nextSlot(50_000)).toBe(50_000);
  });

  it("keeps the hour: the 501st call waits until the first of the hour leaves the window", () => {
    const budget = new WriteBudget({ perMinute: 60_000, perHour: 500 });
    for (let i = 0; i < 500; i++) budget.take(i * 10);
    expect(budget.hourRemaining(5000)).toBe(0);
    expect(budget.nextSlot(5000)).toBe(HOUR_MS);
    expect(budget.hourRemaining(HOUR_MS)).toBe(1);
    expect(budget.used(HOUR_MS + 4980, HOUR_MS)).toBe(1);
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

  it("the floor: 150 calls at 80 a minute take 111.75 s; 10 take 6.75 s; beyond the hour's 500 the next hour", () => {
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 150)).toBe(111_750);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 10)).toBe(6_750);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 1)).toBe(0);
    expect(budgetFloorMs(DEFAULT_WRITE_BUDGET, 501)).toBe(HOUR_MS);
  });
});
