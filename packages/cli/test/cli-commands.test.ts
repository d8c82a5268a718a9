// `shiplog` as a user runs it: a subprocess against the emulator, every command with its table and its --json,
// the tails stopped with SIGINT after each new item was printed exactly once, and every usage error one line, exit 2.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { WAIT } from "../../../test/kit/wait.js";
import { CLI, runCli, type Run } from "./cli-process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

let emulator: Emulator;
let dir: string;
let commits: string[];
const digest = `sha256:${createHash("sha256").update("web image").digest("hex")}`;

beforeAll(async () => {
  emulator = await startEmulator();
  dir = tempDir("shiplog-cli-");
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
  const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
  await client.artifacts.createStorageRecord({
    org: "acme",
    name: "ghcr.io/acme/web",
    digest,
    registry_url: "https://ghcr.io",
    repository: "acme/web",
    github_repository: "web",
  });
  await client.artifacts.setClusterDeploymentRecords({
    org: "acme",
    cluster: "prod-eu-1",
    logical_environment: "production",
    deployments: [{ name: "ghcr.io/acme/web", digest, deployment_name: "shop/web", github_repository: "web" }],
  });
});
afterAll(async () => {
  await emulator.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI with a token (the admin's unless given; null: none). */
function shiplog(args: string[], given?: string | null): Promise<Run> {
  const token = given === null ? undefined : (given ?? emulator.tokens.admin);
  return runCli(args, { SHIPLOG_API_URL: emulator.url, ...(token && { SHIPLOG_TOKEN: token }) });
}

/** Starts a tail, waits until `ready` lines are printed, calls `more`, waits for `total` lines, then sends SIGINT. */
async function tail(
  args: string[],
  token: string,
  expected: { ready: number; total: number; more: () => void; route?: string },
): Promise<Run & { lines: string[] }> {
  const env = { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: token };
  const child = spawn(process.execPath, [CLI, ...args], { env });
  let stdout = "";
  let stderr = "";
  let triggered = false;
  const done = new Promise<number>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 0))));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve) => {
    const check = () => {
      const count = stdout.split("\n").filter(Boolean).length;
      if (!triggered && count >= expected.ready) {
        triggered = true;
        expected.more();
      }
      if (triggered && count >= expected.total) resolve();
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    // A tail without backlog prints nothing: once its first poll is answered, what happens next is new.
    if (expected.ready === 0) {
      const seen = emulator.requests.count({ method: "GET", route: expected.route });
      const waitForPoll = setInterval(() => {
        if (emulator.requests.count({ method: "GET", route: expected.route }) > seen) {
          clearInterval(waitForPoll);
          check();
        }
      }, 50);
    }
  });
  child.kill("SIGINT");
  const code = await done;
  return { code, stdout, stderr, lines: stdout.split("\n").filter(Boolean) };
}

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

