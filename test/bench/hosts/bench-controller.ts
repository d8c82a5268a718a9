// The controller as the benchmark runs it: its own process (the test suite's runner), with its own settings rather
// than the tests' fast timings (an empty value is the controller's default), the state ConfigMap on, and a tap on its
// log (BENCH_CHILD_LOG=<file> keeps it; the first round's line says when the desired state was first computed).
import { appendFileSync } from "node:fs";
import { CONTROLLER_BUNDLE, startControllerProcess, type ControllerProcess } from "../../kit/controller-process.js";
import type { MetricReader } from "./round-metrics.js";

/** A running controller of the benchmark. */
export interface BenchController {
  process: ControllerProcess;
  pid: number | undefined;
  spawnedAt: number;
  metric: MetricReader;
  /** When every cache had listed and the desired state was computed (the controller's clock, epoch ms). */
  syncedAt?: number;
  /** When the first round ran while the pods were still listing (posting what was listed so far), if one did. */
  firstPartialRoundAt?: number;
  /** Warnings and errors logged so far. */
  warnings(): number;
  /** SIGTERM, and its exit. */
  stop(): Promise<void>;
}

/** Where the controller works and what it is told beyond its defaults. */
export interface BenchControllerOptions {
  kubeconfig: string;
  apiUrl: string;
  token: string;
  cluster: string;
  stateNamespace: string;
  stateConfigMap: string;
  podName: string;
  nodeFlags: string[];
  env: Record<string, string>;
}

/** Starts the controller process. */
export function startBenchController(o: BenchControllerOptions): BenchController {
  const childLog = process.env.BENCH_CHILD_LOG;
  const c = { spawnedAt: Date.now() } as BenchController;
  const child = startControllerProcess(
    { kubeconfig: o.kubeconfig },
    { url: o.apiUrl, tokens: { admin: o.token } },
    {
      SHIPLOG_CLUSTER: o.cluster,
      SHIPLOG_FLUSH_WINDOW: "",
      SHIPLOG_FLUSH_MAX_WAIT: "",
      SHIPLOG_RETRY_MIN_DELAY: "",
      SHIPLOG_RETRY_MAX_DELAY: "",
      SHIPLOG_REQUEST_TIMEOUT: "",
      SHIPLOG_LOG_LEVEL: process.env.BENCH_CHILD_LOG_LEVEL ?? "info",
      SHIPLOG_STATE_CONFIGMAP: o.stateConfigMap,
      POD_NAMESPACE: o.stateNamespace,
      POD_NAME: o.podName,
      ...o.env,
    },
    {
      nodeFlags: o.nodeFlags,
      // What the image runs: the one-file bundle.
      entry: CONTROLLER_BUNDLE,
      onLine: (line) => {
        if (childLog) appendFileSync(childLog, `${line}\n`);
        if (c.syncedAt === undefined && line.includes("caches synced: desired state computed")) c.syncedAt = JSON.parse(line).time;
        if (c.firstPartialRoundAt === undefined && line.includes("first round while the pods are still listing"))
          c.firstPartialRoundAt = JSON.parse(line).time;
      },
    },
  );
  return Object.assign(c, {
    process: child,
    pid: child.child.pid,
    metric: (name: string, labels?: string) => child.metric(name, labels),
    warnings: () => child.logs.filter((l) => Number(l.level ?? 0) >= 40).length,
    async stop() {
      child.child.kill("SIGTERM");
      await child.exited;
    },
  });
}
