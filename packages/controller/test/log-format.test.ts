// --log-format: pino's JSON lines as they are, or each as one readable line (time, level, message, key=value), with
// pino's redaction applied before either.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@shiplog/controller";
import { logDestination, textLine } from "../src/observability/log-format.js";

const ENV = { SHIPLOG_TOKEN: "t", SHIPLOG_ORG: "acme", SHIPLOG_CLUSTER: "c", SHIPLOG_LOGICAL_ENVIRONMENT: "production" };

function logged(format: "json" | "text", write: (logger: pino.Logger) => void): string[] {
  const lines: string[] = [];
  const logger = pino(
    { base: { component: "shiplog-controller" }, timestamp: () => ',"time":0', redact: { paths: ["token"], censor: "[redacted]" } },
    logDestination(format, { write: (line) => lines.push(line) }),
  );
  write(logger);
  return lines;
}

describe("the log format", () => {
  it("json by default; text by --log-format or SHIPLOG_LOG_FORMAT", () => {
    expect(loadConfig([], ENV).logFormat).toBe("json");
    expect(loadConfig(["--log-format", "text"], ENV).logFormat).toBe("text");
    expect(loadConfig([], { ...ENV, SHIPLOG_LOG_FORMAT: "text" }).logFormat).toBe("text");
  });

  it("json: pino's line unchanged", () => {
    const [line] = logged("json", (logger) => logger.info({ accepted: 3 }, "flushed"));
    expect(JSON.parse(line!)).toEqual({ level: 30, time: 0, component: "shiplog-controller", accepted: 3, msg: "flushed" });
  });

  it("text: time, level, message, then key=value; quoted where needed, objects as JSON, the token redacted", () => {
    const lines = logged("text", (logger) => {
      logger.info({ accepted: 3, dryRun: false, namespace: "shop" }, "flushed");
      logger.warn({ reason: 'a quoted "word" here', budget: { perMinute: 80 }, token: "ghs_secret" }, "slow down");
    });
    expect(lines).toEqual([
      "1970-01-01T00:00:00.000Z INFO  flushed accepted=3 dryRun=false namespace=shop\n",
      '1970-01-01T00:00:00.000Z WARN  slow down reason="a quoted \\"word\\" here" budget={"perMinute":80} token=[redacted]\n',
    ]);
  });

  it("text: an error's stack stays on its line; a line that is not pino's is written as it came", () => {
    const line = textLine({ level: 50, time: 0, msg: "stop failed", err: { type: "Error", message: "x", stack: "Error: x\n    at y" } });
    expect(line).toBe('1970-01-01T00:00:00.000Z ERROR stop failed err={"type":"Error","message":"x","stack":"Error: x\\n    at y"}');
    const out: string[] = [];
    logDestination("text", { write: (l) => out.push(l) }).write("not json\n");
    expect(out).toEqual(["not json\n"]);
  });
});