describe("tag create", () => {
  it("creates v1.4.0 and moves v1 and v1.4 (table), a re-run is skipped (--json)", async () => {
    const run = await shiplog([
      "tag",
      "create",
      "acme/web",
      "v1.4.0",
      "--object",
      commits.at(-1)!,
      "--derived-tags",
      "major-minor",
      "--message",
      "Release 1.4.0",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^TAG\s+OUTCOME\s+TAG OBJECT\s+OBJECT\s+DERIVED\n/);
    expect(run.stdout).toMatch(/refs\/tags\/v1\.4\.0\s+created/);
    expect(run.stdout).toMatch(/refs\/tags\/v1\s+created\s+\w{12}\s+commit \w{12}\s+from v1\.4\.0/);
    const again = await shiplog([
      "tag",
      "create",
      "acme/web",
      "v1.4.0",
      "--object",
      commits.at(-1)!,
      "--derived-tags",
      "major-minor",
      "--message",
      "Release 1.4.0",
      "--json",
    ]);
    expect((JSON.parse(again.stdout) as { outcome: string }[]).map((t) => t.outcome)).toEqual(["skipped", "skipped", "skipped"]);
  });

  it("a tag that exists elsewhere is refused (exit 1, one line); --if-exists update moves it", async () => {
    const refused = await shiplog(["tag", "create", "acme/web", "v1.4.0", "--object", commits[0]!, "--message", "Release 1.4.0"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^shiplog tag create: refs\/tags\/v1\.4\.0 in acme\/web already exists .*\n$/);
    const moved = await shiplog([
      "tag",
      "create",
      "acme/web",
      "v1.4.0",
      "--object",
      commits[0]!,
      "--message",
      "Release 1.4.0",
      "--if-exists",
      "update",
      "--json",
    ]);
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual([expect.objectContaining({ tag: "v1.4.0", outcome: "updated" })]);
  });

  it("a token without contents write: exit 1 naming the permission", async () => {
    const run = await shiplog(["tag", "create", "acme/web", "v9", "--object", commits[0]!], emulator.tokens.readOnly);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/contents/i);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("tails: each new item once, a clean stop on SIGINT", () => {
  it("events tail repo:acme/web prints each pushed event once (table lines, then --json)", async () => {
    emulator.state.events.setPollInterval(1);
    const run = await tail(["events", "tail", "repo:acme/web"], emulator.tokens.admin!, {
      ready: 0,
      route: "/repos/:owner/:repo/events",
      total: 2,
      more: () => {
        emulator.activity.push({ actor: "octo", repo: "acme/web", commits: 2 });
        emulator.activity.star({ actor: "hubot", repo: "acme/web" });
      },
    });
    expect(run.code).toBe(0);
    expect(run.lines).toHaveLength(2);
    expect(run.lines[0]).toMatch(/PushEvent\s+octo\s+acme\/web\s+refs\/heads\/main/);
    expect(run.lines[1]).toMatch(/WatchEvent\s+hubot\s+acme\/web\s+started/);

    const json = await tail(["events", "tail", "repo:acme/web", "--backlog", "--json"], emulator.tokens.admin!, {
      ready: 2,
      total: 3,
      more: () => void emulator.activity.push({ actor: "hubot", repo: "acme/web" }),
    });
    expect(json.code).toBe(0);
    const ids = json.lines.map((line) => (JSON.parse(line) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(3);
  });

  it("a tail whose reader went away (| head) stops cleanly at its next line: exit 0, no stack trace", async () => {
    emulator.state.events.setPollInterval(1);
    emulator.activity.star({ actor: "hubot", repo: "acme/web" });
    const env = { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: emulator.tokens.admin! };
    const child = spawn(process.execPath, [CLI, "events", "tail", "repo:acme/web", "--backlog", "--json"], { env });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // The backlog is printed: the reader now closes its end, as `head -1` does, and a new event comes.
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.stdout.destroy();
    emulator.activity.push({ actor: "octo", repo: "acme/web" });
    expect(await done).toBe(0);
    expect(stderr).toBe("");
  });

  it("notifications tail prints each new thread once; list and read show and change the inbox", async () => {
    emulator.state.notifications.setPollInterval(1);
    const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Checkout is slow" });
    const run = await tail(["notifications", "tail"], emulator.tokens.classic!, {
      ready: 0,
      route: "/notifications",
      total: 1,
      // A later second than the opening: timestamps have one-second resolution, so an update within the same second
      // as the last one leaves updated_at unchanged, on the service as here, and no poller can tell it apart.
      more: () => {
        emulator.clock.advance(2000);
        emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" });
      },
    });
    expect(run.code).toBe(0);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatch(/unread\s+mention\s+acme\/web\s+Issue: Checkout is slow/);

    const list = await shiplog(["notifications", "list"], emulator.tokens.classic);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+UNREAD\s+REASON\s+REPOSITORY\s+TYPE\s+TITLE\s+UPDATED\n/);
    const [thread] = JSON.parse((await shiplog(["notifications", "list", "--json"], emulator.tokens.classic)).stdout) as {
      id: string;
      unread: boolean;
    }[];
    expect(thread!.unread).toBe(true);
    const read = await shiplog(["notifications", "read", thread!.id], emulator.tokens.classic);
    expect(read).toMatchObject({ code: 0, stdout: `thread ${thread!.id} marked read\n` });
    expect(JSON.parse((await shiplog(["notifications", "list", "--json"], emulator.tokens.classic)).stdout)).toEqual([]);
    const all = await shiplog(["notifications", "read", "--all", "--json"], emulator.tokens.classic);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toHaveProperty("status");
  });

  it("a fine-grained token is refused by the notification endpoints: exit 1, one line", async () => {
    const run = await shiplog(["notifications", "list"], emulator.tokens.admin);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("import status|follow (the retired API, with its warning)", () => {
  it("status as a table and --json; follow prints each change once until complete", async () => {
    emulator.clock.set("2024-03-01T12:00:00Z", { freeze: true });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classic, retry: false });
    await client.imports.startImport({ owner: "acme", repo: "api", vcs_url: "https://svn.example.com/svn/myproject" });
    const status = await shiplog(["import", "status", "acme/api"], emulator.tokens.classic);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^STATUS\s+PHASE\s+IMPORT\s+PUSH\s+COMMITS\s+FROM\s+NEXT STEP\n/);
    expect(status.stderr).toMatch(/^warning: .*retired/);
    expect(JSON.parse((await shiplog(["import", "status", "acme/api", "--json"], emulator.tokens.classic)).stdout)).toMatchObject({
      phase: "working",
    });

    emulator.imports.startTimer(150);
    try {
      const follow = await shiplog(["import", "follow", "acme/api", "--interval", "1"], emulator.tokens.classic);
      expect(follow.code).toBe(0);
      const lines = follow.stdout.split("\n").filter(Boolean);
      expect(lines.at(-1)).toMatch(/^complete\s+complete/);
      expect(new Set(lines).size).toBe(lines.length);
    } finally {
      emulator.imports.stopTimer();
      emulator.clock.reset();
    }
  });
});

describe("permissions, help, completion, usage", () => {
  it("permissions as today, and --json", async () => {
    const table = await shiplog(["permissions", "PATCH", "/repos/acme/web/git/refs/tags/v1"], null);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/needs\s+Contents \(repository\) write/);
    const json = await shiplog(["permissions", "DELETE", "/repos/acme/web/git/refs/tags/v1", "--json"], null);
    expect(JSON.parse(json.stdout)).toMatchObject({ covered: true, template: "/repos/{owner}/{repo}/git/refs/{ref}" });
    expect((await shiplog(["permissions", "GET", "/nowhere/at/all"], null)).code).toBe(3);
  });

  const commands = [
    ["records"],
    ["records", "deployments"],
    ["records", "storage"],
    ["records", "set-cluster"],
    ["tag"],
    ["tag", "create"],
    ["events"],
    ["events", "tail"],
    ["notifications"],
    ["notifications", "list"],
    ["notifications", "read"],
    ["notifications", "tail"],
    ["import"],
    ["import", "status"],
    ["import", "follow"],
    ["permissions"],
    ["completion"],
  ];
  it.each(commands)("%s %s --help shows an example and the exit codes", async (...command) => {
    const run = await shiplog([...command.filter(Boolean), "--help"], null);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nExamples?:\n {2}(source <\()?shiplog /);
    expect(run.stdout).toContain("2    bad usage: nothing was sent");
    expect(run.stdout).toContain("130  interrupted (Ctrl-C) before the command was done");
    // Each command's help lists the options that apply to every command: --json and the credentials.
    expect(run.stdout).toMatch(/Global Options:\n[\s\S]*--app-private-key-file <path>[\s\S]*--json/);
  });

  const usage: [string, string[], RegExp][] = [
    ["no command", [], /^shiplog: a command is needed: records, tag, events, notifications, import, permissions, completion \(/],
    ["options but no command", ["--json"], /^shiplog: a command is needed: records, tag, /],
    [
      "a group without its command",
      ["records"],
      /^shiplog records: a command is needed: deployments, storage, set-cluster \(see shiplog records --help\)\n/,
    ],
    [
      "a tag of a tag object",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--type", "tag"],
      /^shiplog tag create: option '--type <type>' argument 'tag' is invalid\. Allowed choices are commit, tree, blob\./,
    ],
    [
      "plain http to a host that is not loopback",
      ["--api-url", "http://api.example.com", "records", "storage", "--org", "acme", digest],
      /^shiplog records storage: --api-url: must use https:\/\/ \(over http:\/\/ the token would travel in clear text\).* not api\.example\.com/,
    ],
    ["unknown command", ["deploy"], /^shiplog: unknown command 'deploy'/],
    ["unknown option", ["records", "storage", "--orgg", "acme", digest], /^shiplog records storage: unknown option '--orgg'/],
    ["missing digest", ["records", "deployments", "--org", "acme"], /^shiplog records deployments: missing required argument 'digest'/],
    [
      "bad digest",
      ["records", "storage", "--org", "acme", "sha256:xyz"],
      /^shiplog records storage: .*expected sha256:<64 lowercase hex digits>/,
    ],
    ["no org", ["records", "storage", digest], /^shiplog records storage: --org is required/],
    [
      "missing file",
      ["records", "set-cluster", "--org", "acme", "--cluster", "c", "--file", "/nope.json"],
      /^shiplog records set-cluster: --file "\/nope\.json": cannot read it \(ENOENT\)/,
    ],
    ["bad repository", ["tag", "create", "acme", "v1", "--object", "a".repeat(40)], /^shiplog tag create: .*expected owner\/repo/],
    [
      "bad object",
      ["tag", "create", "acme/web", "v1", "--object", "abc"],
      /^shiplog tag create: --object: must be 40 \(SHA-1\) or 64 \(SHA-256\) lowercase hex digits/,
    ],
    [
      "bad tag name",
      ["tag", "create", "acme/web", "bad..name", "--object", "a".repeat(40)],
      /^shiplog tag create: tag "bad\.\.name": tag name must not contain \.\./,
    ],
    [
      "bad if-exists",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--if-exists", "move"],
      /^shiplog tag create: option '--if-exists <what>' argument 'move' is invalid/,
    ],
    [
      "floating tags without a version",
      ["tag", "create", "acme/web", "v2.0.0-rc.1", "--object", "a".repeat(40), "--derived-tags", "major"],
      /^shiplog tag create: --derived-tags major: no tag is a release version such as v1\.4\.0/,
    ],
    [
      "half a tagger",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--tagger-name", "Bot"],
      /^shiplog tag create: --tagger-email is required with --tagger-name/,
    ],
    ["bad feed", ["events", "tail", "repos:acme/web"], /^shiplog events tail: .*expected one of public, repo:OWNER\/REPO/],
    ["read without id", ["notifications", "read"], /^shiplog notifications read: give a thread id or --all/],
    ["bad thread id", ["notifications", "read", "x1"], /^shiplog notifications read: .*expected a positive whole number/],
    ["bad import repo", ["import", "status", "acme"], /^shiplog import status: .*expected owner\/repo/],
    ["bad shell", ["completion", "fish"], /^shiplog completion: .*'fish' is invalid/],
    ["bad api url", ["--api-url", "ftp://x", "records", "storage", "--org", "acme", digest], /^shiplog records storage: --api-url: /],
    [
      "token file missing",
      ["--token-file", "/nope", "records", "storage", "--org", "acme", digest],
      /^shiplog records storage: --token-file "\/nope": cannot read it/,
    ],
  ];
  it.each(usage)("usage error (%s): one line, exit 2, nothing sent", async (_, args, message) => {
    emulator.requests.clear();
    const run = await shiplog(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr.endsWith("\n")).toBe(true);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("no token where one is needed: exit 4, one line", async () => {
    const run = await shiplog(["records", "storage", "--org", "acme", digest], null);
    expect(run.code).toBe(4);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
