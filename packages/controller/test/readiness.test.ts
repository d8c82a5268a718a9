// /readyz as a pure function of a status snapshot.
import { describe, expect, it } from "vitest";
import {
  failingInformers,
  INFORMER_FAILURES_UNREADY,
  readiness,
  STATE_WRITE_FAILURES_UNREADY,
  TOKEN_REFUSED_FLUSHES_UNREADY,
  type ReadinessSnapshot,
} from "../src/observability/readiness.js";

const leader: ReadinessSnapshot = {
  synced: true,
  leading: true,
  electing: true,
  electionDecided: true,
  readyWhenStandby: true,
  stateLoaded: true,
  flushed: true,
  stateWriteFailures: 0,
  stateWriteError: "",
  tokenRefusedFlushes: 0,
  tokenRefusedStatus: 0,
  refused: new Map(),
  acknowledged: 5,
};
const standby = { ...leader, leading: false };

describe("readiness", () => {
  it("a damaged state makes the leader unready with the damage as the reason (until cleared); a standby holds no state", () => {
    const stateDamage = "acknowledged state damaged (detected 2026-11-27T07:00:00.000Z): shard 3: …; 12 records may stay deployed";
    expect(readiness({ ...leader, stateDamage })).toEqual({ ready: false, reason: stateDamage });
    // Before the token and the first flush: it does not pass with time.
    expect(readiness({ ...leader, stateDamage, flushed: false, tokenRefusedFlushes: TOKEN_REFUSED_FLUSHES_UNREADY })).toEqual({
      ready: false,
      reason: stateDamage,
    });
    expect(readiness({ ...standby, stateDamage })).toEqual({ ready: true, role: "standby" });
    expect(readiness(leader)).toEqual({ ready: true, role: "leader" });
  });

  it("an informer whose lists or watches fail in a row past the bound makes leader and standby unready, naming it", () => {
    const watch = (failures: number) => ({ kind: "Pod", namespace: "", failures, lastError: "watch Pod: 403 Forbidden", objects: 3 });
    expect(failingInformers([watch(INFORMER_FAILURES_UNREADY - 1)])).toBeUndefined();
    const reason = failingInformers([watch(INFORMER_FAILURES_UNREADY), { ...watch(9), kind: "Job", namespace: "team-a" }]);
    expect(reason).toBe(
      `list/watch of Pod failed ${INFORMER_FAILURES_UNREADY} times in a row (watch Pod: 403 Forbidden) (and 1 more informers); the cache no longer follows the cluster`,
    );
    expect(readiness({ ...leader, informersFailing: reason! })).toEqual({ ready: false, reason });
    expect(readiness({ ...standby, informersFailing: reason! })).toEqual({ ready: false, reason });
  });

  it("a leader whose every record the service refuses, and that has none acknowledged, is not ready, naming the causes", () => {
    const refused = new Map([["not_found", 6]]);
    const answer = readiness({ ...leader, refused, acknowledged: 0 });
    expect(answer.ready).toBe(false);
    expect(!answer.ready && answer.reason).toMatch(/^the service refused every record \(6; not_found: 6\) and holds none: nothing links/);
    expect(!answer.ready && answer.reason).toContain("--image-repositories");
    expect(!answer.ready && answer.reason).toContain("ShiplogRecordsRejected");
    const unauthorized = readiness({ ...leader, refused: new Map([["unauthorized", 2]]), acknowledged: 0 });
    expect(!unauthorized.ready && unauthorized.reason).toContain("(2; unauthorized: 2)");
    // Some records landed: a partial refusal is the alert's business, not readiness's.
    expect(readiness({ ...leader, refused, acknowledged: 1 })).toEqual({ ready: true, role: "leader" });
    // A standby holds no refusals of its own.
    expect(readiness({ ...standby, refused, acknowledged: 0 })).toEqual({ ready: true, role: "standby" });
  });

  it("a synced leader that has run a round, or a synced standby, is ready", () => {
    expect(readiness(leader)).toEqual({ ready: true, role: "leader" });
    expect(readiness(standby)).toEqual({ ready: true, role: "standby" });
  });

  it("names why not, in order: caches, state writes, the token, the first round", () => {
    expect(readiness({ ...leader, synced: false })).toEqual({ ready: false, reason: "informer caches not synced" });
    expect(readiness({ ...leader, stateWriteFailures: STATE_WRITE_FAILURES_UNREADY, stateWriteError: "forbidden" })).toEqual({
      ready: false,
      reason: "writing the state ConfigMap failed 3 times in a row (forbidden); nothing is sent until it is written",
    });
    expect(readiness({ ...leader, tokenRefusedFlushes: TOKEN_REFUSED_FLUSHES_UNREADY, tokenRefusedStatus: 401 })).toEqual({
      ready: false,
      reason: "the service refused the API token (401) on every call of the last 3 flushes",
    });
    expect(readiness({ ...leader, stateWriteFailures: 2, tokenRefusedFlushes: 2 }).ready).toBe(true);
    expect(readiness({ ...leader, flushed: false })).toEqual({ ready: false, reason: "first flush pending" });
    expect(readiness({ ...leader, flushed: false, stateLoaded: false })).toEqual({ ready: false, reason: "acknowledged state not loaded" });
  });

  it("a standby is not ready before an election round has decided, nor when standbys do not count", () => {
    expect(readiness({ ...standby, electionDecided: false })).toEqual({ ready: false, reason: "leader election pending" });
    expect(readiness({ ...standby, readyWhenStandby: false })).toEqual({ ready: false, reason: "standing by (not the leader)" });
  });
});
