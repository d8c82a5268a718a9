// `shiplog records` as a user runs it: a subprocess against the emulator, each command with its table and its --json,
// set-cluster's chunks, progress bar, partial writes and Ctrl-C, and its bad input refused before anything is sent.
import { execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { startEmulator } from "@shiplog/emulator";
import { WAIT } from "../../../test/kit/wait.js";
import { dir, digest, emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";
import { CLI } from "./cli-process.js";

useCliEmulator();

describe("records", () => {
  it("deployments: a table by default, the service's answer with --json", async () => {
    const table = await shiplog(["records", "deployments", "--org", "acme", digest]);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+ENVIRONMENT\s+PHYSICAL\s+CLUSTER\s+DEPLOYMENT\s+TAGS\s+UPDATED$/);
    expect(table.stdout).toMatch(/production\s+prod-eu-1\s+shop\/web\s+\d{4}-/);
    expect(table.stderr).toBe(`1 deployment record of ${digest}\n`);
    const json = await shiplog(["records", "deployments", "--org", "acme", digest, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      total_count: 1,
      deployment_records: [{ cluster: "prod-eu-1", deployment_name: "shop/web" }],
    });
  });

  it("storage: a table by default, --json, and exit 3 for an organization that does not exist", async () => {
    const table = await shiplog(["records", "storage", "--org", "acme", digest]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ghcr\.io\/acme\/web\s+https:\/\/ghcr\.io\s+acme\/web\s+active/);
    const json = await shiplog(["--json", "records", "storage", digest, "--org", "acme"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ storage_records: [{ name: "ghcr.io/acme/web", registry_url: "https://ghcr.io" }] });
    const missing = await shiplog(["records", "storage", "--org", "nobody-here", digest]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/answered 404: Not Found: organization nobody-here does not exist, or the credentials cannot see it\n$/);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("nothing recorded: no lone heading on stdout, the count on stderr", async () => {
    const other = `sha256:${"0".repeat(64)}`;
    for (const kind of ["storage", "deployments"]) {
      const run = await shiplog(["records", kind, "--org", "acme", other]);
      expect(run).toEqual({ code: 0, stdout: "", stderr: `0 ${kind === "storage" ? "storage" : "deployment"} records of ${other}\n` });
    }
  });

  it("set-cluster from a file: 2500 entries in three calls, a summary table, and --json", async () => {
    const deployments = Array.from({ length: 2500 }, (_, i) => ({
      name: "ghcr.io/acme/web",
      digest,
      deployment_name: `batch/web-${i}`,
      github_repository: "web",
    }));
    const file = join(dir, "cluster.json");
    writeFileSync(file, JSON.stringify({ logical_environment: "staging", deployments }));
    emulator.requests.clear();
    const table = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "stage-1", "--file", file]);
    expect(table.stderr).toBe("");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^CLUSTER\s+ENTRIES\s+RECORDS\s+ERRORS\nstage-1\s+2500\s+2500\s+0\n$/);
    expect(emulator.requests.list().filter((r) => r.method === "POST")).toHaveLength(3);
    const json = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "stage-1", "--file", file, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ total_count: 2500 });
  });

  it("set-cluster draws a progress bar on a terminal (stderr a TTY, through script(1)), none when piped", async () => {
    const file = join(dir, "tty.json");
    writeFileSync(
      file,
      JSON.stringify({
        logical_environment: "staging",
        deployments: Array.from({ length: 1500 }, (_, i) => ({ name: "web", digest, deployment_name: `tty/web-${i}` })),
      }),
    );
    const env = { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: emulator.tokens.admin! };
    const command = `"${process.execPath}" "${CLI}" records set-cluster --org acme --cluster tty-1 --file "${file}"`;
    const screen = await new Promise<string>((resolve) =>
      execFile("script", ["-qec", command, "/dev/null"], { env, encoding: "utf8" }, (_e, stdout) => resolve(stdout)),
    );
    expect(screen).toMatch(/={40} 1500\/1500 entries \| 100%/);
    const piped = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "tty-1", "--file", file]);
    expect(piped.stderr).toBe("");
  });

  it("set-cluster refused after a chunk was written: says what was written and what was not (exit 3)", async () => {
    const deployments = Array.from({ length: 2500 }, (_, i) => ({
      name: "web",
      digest,
      deployment_name: `partial/web-${i}`,
      github_repository: "web",
    }));
    deployments[1500]!.github_repository = "no-such-repository";
    const file = join(dir, "partial.json");
    writeFileSync(file, JSON.stringify({ logical_environment: "staging", deployments }));
    const run = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "partial-1", "--file", file]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^shiplog records set-cluster: .*chunk 2 of 3 \(entries 1000 to 1999\) was refused; 1000 entries were written before it, 1500 were not\..* running the command again after fixing the cause rewrites them harmlessly\n$/,
    );
    expect(emulator.state.artifacts.deploymentRecords().filter((r) => r.cluster === "partial-1")).toHaveLength(1000);
  });

  it("set-cluster stopped with Ctrl-C between chunks: exit 130, saying what was written", async () => {
    const deployments = Array.from({ length: 3000 }, (_, i) => ({
      name: "web",
      digest,
      deployment_name: `ctrl-c/web-${i}`,
      github_repository: "web",
    }));
    const file = join(dir, "ctrl-c.json");
    writeFileSync(file, JSON.stringify({ logical_environment: "staging", deployments }));
    const route = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
    // An emulator of its own: the held request is answered (and logged) a minute later, after the test.
    const own = await startEmulator();
    try {
      // The first chunk is answered at once, the second held a minute: the interrupt comes while it is in flight.
      own.faults.add({ kind: "latency", latencyMs: 0, method: "POST", route, times: 1 });
      const held = own.faults.add({ kind: "latency", latencyMs: 60_000, method: "POST", route, times: 1 });
      const child = spawn(process.execPath, [CLI, "records", "set-cluster", "--org", "acme", "--cluster", "ctrl-c-1", "--file", file], {
        env: { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: own.url, SHIPLOG_TOKEN: own.tokens.admin! },
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = new Promise<number | null>((resolve) => child.on("close", resolve));
      await vi.waitUntil(() => own.faults.list().find((f) => f.id === held)!.hits === 1, WAIT);
      child.kill("SIGINT");
      expect(await code).toBe(130);
      expect(stderr).toMatch(
        /^shiplog records set-cluster: interrupted: .*1000 entries were written before it, 2000 were not \(the failed chunk's may have been\)\..*running the command again is safe/,
      );
      expect(stderr.split("\n")).toHaveLength(2);
      expect(own.state.artifacts.deploymentRecords()).toHaveLength(1000);
    } finally {
      await own.stop();
    }
  });

  it("set-cluster refuses a bad entry before sending anything, naming the file and the field", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({ logical_environment: "staging", deployments: [{ name: "web", digest: "sha256:nope", deployment_name: "a" }] }),
    );
    emulator.requests.clear();
    const run = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "c", "--file", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^shiplog records set-cluster: --file .*bad\.json: deployments\[0\]\.digest: .*\n$/);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("set-cluster names the option that gave a bad cluster or organization, not the file", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify({ logical_environment: "staging", deployments: [{ name: "web", digest, deployment_name: "a" }] }));
    emulator.requests.clear();
    const cluster = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "prod eu", "--file", file]);
    expect([cluster.code, cluster.stderr]).toEqual([
      2,
      "shiplog records set-cluster: --cluster: must be letters, digits, '.', '-' or '_' (see shiplog records set-cluster --help)\n",
    ]);
    const org = await shiplog(["records", "set-cluster", "--org", "ac me", "--cluster", "c", "--file", file]);
    expect(org.code).toBe(2);
    expect(org.stderr).toMatch(/^shiplog records set-cluster: --org: [^\n]*\n$/);
    expect(emulator.requests.list()).toEqual([]);
  });
});
