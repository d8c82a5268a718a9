// Runs `node dist/main.js` as its own process against a fake cluster and an emulator, and reads its JSON log,
// health endpoints and metrics.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Emulator } from "@shiplog/emulator";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { CLUSTER, ORG } from "./scenario-harness.js";

export const MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");

export interface ControllerProcess {
  child: ChildProcess;
  /** Parsed JSON log lines so far. */
  logs: { msg: string; time: number; [key: string]: unknown }[];
  url(): Promise<string>;
  /** GET a path of the health server: status and body. */
  get(path: string): Promise<{ status: number; body: string }>;
  /** The value of a metric (summed over label sets matching `labels`). */
  metric(name: string, labels?: string): Promise<number>;
  exited: Promise<number | null>;
  output(): string;
}

/** Options of a controller process besides its settings. */
export interface ControllerProcessOptions {
  /** Node flags before the script (a heap cap, a profiler). */
  nodeFlags?: string[];
  /** Every line of its standard output, as it comes. */
  onLine?: (line: string) => void;
}

/**
 * Starts the controller against `cluster` and `emulator` with fast timings; `env` adds or overrides settings (an empty
 * value unsets one: the controller's default).
 */
export function startControllerProcess(
  cluster: Pick<FakeCluster, "kubeconfig">,
  emulator: Pick<Emulator, "url" | "tokens">,
  env: Record<string, string>,
  options: ControllerProcessOptions = {},
): ControllerProcess {
  const dir = mkdtempSync(join(tmpdir(), "shiplog-ctl-"));
  writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      KUBECONFIG: join(dir, "kubeconfig"),
      SHIPLOG_API_URL: emulator.url,
      SHIPLOG_TOKEN: emulator.tokens.admin!,
      SHIPLOG_ORG: ORG,
      SHIPLOG_CLUSTER: CLUSTER,
      SHIPLOG_LOGICAL_ENVIRONMENT: "production",
      SHIPLOG_FLUSH_WINDOW: "20ms",
      SHIPLOG_FLUSH_MAX_WAIT: "100ms",
      SHIPLOG_RETRY_MIN_DELAY: "50ms",
      SHIPLOG_RETRY_MAX_DELAY: "400ms",
      SHIPLOG_REQUEST_TIMEOUT: "2s",
      SHIPLOG_HTTP_HOST: "127.0.0.1",
      SHIPLOG_HTTP_PORT: "0",
      POD_NAMESPACE: "shiplog",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: ControllerProcess["logs"] = [];
  let raw = "";
  let url: string | undefined;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    options.onLine?.(line);
    raw += `${line}\n`;
    try {
      const entry = JSON.parse(line) as ControllerProcess["logs"][number];
      logs.push(entry);
      if (entry.msg === "health and metrics server listening") url = entry.url as string;
    } catch {
      // not JSON
    }
  });
  child.stderr!.on("data", (d: Buffer) => (raw += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const process_: ControllerProcess = {
    child,
    logs,
    exited,
    output: () => raw,
    async url() {
      const end = Date.now() + 20_000;
      while (!url) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`no health server address:\n${raw}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return url;
    },
    async get(path) {
      const response = await fetch(`${await process_.url()}${path}`);
      return { status: response.status, body: await response.text() };
    },
    async metric(name, labels = "") {
      const text = (await process_.get("/metrics")).body;
      let sum = 0;
      for (const line of text.split("\n")) {
        const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
        if (match && match[1] === name && (match[2] ?? "").includes(labels)) sum += Number(match[3]);
      }
      return sum;
    },
  };
  return process_;
}
