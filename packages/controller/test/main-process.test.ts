// The process entry: configuration errors, health endpoints, SIGTERM.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { describe, expect, it } from "vitest";
import { REPO, eventually } from "./scenario-harness.js";

const MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("node packages/controller/dist/main.js", () => {
  it("exits 2 with every configuration problem named, without echoing the token", async () => {
    const result = await run(["--batch-size", "5000"], { SHIPLOG_TOKEN: "ghp_do_not_print_me", SHIPLOG_CLUSTER: "c" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--batch-size / SHIPLOG_BATCH_SIZE: must be an integer from 1 to 1000");
    expect(result.stderr).toContain("--org / SHIPLOG_ORG");
    expect(result.stderr).toContain("--logical-environment / SHIPLOG_LOGICAL_ENVIRONMENT");
    expect(result.stderr + result.stdout).not.toContain("ghp_do_not_print_me");
  });

  it("prints usage with --help", async () => {
    const result = await run(["--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--deployment-name-template");
    expect(result.stdout).toContain("SHIPLOG_TOKEN_FILE");
  });

  it("serves /healthz, /readyz and /metrics, records what runs, logs JSON without the token, stops on SIGTERM", async () => {
    const cluster = await startFakeCluster({});
    const emulator = await startEmulator({ port: 0 });
    try {
      await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      const dir = mkdtempSync(join(tmpdir(), "shiplog-main-"));
      writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
      writeFileSync(join(dir, "token"), `${emulator.tokens.admin}\n`);
      const child = spawn(process.execPath, [MAIN, "--http-host", "127.0.0.1", "--http-port", "0", "--flush-max-wait", "200ms"], {
        env: {
          PATH: process.env.PATH ?? "",
          SHIPLOG_API_URL: emulator.url,
          SHIPLOG_TOKEN_FILE: join(dir, "token"),
          SHIPLOG_ORG: "acme",
          SHIPLOG_CLUSTER: "main-test",
          SHIPLOG_LOGICAL_ENVIRONMENT: "production",
          KUBECONFIG: join(dir, "kubeconfig"),
        },
      });
      const lines: string[] = [];
      let url: string | undefined;
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const entry = JSON.parse(line) as { msg: string; url?: string };
        if (entry.msg === "health and metrics server listening") url = entry.url;
      });
      await eventually(() => expect(url).toBeDefined());
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await eventually(async () => expect((await fetch(`${url}/readyz`)).status).toBe(200));
      await eventually(() => expect(emulator.state.artifacts.deploymentRecords({ cluster: "main-test" }).map((r) => r.status)).toEqual(["deployed"]));
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/shiplog_controller_records_accepted_total\{status="deployed"\} 1/);
      expect((await fetch(`${url}/nope`)).status).toBe(404);
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(lines.join("\n")).not.toContain(emulator.tokens.admin!);
      expect(lines.some((l) => l.includes('"token":"[redacted]"'))).toBe(true);
      // No state ConfigMap configured: said at start, as a warning (pino level 40).
      const warning = lines.map((l) => JSON.parse(l) as { level: number; msg: string; setting?: string }).find((l) => l.msg.startsWith("no state ConfigMap"));
      expect(warning).toMatchObject({ level: 40, setting: "--state-configmap / SHIPLOG_STATE_CONFIGMAP" });
      expect(warning!.msg).toContain("deleted while the controller was down are never decommissioned");
    } finally {
      await emulator.stop();
      await cluster.stop();
    }
  });
});
