// The leader-election algorithm (LeaderElector) on virtual time: an in-memory Lease with the API server's conflict
// rules and the virtual clock (test/kit/virtual-clock.ts, a scope per candidate), so client-go's real durations (15 s,
// 10 s, 2 s) run without a real wait. Every timer that fires is followed by a check that at most one live candidate
// leads. The Lease lock itself, and the composition on the fake cluster, are in lease-lock.test.ts; the processes'
// failover in restart-and-failover.integration.test.ts.
import { LeaderElector, LeaseLockError, leaseTimingProblems, type StoppedLeadingReason } from "@shiplog/controller/internal";
import { pino } from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { type ClockScope, VirtualClock } from "../../../test/kit/virtual-clock.js";
import { MemoryLease, type MemoryLeaseLock } from "./memory-lease-lock.js";

const TIMING = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
/** The longest a candidate waits between attempts: the retry period jittered by client-go's factor 1.2. */
const MAX_RETRY_MS = 1.2 * TIMING.retryPeriodMs;
/** The clocks start apart, as a process's monotonic clock is not the epoch, so a test mixing them up fails. */
const WALL_START = Date.UTC(2026, 0, 1, 12);
const MONOTONIC_START = 1_000;

interface Candidate {
  identity: string;
  elector: LeaderElector;
  lock: MemoryLeaseLock;
  scope: ClockScope;
  /** Leadership changes, at monotonic times. */
  events: { event: "started" | "stopped"; reason?: StoppedLeadingReason; at: number }[];
  logs: { level: number; msg: string }[];
}

let clock: VirtualClock;
let lease: MemoryLease;
let candidates: Candidate[];

beforeEach(() => {
  clock = new VirtualClock(WALL_START, MONOTONIC_START);
  lease = new MemoryLease();
  candidates = [];
  // Safety, checked after every timer: never two live leaders.
  clock.afterEach = () =>
    expect(candidates.filter((c) => !c.scope.killed && c.elector.isLeader()).map((c) => c.identity).length).toBeLessThanOrEqual(1);
});

function candidate(identity: string, random = () => 0.5): Candidate {
  const scope = clock.scope();
  const lock = lease.lockFor(identity);
  const logs: Candidate["logs"] = [];
  const events: Candidate["events"] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(JSON.parse(line) as Candidate["logs"][number]) });
  const elector = new LeaderElector({
    lock,
    identity,
    ...TIMING,
    logger,
    clock: scope,
    random,
    onStartedLeading: () => events.push({ event: "started", at: clock.monotonicNow() }),
    onStoppedLeading: (reason) => events.push({ event: "stopped", reason, at: clock.monotonicNow() }),
  });
  const c = { identity, elector, lock, scope, events, logs };
  candidates.push(c);
  return c;
}

/** Starts `a`, lets it take the empty lease, then starts `b` and lets it see `a` hold it. */
async function leaderAndStandby(): Promise<[Candidate, Candidate]> {
  const a = candidate("pod-a");
  a.elector.start();
  await clock.advance(0);
  expect(a.elector.isLeader()).toBe(true);
  const b = candidate("pod-b");
  b.elector.start();
  await clock.advance(0);
  expect(b.elector.status()).toMatchObject({ leading: false, decided: true, holder: "pod-a" });
  return [a, b];
}

const started = (c: Candidate) => c.events.find((e) => e.event === "started");
const stopped = (c: Candidate) => c.events.find((e) => e.event === "stopped");
/** Wall time of the last write that `who` made to the lease. */
const lastWriteBy = (who: string) => lease.writes.filter((w) => w.by === who).at(-1)!.record.renewTime!;

