// When the flush loop runs its next round, with plain data: the coalescing window, its maximum wait, the gates; and
// how many calls a round may make.
import { describe, expect, it } from "vitest";
import { nextWake, type ScheduleSnapshot } from "../src/flush/schedule.js";

const T = { windowMs: 200, maxWaitMs: 1000, heartbeatMs: 5000 };
const idle: ScheduleSnapshot = {
  now: 10_000,
  active: true,
  stateLoaded: true,
  firstRound: false,
  firstChangeAt: undefined,
  lastChangeAt: undefined,
  backlog: false,
  stateDirty: false,
  dueAt: undefined,
  notBefore: 0,
  gateOpensAt: 0,
  budgetSlotAt: 0,
  prepareMs: 0,
};

describe("nextWake", () => {
  it("a quiet cluster: only the heartbeat", () => {
    expect(nextWake(idle, T)).toEqual({ at: 15_000, reason: "heartbeat", heldByBudget: false });
  });

  it("a lone change goes once the cluster has been quiet for the window", () => {
    expect(nextWake({ ...idle, firstChangeAt: 10_000, lastChangeAt: 10_000 }, T)).toMatchObject({ at: 10_200, reason: "changes" });
  });

  it("changes that keep coming extend the window, up to the maximum wait after the first", () => {
    expect(nextWake({ ...idle, now: 10_500, firstChangeAt: 10_000, lastChangeAt: 10_450 }, T)).toMatchObject({ at: 10_650 });
    expect(nextWake({ ...idle, now: 10_950, firstChangeAt: 10_000, lastChangeAt: 10_940 }, T)).toMatchObject({
      at: 11_000,
      reason: "changes",
    });
  });

  it("a backlog, a first round and a state write go at once; work due later waits for its time", () => {
    expect(nextWake({ ...idle, backlog: true }, T)).toMatchObject({ at: 10_000, reason: "backlog" });
    expect(nextWake({ ...idle, firstRound: true }, T)).toMatchObject({ at: 10_000, reason: "first-round" });
    expect(nextWake({ ...idle, stateDirty: true }, T)).toMatchObject({ at: 10_000, reason: "state-write" });
    expect(nextWake({ ...idle, dueAt: 12_000 }, T)).toMatchObject({ at: 12_000, reason: "due" });
    expect(nextWake({ ...idle, dueAt: 99_000 }, T)).toMatchObject({ at: 15_000, reason: "heartbeat" });
  });

  it("nothing goes before the failure backoff, the sender's gate or the budget's next slot (a budget wait is flagged)", () => {
    const changed = { ...idle, firstChangeAt: 10_000, lastChangeAt: 10_000 };
    expect(nextWake({ ...changed, notBefore: 11_000 }, T)).toMatchObject({ at: 11_000, heldByBudget: false });
    expect(nextWake({ ...changed, gateOpensAt: 12_000 }, T)).toMatchObject({ at: 12_000, heldByBudget: false });
    expect(nextWake({ ...changed, budgetSlotAt: 10_750 }, T)).toEqual({ at: 10_750, reason: "changes", heldByBudget: true });
    // A round held by the budget starts early by the last round's preparation time, never before the other gates.
    expect(nextWake({ ...changed, budgetSlotAt: 10_750, prepareMs: 300 }, T)).toEqual({
      at: 10_450,
      reason: "changes",
      heldByBudget: true,
    });
    expect(nextWake({ ...changed, budgetSlotAt: 10_750, prepareMs: 900 }, T)).toEqual({
      at: 10_200,
      reason: "changes",
      heldByBudget: false,
    });
    expect(nextWake({ ...changed, budgetSlotAt: 10_750, prepareMs: 300, notBefore: 10_600 }, T)).toMatchObject({ at: 10_600 });
    // A state write needs no call: neither the gate nor the budget holds it.
    expect(nextWake({ ...idle, stateDirty: true, gateOpensAt: 12_000, budgetSlotAt: 10_750 }, T)).toMatchObject({
      at: 10_000,
      reason: "state-write",
    });
  });

  it("a standby or unsynced replica only ticks; a leader without its state loads it after the backoff", () => {
    expect(nextWake({ ...idle, active: false, backlog: true }, T).reason).toBe("heartbeat");
    expect(nextWake({ ...idle, stateLoaded: false, notBefore: 11_000 }, T)).toMatchObject({ at: 11_000, reason: "load-state" });
  });
});
