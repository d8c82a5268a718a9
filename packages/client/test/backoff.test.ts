// The one backoff formula, as pure logic (run on the sources).
import { describe, expect, it } from "vitest";
import { EQUAL_JITTER, FULL_JITTER, JITTER_ABOVE, backoffDelay } from "../src/timing/backoff.js";

describe("backoffDelay", () => {
  const policy = { minMs: 100, maxMs: 1000 };

  it("doubles the step from minMs up to maxMs", () => {
    const steps = [0, 1, 2, 3, 4, 40].map((attempt) => backoffDelay(attempt, { ...policy, jitter: { low: 1, high: 1 } }));
    expect(steps).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("draws within the jitter's share of the step", () => {
    const at = (random: number, jitter = FULL_JITTER) => backoffDelay(3, { ...policy, jitter }, () => random);
    expect([at(0), at(0.5), at(1)]).toEqual([0, 400, 800]);
    expect([at(0, EQUAL_JITTER), at(1, EQUAL_JITTER)]).toEqual([400, 800]);
    expect([at(0, JITTER_ABOVE), at(1, JITTER_ABOVE)]).toEqual([800, 880]);
    expect(backoffDelay(3, policy, () => 0.25)).toBe(200);
  });
});