describe("LeaderElector (virtual time)", () => {
  it("the first candidate creates the lease and leads; the other stands by while the leader renews from its cache", async () => {
    const acquiredAt = clock.now();
    const [a, b] = await leaderAndStandby();
    await clock.advance(60_000);
    expect(b.events).toEqual([]);
    expect(lease.record).toMatchObject({ holderIdentity: "pod-a", leaseDurationSeconds: 15, leaseTransitions: 0, acquireTime: acquiredAt });
    expect(lease.record!.renewTime).toBe(lastWriteBy("pod-a"));
    expect(clock.now() - lease.record!.renewTime!).toBeLessThanOrEqual(TIMING.retryPeriodMs);
    // A renewal every retry period, each an update from the cached record with no read (client-go's fast path).
    expect(a.lock.calls).toEqual(["get", "create", ...Array(30).fill("update")]);
    expect(a.events).toEqual([{ event: "started", at: 1_000 }]);
    expect(b.elector.status().holder).toBe("pod-a");
  });

  it("kill -9 of the leader: the standby takes over a lease duration after it last saw the record change, no sooner", async () => {
    const [a, b] = await leaderAndStandby();
    await clock.advance(7_000);
    a.scope.kill();
    const lastRenewal = lastWriteBy("pod-a");
    await clock.advanceUntil(() => b.elector.isLeader(), 60_000);
    const takeover = lease.record!;
    expect(takeover).toMatchObject({ holderIdentity: "pod-b", leaseTransitions: 1 });
    // client-go's rule, measured on the standby's own clock: it saw the last renewal at its next attempt after it.
    expect(takeover.acquireTime! - lastRenewal).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect(takeover.acquireTime! - lastRenewal).toBeLessThanOrEqual(TIMING.leaseDurationMs + 2 * MAX_RETRY_MS);
  });

  it("a leader cut off from the API server stops at its renew deadline, before the standby can take over", async () => {
    const [a, b] = await leaderAndStandby();
    await clock.advance(5_000);
    a.lock.cut = true;
    const lastRenewal = lastWriteBy("pod-a");
    const monotonicOf = (wall: number) => wall - (clock.now() - clock.monotonicNow());
    await clock.advanceUntil(() => b.elector.isLeader(), 60_000);
    expect(stopped(a)).toMatchObject({ reason: "renew-deadline" });
    // The deadline counts from when the last successful renewal started: exactly, on virtual time.
    expect(stopped(a)!.at - monotonicOf(lastRenewal)).toBe(TIMING.renewDeadlineMs);
    expect(stopped(a)!.at).toBeLessThan(started(b)!.at);
    expect(lease.record!.acquireTime! - lastRenewal).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect(a.logs.some((l) => l.msg === "lease renewal failed")).toBe(true);
    // Reconnected, the old leader sees the new holder and stands by.
    a.lock.cut = false;
    await clock.advance(30_000);
    expect(a.elector.status()).toMatchObject({ leading: false, holder: "pod-b" });
    expect(a.events.map((e) => e.event)).toEqual(["started", "stopped"]);
  });

  it("renewals that land but lose their answers: the leader stops at its deadline; the standby waits a lease duration", async () => {
    const [a, b] = await leaderAndStandby();
    await clock.advance(3_000);
    a.lock.loseAnswers = true;
    await clock.advanceUntil(() => b.elector.isLeader(), 60_000);
    const lastLanded = lease.writes.filter((w) => w.by === "pod-a").at(-1)!.record.renewTime!;
    expect(stopped(a)).toMatchObject({ reason: "renew-deadline" });
    expect(lease.record!.acquireTime! - lastLanded).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect(started(b)!.at - stopped(a)!.at).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs);
  });

  it("isLeader() reads the clock: a leader whose event loop stalled past the renew deadline is not the leader, no timer run", async () => {
    const [a] = await leaderAndStandby();
    clock.stall(TIMING.renewDeadlineMs);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events.at(-1)).toMatchObject({ event: "stopped", reason: "renew-deadline" });
  });

  it("a wall-clock step either way neither deposes the leader nor lets the standby take over", async () => {
    const [a, b] = await leaderAndStandby();
    for (const step of [3_600_000, -7_200_000]) {
      clock.stepWall(step);
      await clock.advance(60_000);
      expect(a.events.map((e) => e.event)).toEqual(["started"]);
      expect(b.events).toEqual([]);
      // What is written into the lease stays wall-clock time.
      expect(lease.record!.renewTime).toBe(lastWriteBy("pod-a"));
      expect(Math.abs(lastWriteBy("pod-a") - clock.now())).toBeLessThanOrEqual(TIMING.retryPeriodMs);
    }
  });

  it("a wall-clock step on the standby changes nothing: not sooner while the leader is cut off, not later once it is gone", async () => {
    const [a, b] = await leaderAndStandby();
    await clock.advance(5_000);
    a.lock.cut = true;
    clock.stepWall(3_600_000);
    await clock.advanceUntil(() => b.elector.isLeader(), 60_000);
    // The standby waited out the lease on its monotonic clock; the leader had stopped at its renew deadline.
    expect(stopped(a)!.at).toBeLessThan(started(b)!.at);
    expect(started(b)!.at - stopped(a)!.at).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs);

    b.scope.kill();
    a.lock.cut = false;
    await clock.advance(TIMING.retryPeriodMs * 2);
    clock.stepWall(-7_200_000);
    const waited = await clock.advanceUntil(() => a.elector.isLeader(), 60_000);
    expect(waited).toBeLessThanOrEqual(TIMING.leaseDurationMs + 4 * MAX_RETRY_MS);
  });

  it("409 races: two candidates creating at once, two taking an expired lease at once; one wins each, the other stands by", async () => {
    const a = candidate("pod-a", () => 0);
    const b = candidate("pod-b", () => 0);
    a.elector.start();
    b.elector.start();
    await clock.advance(0);
    expect(lease.writes.map((w) => `${w.by} ${w.kind}`)).toEqual(["pod-a create"]);
    expect(b.logs.some((l) => l.level === 20 && l.msg === "lease changed under us; reading it again next round")).toBe(true);
    await clock.advance(TIMING.retryPeriodMs);
    expect(b.elector.status()).toMatchObject({ leading: false, decided: true, holder: "pod-a" });

    // The holder vanishes (as if killed elsewhere); both standbys see it expire at the same instant.
    const c = candidate("pod-c", () => 0);
    c.elector.start();
    await clock.advance(TIMING.retryPeriodMs);
    a.scope.kill();
    const transitions = lease.record!.leaseTransitions;
    await clock.advanceUntil(() => b.elector.isLeader() || c.elector.isLeader(), 60_000);
    await clock.advance(TIMING.retryPeriodMs);
    expect([b, c].filter((x) => x.elector.isLeader())).toHaveLength(1);
    expect(lease.record!.leaseTransitions).toBe(transitions + 1);
    const loser = b.elector.isLeader() ? c : b;
    expect(loser.events).toEqual([]);
    expect(loser.logs.some((l) => l.msg === "lease changed under us; reading it again next round")).toBe(true);
  });

  it("stop with release empties the holder (lease duration 1 s), and the standby takes over within one jittered retry period", async () => {
    const [a, b] = await leaderAndStandby();
    await clock.advance(5_000);
    await a.elector.stop({ release: true });
    expect(a.events.map((e) => [e.event, e.reason])).toEqual([
      ["started", undefined],
      ["stopped", "released"],
    ]);
    expect(lease.record).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    const waited = await clock.advanceUntil(() => b.elector.isLeader(), 60_000);
    expect(waited).toBeLessThanOrEqual(MAX_RETRY_MS);
    expect(lease.record).toMatchObject({ holderIdentity: "pod-b", leaseDurationSeconds: 15, leaseTransitions: 1 });
  });

  it("a lease taken by another holder makes the leader step down at its next renewal", async () => {
    const [a] = await leaderAndStandby();
    await clock.advance(3_000);
    lease.overwrite({
      ...lease.record!,
      holderIdentity: "intruder",
      leaseDurationSeconds: 30,
      renewTime: clock.now(),
      acquireTime: clock.now(),
    });
    const waited = await clock.advanceUntil(() => stopped(a) !== undefined, 60_000);
    expect(waited).toBeLessThanOrEqual(TIMING.retryPeriodMs);
    expect(stopped(a)!.reason).toBe("lost");
    expect(lease.record!.holderIdentity).toBe("intruder");
  });

  it("failed renewals are retried; the leader keeps leading until its renew deadline, not after", async () => {
    const [a] = await leaderAndStandby();
    a.lock.failWith = new LeaseLockError("lease_call_failed", "updating lease: 500: etcdserver: request timed out", 500);
    // Three renewals fail; the fourth comes before the deadline.
    await clock.advance(3 * TIMING.retryPeriodMs);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.logs.filter((l) => l.msg === "lease renewal failed")).toHaveLength(3);
    a.lock.failWith = undefined;
    await clock.advance(30_000);
    expect(a.events.map((e) => e.event)).toEqual(["started"]);

    a.lock.failWith = new LeaseLockError("lease_call_failed", "updating lease: 503", 503);
    const lastRenewal = clock.monotonicNow();
    await clock.advanceUntil(() => !a.elector.isLeader(), 60_000);
    expect(stopped(a)!.reason).toBe("renew-deadline");
    expect(stopped(a)!.at - lastRenewal).toBe(TIMING.renewDeadlineMs);
  });

  it("a standby retries every retry period, jittered up to 1.2 times it", async () => {
    const attempts = async (random: () => number): Promise<number[]> => {
      clock = new VirtualClock(WALL_START, MONOTONIC_START);
      lease = new MemoryLease();
      candidates = [];
      await leaderAndStandby();
      const b = candidate("pod-b2", random);
      b.elector.start();
      const times: number[] = [];
      const get = b.lock.get.bind(b.lock);
      b.lock.get = (signal) => {
        times.push(clock.monotonicNow());
        return get(signal);
      };
      await clock.advance(20_000);
      return times.slice(1).map((t, i) => t - times[i]!);
    };
    const fastest = await attempts(() => 0);
    const slowest = await attempts(() => 0.999_999);
    expect(fastest.length).toBeGreaterThanOrEqual(9);
    for (const gap of fastest) expect(gap).toBeCloseTo(TIMING.retryPeriodMs, 3);
    for (const gap of slowest) expect(gap).toBeCloseTo(MAX_RETRY_MS, 2);
  });

  it("refuses timings client-go would refuse", () => {
    expect(leaseTimingProblems(TIMING)).toEqual([]);
    expect(leaseTimingProblems({ ...TIMING, leaseDurationMs: 10_000 })).toEqual([
      "the lease duration must be longer than the renew deadline",
    ]);
    expect(leaseTimingProblems({ ...TIMING, renewDeadlineMs: 2000 })).toEqual([
      "the renew deadline must be longer than 1.2 × the retry period",
    ]);
    expect(
      () =>
        new LeaderElector({
          lock: lease.lockFor("x"),
          identity: "x",
          leaseDurationMs: 500,
          renewDeadlineMs: 400,
          retryPeriodMs: 100,
          logger: pino({ level: "silent" }),
        }),
    ).toThrow(/lease duration must be at least 1s/);
  });
});
