// The conflicting-writer detector on plain data and a virtual clock: conflicts with another identity's writes,
// repeated within the window, report it once (log, metric, reason); its own conflicts and a single one never do; a
// quiet window clears it.
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ControllerMetrics } from "../src/observability/metrics.js";
import { CONFLICT_WINDOW_MS, CONFLICTS_TO_REPORT, ConflictingWriters } from "../src/state/conflicting-writers.js";
import { readiness, type ReadinessSnapshot } from "../src/observability/readiness.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

function detector() {
  const lines: { msg: string; otherWriter?: string; level: number }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const clock = new VirtualClock();
  const metrics = new ControllerMetrics();
  const writers = new ConflictingWriters({ clock, logger: pino(sink), metrics, self: "ctl-a", configMap: "shiplog/state" });
  const gauge = async () =>
    (await metrics.registry.getSingleMetric("shiplog_controller_state_conflicting_writers")!.get()).values[0]?.value;
  const count = async () => (await metrics.registry.getSingleMetric("shiplog_controller_state_conflicts_total")!.get()).values[0]?.value;
  return { lines, clock, writers, gauge, count };
}

describe("conflicting writers", () => {
  it("repeated conflicts with another writer report it once, by name; a quiet window clears it", async () => {
    const d = detector();
    for (let i = 1; i < CONFLICTS_TO_REPORT; i++) {
      d.writers.conflicted("ctl-b");
      await d.clock.advance(1000);
    }
    expect(d.writers.current()).toBeUndefined();
    expect(await d.gauge()).toBe(0);
    d.writers.conflicted("ctl-b");
    d.writers.conflicted("ctl-b");
    expect(d.writers.current()).toBe("ctl-b");
    expect(await d.gauge()).toBe(1);
    expect(await d.count()).toBe(CONFLICTS_TO_REPORT + 1);
    const reported = d.lines.filter((l) => l.otherWriter === "ctl-b" && l.level === 50);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.msg).toMatch(/^another controller \(ctl-b\) writes the same state/);
    expect(d.writers.reason()).toContain("another controller (ctl-b) writes the same state ConfigMap shiplog/state");

    await d.clock.advance(CONFLICT_WINDOW_MS);
    expect(d.writers.current()).toBeUndefined();
    expect(d.writers.reason()).toBeUndefined();
    expect(await d.gauge()).toBe(0);
  });

  it("never for its own writes, an unknown writer, or conflicts spread wider than the window", async () => {
    const d = detector();
    for (let i = 0; i < 10; i++) {
      d.writers.conflicted("ctl-a");
      d.writers.conflicted(undefined);
    }
    for (let i = 0; i < 10; i++) {
      d.writers.conflicted("ctl-b");
      await d.clock.advance(CONFLICT_WINDOW_MS / (CONFLICTS_TO_REPORT - 1) + 1);
    }
    expect(d.writers.current()).toBeUndefined();
    expect(d.lines.filter((l) => l.level === 50)).toEqual([]);
    expect(await d.count()).toBe(10);
  });

  it("makes a leader unready with the other writer named, before anything else it would say", () => {
    const leader: ReadinessSnapshot = {
      synced: true,
      leading: true,
      electing: false,
      electionDecided: true,
      readyWhenStandby: true,
      stateLoaded: true,
      flushed: true,
      stateWriteFailures: 5,
      stateWriteError: "still conflicting after 5 re-reads",
      tokenRefusedFlushes: 0,
      tokenRefusedStatus: 0,
      refused: new Map(),
      acknowledged: 3,
    };
    const conflictingWriter = "another controller (ctl-b) writes the same state ConfigMap shiplog/state: …";
    expect(readiness({ ...leader, conflictingWriter })).toEqual({ ready: false, reason: conflictingWriter });
    expect(readiness({ ...leader, stateWriteFailures: 0 })).toEqual({ ready: true, role: "leader" });
  });
});
