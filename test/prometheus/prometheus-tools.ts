// Debian's Prometheus (2.42) and promtool, run by the tests: a real server scraping over loopback with a temporary
// data directory, and promtool's checks. Nothing here starts a system service; .ci/run installs the package.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { vi } from "vitest";
import { freePort } from "../kit/loopback.js";
import { WAIT } from "../kit/wait.js";
import { tempDir } from "../kit/temp-dir.js";

/** Whether the prometheus and promtool binaries run here, and if not, why. */
export function findPrometheus(): { ok: true } | { ok: false; reason: string } {
  for (const binary of ["prometheus", "promtool"]) {
    const result = spawnSync(binary, ["--version"], { encoding: "utf8" });
    if (result.status !== 0)
      return {
        ok: false,
        reason: `${binary} does not run (${result.error?.message ?? result.stderr.trim()}); install with: apt-get install -y prometheus`,
      };
  }
  return { ok: true };
}

/** Runs promtool with `args`, `input` on stdin; its exit code and output. */
export function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync("promtool", args, { encoding: "utf8", ...(input !== undefined ? { input } : {}) });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A running Prometheus server on loopback. */
export interface PrometheusServer {
  url: string;
  /** An instant query through the HTTP API: the result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Everything the server printed. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus scraping `targets` (host:port, path /metrics) every `scrapeInterval`, on a temporary data dir;
 * with `ruleFiles`, it evaluates their rules at the scrape interval (the alerts show in the `ALERTS` series).
 */
export async function startPrometheus(
  targets: string[],
  scrapeInterval = "1s",
  options: { ruleFiles?: readonly string[] } = {},
): Promise<PrometheusServer> {
  const dir = tempDir("shiplog-prometheus-");
  const config = join(dir, "prometheus.yml");
  const rules = options.ruleFiles ?? [];
  writeFileSync(
    config,
    [
      "global:",
      `  scrape_interval: ${scrapeInterval}`,
      `  scrape_timeout: ${scrapeInterval}`,
      `  evaluation_interval: ${scrapeInterval}`,
      ...(rules.length > 0 ? ["rule_files:", ...rules.map((file) => `  - ${JSON.stringify(file)}`)] : []),
      "scrape_configs:",
      "  - job_name: shiplog-controller",
      "    metrics_path: /metrics",
      "    static_configs:",
      `      - targets: [${targets.map((t) => JSON.stringify(t)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let printed = "";
  const child: ChildProcess = spawn(
    "prometheus",
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout!.on("data", (d: Buffer) => (printed += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (printed += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready, or gone: a process that exited stops the wait at once.
  const ready = await vi
    .waitFor(
      async () => {
        if (child.exitCode !== null) return false;
        if (
          !(await fetch(`${url}/-/ready`).then(
            (r) => r.ok,
            () => false,
          ))
        )
          throw new Error("not ready");
        return true;
      },
      { ...WAIT, interval: 100 },
    )
    .catch(() => false);
  if (!ready) {
    await stop();
    throw new Error(`prometheus did not become ready:\n${printed}`);
  }
  return {
    url,
    output: () => printed,
    stop,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: [] } };
      if (body.status !== "success") throw new Error(`query ${expr} failed: ${body.error}`);
      return body.data!.result;
    },
  };
}
