import { describe, expect, it } from "vitest";
// The pacing rules as pure logic, run on the sources.
import { AuthenticationError, NetworkError, RateLimitedError, UnavailableError } from "../src/errors/errors.js";
import { PollSchedule, isTransientPollError } from "../src/pollers/poll-schedule.js";

/** The time a failure is judged at: only a rate limit's reset is measured against it. */
const NOW = Date.parse("2026-01-01T00:00:00Z");

const details = (status: number) => ({ status, method: "GET", route: "/events", serviceMessage: "x", acceptedPermissions: [] });

describe("PollSchedule (pure pacing rules)", () => {
  it("follows X-Poll-Interval up and down, ignoring malformed values, never below the caller's minimum", () => {
    const schedule = new PollSchedule({ minIntervalSeconds: 30 });
    expect(schedule.succeeded()).toBe(60_000);
    schedule.observe("120");
    expect(schedule.succeeded()).toBe(120_000);
    schedule.observe("soon");
    schedule.observe(null);
    expect(schedule.intervalSeconds).toBe(120);
    schedule.observe("10");
    expect(schedule.succeeded()).toBe(30_000);
  });

  it("backs off exponentially from the interval on consecutive failures, capped, with jitter only above", () => {
    const schedule = new PollSchedule({ maxBackoffSeconds: 300, random: () => 0 });
    schedule.observe("60");
    expect([1, 2, 3, 4, 5].map(() => schedule.failed(new NetworkError("GET /events", "ECONNRESET"), NOW))).toEqual([
      60_000, 120_000, 240_000, 300_000, 300_000,
    ]);
    expect(schedule.failures).toBe(5);
    schedule.succeeded();
    expect(schedule.failures).toBe(0);
    const jittered = new PollSchedule({ random: () => 0.999 });
    expect(jittered.failed(new NetworkError("GET /events", "x"), NOW)).toBeGreaterThan(60_000);
    expect(jittered.failed(new NetworkError("GET /events", "x"), NOW)).toBeLessThanOrEqual(132_000);
  });

  it("waits out a rate limit until its reset when that is later than the backoff", () => {
    const schedule = new PollSchedule({ random: () => 0 });
    const now = Date.UTC(2026, 0, 1);
    const limited = new RateLimitedError(details(403), new Date(now + 900_000));
    expect(schedule.failed(limited, now)).toBe(900_000);
    expect(schedule.failed(new RateLimitedError(details(429), undefined, 5), now)).toBe(120_000);
  });

  it("survives what may recover, and not what will not", () => {
    expect(isTransientPollError(new NetworkError("GET /events", "x"))).toBe(true);
    expect(isTransientPollError(new UnavailableError(details(503)))).toBe(true);
    expect(isTransientPollError(new RateLimitedError(details(403)))).toBe(true);
    expect(isTransientPollError(new AuthenticationError(details(401)))).toBe(false);
    expect(isTransientPollError(new Error("bug"))).toBe(false);
  });
});
