// The controller as its own process (the built entry point or the image's bundle): its JSON log, the health server's
// address it logs, its health endpoints and metrics.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startProcess, type RunningProcess } from "./process.js";
import { tempDir } from "./temp-dir.js";

/** The built controller's entry point. */
export const CONTROLLER_MAIN = fileURLToPath(new URL("../../packages/controller/dist/main.js", import.meta.url));
/** The one-file bundle the image runs (`pnpm build` makes it). */
export const CONTROLLER_BUNDLE = fileURLToPath(new URL("../../packages/controller/dist/bundle/controller.js", import.meta.url));
/**
 * The built controller with test-only instrumentation (packages/controller/test/crash-entry.ts, run by tsx): the
 * node arguments. startControllerProcess runs it when a test sets one of TEST_SETTINGS.
 */
export const CONTROLLER_TEST_ENTRY: readonly string[] = [
  "--import",
  pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
  fileURLToPath(new URL("../../packages/controller/test/crash-entry.ts", import.meta.url)),
];
/** Settings only the test entry reads (production code has no such hooks). */
const TEST_SETTINGS = ["SHIPLOG_TEST_CRASH_AT", "SHIPLOG_TEST_STATE_LIMITS"];
/** The organization and cluster the tests' controllers post for. */
export const ORG = "acme";
export const CLUSTER = "test-cluster";

/** A running controller process. */
export interface ControllerProcess extends RunningProcess {
  /** Parsed JSON log lines so far. */
  logs: { msg: string; time: number; [key: string]: unknown }[];
  /** Base URL of /healthz /readyz /metrics, once the process logged it; rejects if it exits first. */
  url(): Promise<string>;
  /** GET a path of the health server: status and body. */
  get(path: string): Promise<{ status: number; body: string }>;
  /** The value of a metric (summed over label sets matching `labels`). */
  metric(name: string, labels?: string): Promise<number>;
}

/** Options of a controller process besides its settings. */
export interface ControllerProcessOptions {
  /** Node flags before the script (a heap cap, a profiler). */
  nodeFlags?: string[];
  /** The script: the built entry point (default; the test entry with a test-only setting) or CONTROLLER_BUNDLE. */
  entry?: string;
  /** Every line of its standard output, as it comes. */
  onLine?: (line: string) => void;
}

/** What the controller is pointed at: a fake cluster's kubeconfig, an emulator's URL and tokens. */
export interface ControllerTargets {
  cluster: { kubeconfig: string };
  emulator: { url: string; tokens: Record<string, string | undefined> };
}

/**
 * Starts `node dist/main.js` against `cluster` and `emulator` with fast timings; `env` adds or overrides settings (an
 * empty value unsets one: the controller's default).
 */
export function startControllerProcess(
  cluster: ControllerTargets["cluster"],
  emulator: ControllerTargets["emulator"],
  env: Record<string, string>,
  options: ControllerProcessOptions = {},
): ControllerProcess {
  const dir = tempDir("shiplog-ctl-");
  writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
  const settings = {
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
  };
  const instrumented = options.entry === undefined && TEST_SETTINGS.some((name) => env[name]);
  const script = instrumented ? CONTROLLER_TEST_ENTRY : [options.entry ?? CONTROLLER_MAIN];
  return startControllerCommand([process.execPath, ...(options.nodeFlags ?? []), ...script], settings, options);
}

/** Starts `command` (a controller entry point) with exactly `env` plus PATH, and reads its log. */
export function startControllerCommand(
  command: readonly string[],
  env: Record<string, string>,
  options: Pick<ControllerProcessOptions, "onLine"> = {},
): ControllerProcess {
  const logs: ControllerProcess["logs"] = [];
  const running = startProcess(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    onLine(line) {
      options.onLine?.(line);
      try {
        const entry = JSON.parse(line) as ControllerProcess["logs"][number];
        logs.push(entry);
      } catch {
        // not JSON
      }
    },
  });
  const url = running.line(/"msg":"health and metrics server listening"/).then((line) => (JSON.parse(line) as { url: string }).url);
  url.catch(() => undefined);
  const process_: ControllerProcess = {
    ...running,
    logs,
    url: () => url,
    async get(path) {
      const response = await fetch(`${await url}${path}`);
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
