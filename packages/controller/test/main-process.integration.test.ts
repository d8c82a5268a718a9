// The process entry: configuration errors, health endpoints, SIGTERM.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { describe, expect, it, vi } from "vitest";
import { REPO } from "./scenario-harness.js";
import { CONTROLLER_MAIN as MAIN, startControllerCommand } from "../../../test/kit/controller-process.js";
import { runProcess, type Run } from "../../../test/kit/process.js";
import { WAIT } from "../../../test/kit/wait.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return runProcess(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
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

  it("prints its version with --version (-V), through the declared bin too", async () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string; bin: Record<string, string> };
    for (const flag of ["--version", "-V"]) {
      const result = await run([flag], {});
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${pkg.version}\n`);
    }
    const bin = join(PACKAGE, pkg.bin["shiplog-controller"]!);
    const viaBin = await runProcess(process.execPath, [bin, "--version"], { env: { PATH: process.env.PATH ?? "" } });
    expect(viaBin).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    // A usage error through the bin: exit 2, as every shiplog program.
    const bad = await runProcess(process.execPath, [bin, "--nope"], { env: { PATH: process.env.PATH ?? "" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^shiplog-controller: invalid configuration: arguments: /);
  });

  it("a first install as the quick start does it (a token, no annotations): the registry's image lands, the other is named with its fix", async () => {
    const cluster = await startFakeCluster({});
    const emulator = await startEmulator({ port: 0 });
    try {
      await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0" });
      await cluster.script.createDeployment({ namespace: "shop", name: "cache", image: "redis:7" });
      const dir = tempDir("shiplog-first-install-");
      writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
      writeFileSync(join(dir, "token"), `${emulator.tokens.admin}\n`);
      const child = startControllerCommand([process.execPath, MAIN, "--http-host", "127.0.0.1", "--http-port", "0"], {
        SHIPLOG_API_URL: emulator.url,
        SHIPLOG_TOKEN_FILE: join(dir, "token"),
        SHIPLOG_ORG: "acme",
        SHIPLOG_CLUSTER: "first-install",
        SHIPLOG_LOGICAL_ENVIRONMENT: "production",
        KUBECONFIG: join(dir, "kubeconfig"),
      });
      const url = await child.url();
      const records = () => emulator.state.artifacts.deploymentRecords({ cluster: "first-install" });
      await vi.waitFor(() => expect(records().map((r) => [r.deployment_name, r.repository])).toEqual([["shop-web-web", "web"]]), WAIT);
      const sampleOf = (text: string, series: string) => text.split("\n").find((l) => l.startsWith(`${series} `));
      await vi.waitFor(
        async () =>
          expect(sampleOf(await (await fetch(`${url}/metrics`)).text(), "shiplog_controller_unlinked_records")).toBe(
            "shiplog_controller_unlinked_records 1",
          ),
        WAIT,
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(sampleOf(metrics, 'shiplog_controller_refused_records{reason="not_found"}')).toBeDefined();
      expect(metrics).not.toMatch(/^shiplog_controller_token_remaining_seconds /m);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(await child.stop()).toBe(0);
      const notice = child
        .stdout()
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { msg: string; workload?: string; image?: string; fix?: string })
        .filter((l) => l.msg === "no repository for a record");
      expect(notice).toHaveLength(1);
      expect(notice[0]).toMatchObject({ workload: "Deployment shop/cache", image: "docker.io/library/redis" });
      expect(notice[0]!.fix).toContain("chart config.imageRepositories: docker.io/library/redis=<repository>");
    } finally {
      await emulator.stop();
      await cluster.stop();
    }
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
      const dir = tempDir("shiplog-main-");
      writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
      writeFileSync(join(dir, "token"), `${emulator.tokens.admin}\n`);
      const child = startControllerCommand(
        [process.execPath, MAIN, "--http-host", "127.0.0.1", "--http-port", "0", "--flush-max-wait", "200ms"],
        {
          SHIPLOG_API_URL: emulator.url,
          SHIPLOG_TOKEN_FILE: join(dir, "token"),
          SHIPLOG_ORG: "acme",
          SHIPLOG_CLUSTER: "main-test",
          SHIPLOG_LOGICAL_ENVIRONMENT: "production",
          KUBECONFIG: join(dir, "kubeconfig"),
        },
      );
      const url = await child.url();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await vi.waitFor(async () => expect((await fetch(`${url}/readyz`)).status).toBe(200), WAIT);
      await vi.waitFor(
        () => expect(emulator.state.artifacts.deploymentRecords({ cluster: "main-test" }).map((r) => r.status)).toEqual(["deployed"]),
        WAIT,
      );
      // The emulator stores the record before it answers; the counter moves once the controller has the answer.
      await vi.waitFor(
        async () =>
          expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/shiplog_controller_records_accepted_total\{status="deployed"\} 1/),
        WAIT,
      );
      expect((await fetch(`${url}/nope`)).status).toBe(404);
      expect(await child.stop()).toBe(0);
      const lines = child.stdout().trimEnd().split("\n");
      expect(lines.join("\n")).not.toContain(emulator.tokens.admin!);
      expect(lines.some((l) => l.includes('"token":"[redacted]"'))).toBe(true);
      // No state ConfigMap configured: said at start, as a warning (pino level 40).
      const warning = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string; setting?: string })
        .find((l) => l.msg.startsWith("no state ConfigMap"));
      expect(warning).toMatchObject({ level: 40, setting: "--state-configmap / SHIPLOG_STATE_CONFIGMAP" });
      expect(warning!.msg).toContain("deleted while the controller was down are never decommissioned");
    } finally {
      await emulator.stop();
      await cluster.stop();
    }
  });
});
