// The crash matrix's hook: kills the process (SIGKILL, as `kill -9`) at a chosen point of a flush, so the test can
// hit each point exactly. The controller only offers the points (ControllerOptions.probes); the test entry
// (crash-entry.ts) builds this hook from SHIPLOG_TEST_CRASH_AT and passes it.
//
//   SHIPLOG_TEST_CRASH_AT=<point>:<deployment name>
//
// arms the hook in the first flush whose pending entries include that deployment name, and kills the process when
// that flush reaches <point>:
// - before-send:  the write-ahead state is written, no call made yet;
// - in-flight:    150 ms after the call was issued (with an emulator latency fault, the service holds the request);
// - after-answer: the service answered, the state with the answer is not written yet;
// - state-write:  the state write's request is issued, its answer not received;
// and inside a compaction of the sharded state (the journal folded into shard ConfigMaps, then the head switched):
// - shard-written:      a first shard slot is written, the compaction has more to write;
// - before-head-switch: every changed shard slot is written, the head not yet switched to them;
// - head-switch:        the head switch's request is issued, its answer not received.

import type { RoundProbe } from "@shiplog/controller/internal";

/** The points of a flush the hook can kill at. */
export const CRASH_POINTS = [
  "before-send",
  "in-flight",
  "after-answer",
  "state-write",
  "shard-written",
  "before-head-switch",
  "head-switch",
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Delay of the in-flight kill after the call is issued. */
const IN_FLIGHT_DELAY_MS = 150;

/** The armed-or-not crash hook of one process, as the controller's round probe and state-write probe. */
export class TestCrashHook implements RoundProbe {
  #armed = false;

  constructor(
    readonly point: CrashPoint,
    readonly deploymentName: string,
    private readonly kill: () => void = () => process.kill(process.pid, "SIGKILL"),
  ) {}

  /** Reads SHIPLOG_TEST_CRASH_AT; undefined when unset. Throws a RangeError naming the variable when malformed. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): TestCrashHook | undefined {
    const value = env.SHIPLOG_TEST_CRASH_AT;
    if (!value) return undefined;
    const at = value.indexOf(":");
    const point = value.slice(0, at) as CrashPoint;
    if (at < 0 || !CRASH_POINTS.includes(point) || at === value.length - 1) {
      throw new RangeError(`SHIPLOG_TEST_CRASH_AT: expected <point>:<deployment name>, point one of ${CRASH_POINTS.join(", ")}`);
    }
    return new TestCrashHook(point, value.slice(at + 1));
  }

  /** Arms the hook when this flush sends the trigger's deployment name (once armed, it stays armed). */
  sending(deploymentNames: Iterable<string>): void {
    if (this.#armed) return;
    for (const name of deploymentNames) if (name === this.deploymentName) this.#armed = true;
  }

  /** A flush reached `point`: kill now (in-flight: shortly, while the call is outstanding) if armed for it. */
  reached(point: CrashPoint): void {
    if (!this.#armed || point !== this.point) return;
    if (point === "in-flight") setTimeout(this.kill, IN_FLIGHT_DELAY_MS);
    else if (point === "state-write" || point === "head-switch") setImmediate(this.kill);
    else this.kill();
  }
}
