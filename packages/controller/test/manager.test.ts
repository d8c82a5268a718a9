// The manager's groups: caches, then every replica's runnables, then the leader-only group while leading (started
// and stopped by the leadership, as often as it comes and goes); stopped in reverse, the Lease released last.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Leadership, type LeadershipEvents } from "../src/election/leadership.js";
import { Manager, type Runnable } from "../src/manager.js";
import { settle } from "../../../test/kit/virtual-clock.js";

const logger = pino({ level: "silent" });

/** An elector the test drives: it leads when told to. */
function drivenElector() {
  let events: LeadershipEvents | undefined;
  let leading = false;
  const log: string[] = [];
  const leadership = new Leadership((callbacks) => {
    events = callbacks;
    return {
      start: () => log.push("elector start"),
      stop: async ({ release }) => {
        log.push(`elector stop${release ? " (release)" : ""}`);
        if (leading) {
          leading = false;
          events!.onStoppedLeading("released");
        }
      },
      isLeader: () => leading,
      status: () => ({ decided: true }),
    };
  });
  return {
    leadership,
    log,
    elect: () => {
      leading = true;
      events!.onStartedLeading();
    },
    depose: () => {
      leading = false;
      events!.onStoppedLeading("lost");
    },
  };
}

const recorder = (log: string[], name: string): Runnable => ({
  name,
  start: () => void log.push(`start ${name}`),
  stop: (context) => void log.push(`stop ${name}${context.shutdown ? "" : ` (${context.reason})`}`),
});

describe("manager", () => {
  it("starts the groups in order, the leader-only group each time leadership starts, and stops in reverse", async () => {
    const e = drivenElector();
    const manager = new Manager(logger, e.leadership)
      .add("leader", recorder(e.log, "rounds"))
      .add("always", recorder(e.log, "loop"))
      .add("caches", recorder(e.log, "informers"));
    await manager.start();
    expect(e.log).toEqual(["start informers", "start loop", "elector start"]);
    expect(e.leadership.leading()).toBe(false);

    e.elect();
    await settle();
    expect(e.leadership.leading()).toBe(true);
    expect(e.leadership.signal?.aborted).toBe(false);
    const signal = e.leadership.signal!;
    e.depose();
    await settle();
    // The fence's signal is cut the moment leadership ends, before the group has stopped.
    expect(signal.aborted).toBe(true);
    e.elect();
    await settle();
    expect(e.log.slice(3)).toEqual(["start rounds", "stop rounds (lost)", "start rounds"]);

    e.log.length = 0;
    await manager.stop({ flush: true });
    expect(e.log).toEqual(["stop rounds", "stop loop", "stop informers", "elector stop (release)"]);
  });

  it("without an election this replica leads from start to stop", async () => {
    const log: string[] = [];
    const leadership = new Leadership();
    const manager = new Manager(logger, leadership).add("leader", recorder(log, "rounds")).add("caches", recorder(log, "informers"));
    expect(leadership.leading()).toBe(false);
    await manager.start();
    await settle();
    expect(leadership.leading()).toBe(true);
    await manager.stop();
    expect(leadership.leading()).toBe(false);
    expect(log).toEqual(["start informers", "start rounds", "stop rounds", "stop informers"]);
  });

  it("a runnable failing to start stops those started before it", async () => {
    const log: string[] = [];
    const manager = new Manager(logger, new Leadership())
      .add("caches", recorder(log, "informers"))
      .add("always", recorder(log, "first"))
      .add("always", {
        name: "broken",
        start: () => {
          throw new Error("no");
        },
        stop: () => undefined,
      });
    await expect(manager.start()).rejects.toThrow("no");
    expect(log).toEqual(["start informers", "start first", "stop first (broken failed to start)", "stop informers"]);
  });
});
