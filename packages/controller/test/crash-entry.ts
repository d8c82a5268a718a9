// The controller process as the crash and damage matrices run it (`node --import tsx crash-entry.ts`, test/kit's
// startControllerProcess picks it when a test sets one of the variables below): the built controller (dist, through
// @shiplog/controller/internal) with test-only instrumentation that production code never reads:
//   SHIPLOG_TEST_CRASH_AT=<point>:<deployment name>   kill -9 at that point of the flush sending that name (crash-hook.ts)
//   SHIPLOG_TEST_STATE_LIMITS=head=<bytes>,shard=<bytes>   the state layout's limits shrunk, so a few records shard
import { runControllerProcess, type StateLimits } from "@shiplog/controller/internal";
import { TestCrashHook } from "./crash-hook.js";

/** `head=<bytes>,shard=<bytes>` as the state layout's limits; a RangeError naming the variable when malformed. */
function stateLimits(value: string | undefined): Partial<Omit<StateLimits, "maxShards">> | undefined {
  if (!value) return undefined;
  const limits: Partial<Omit<StateLimits, "maxShards">> = {};
  for (const pair of value.split(",")) {
    const [key, bytes] = pair.split("=");
    const n = Number(bytes);
    if (!Number.isInteger(n) || n < 0 || (key !== "head" && key !== "shard"))
      throw new RangeError("SHIPLOG_TEST_STATE_LIMITS: expected head=<bytes>,shard=<bytes>");
    limits[key === "head" ? "headMaxBytes" : "shardMaxBytes"] = n;
  }
  return limits;
}

const crash = TestCrashHook.fromEnv(process.env);
const limits = stateLimits(process.env.SHIPLOG_TEST_STATE_LIMITS);
runControllerProcess({
  ...(crash ? { probes: { round: crash, stateWrite: (step) => crash.reached(step) } } : {}),
  ...(limits ? { stateLimits: limits } : {}),
});
