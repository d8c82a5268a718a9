// The commands that bring `shiplog` to the library's and gh's level, as a user runs them: a subprocess against the
// emulator. Records created from options and from a file, filters and --limit, --json fields, -o yaml and --query,
// tag list|show|delete, events list, notifications done|subscribe|unsubscribe, auth status, --version, and import
// status on a repository with no import.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { runProcess } from "../../../test/kit/process.js";
import { ROOT } from "../../../test/kit/readme.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { commits, dir, emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";
import { runCli } from "./cli-process.js";

useCliEmulator();

const other = `sha256:${"e".repeat(64)}`;
const lines = (text: string) => text.split("\n").filter(Boolean);

describe("records create-storage|create-deployment", () => {
  it("create-storage from options: the record written, a table, the count on stderr", async () => {
    const run = await shiplog([
      "records",
      "create-storage",
      "--org",
      "acme",
      "--name",
      "ghcr.io/acme/api",
      "--digest",
      other,
      "--registry-url",
      "https://ghcr.io",
      "--repository",
      "acme/api",
      "--artifact-version",
      "2.0.0",
      "--github-repository",
      "web",
    ]);
    expect(run.stderr).toBe("1 storage record written\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^ID\s+NAME\s+REGISTRY\s+REGISTRY REPOSITORY\s+STATUS\s+UPDATED\n\d+\s+ghcr\.io\/acme\/api\s+https:\/\/ghcr\.io\s+acme\/api\s+active/,
    );
    const listed = await new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin }).artifacts.listStorageRecords({
      org: "acme",
      subject_digest: other,
    });
    expect(listed.storage_records).toMatchObject([{ name: "ghcr.io/acme/api", repository: "acme/api" }]);
  });

  it("create-deployment from options (deployed by default, tags), then several from a file (--json)", async () => {
    const one = await shiplog([
      "records",
      "create-deployment",
      "--org",
      "acme",
      "--name",
      "ghcr.io/acme/api",
      "--digest",
      other,
      "--environment",
      "production",
      "--cluster",
      "prod-us-1",
      "--deployment-name",
      "shop/api",
      "--tag",
      "team=shop",
      "--tag",
      "tier=1",
      "--github-repository",
      "web",
    ]);
    expect(one.stderr).toBe("1 deployment record written\n");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/shop\/api\s+production\s+prod-us-1/);
    const file = join(dir, "deployments.json");
    const record = (name: string) => ({
      name: "ghcr.io/acme/api",
      digest: other,
      status: "deployed",
      logical_environment: "staging",
      cluster: "stage-us-1",
      deployment_name: name,
      github_repository: "web",
    });
    writeFileSync(file, JSON.stringify([record("shop/api-a"), record("shop/api-b")]));
    const many = await shiplog(["records", "create-deployment", "--org", "acme", "--file", file, "--json", "deployment_name,cluster"]);
    expect(many.code).toBe(0);
    expect(JSON.parse(many.stdout)).toEqual([
      { deployment_name: "shop/api-a", cluster: "stage-us-1" },
      { deployment_name: "shop/api-b", cluster: "stage-us-1" },
    ]);
  });

  it("bad input: one line naming the option, or the file's entry and field; nothing sent", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify([
        { name: "x", digest: other, registry_url: "https://r" },
        { name: "y", digest: "nope", registry_url: "https://r" },
      ]),
    );
    const cases: [string[], RegExp][] = [
      [
        ["records", "create-storage", "--org", "acme", "--name", "x", "--digest", other, "--registry-url", "http://r"],
        /^shiplog records create-storage: --registry-url: must start with https:\/\//,
      ],
      [
        ["records", "create-storage", "--org", "acme", "--file", file],
        /^shiplog records create-storage: --file .*bad\.json entry 1: digest: /,
      ],
      [
        ["records", "create-storage", "--org", "acme", "--file", file, "--name", "x"],
        /^shiplog records create-storage: --file and --name: give the record in the file or as options, not both/,
      ],
      [
        ["records", "create-deployment", "--org", "acme", "--tag", "team"],
        /^shiplog records create-deployment: option '--tag <key=value>' argument 'team' is invalid\. expected key=value/,
      ],
      [
        ["records", "create-deployment", "--org", "acme", "--name", "x", "--digest", other, "--deployment-name", "d"],
        /^shiplog records create-deployment: --environment: /,
      ],
    ];
    for (const [args, message] of cases) {
      emulator.requests.clear();
      const run = await shiplog(args);
      expect(run.stderr).toMatch(message);
      expect(lines(run.stderr)).toHaveLength(1);
      expect(run.code).toBe(2);
      expect(emulator.requests.list()).toEqual([]);
    }
  });
});

describe("lists: filters, --limit, --json fields, -o yaml, --query", () => {
  it("records deployments --cluster and --limit: the filtered records, and how many --limit left out", async () => {
    const cluster = await shiplog(["records", "deployments", "--org", "acme", other, "--cluster", "stage-us-1"]);
    expect(cluster.code).toBe(0);
    expect(lines(cluster.stdout)).toHaveLength(3);
    expect(cluster.stdout).toMatch(/stage-us-1\s+shop\/api-a\s/);
    expect(cluster.stdout).toMatch(/stage-us-1\s+shop\/api-b\s/);
    const limited = await shiplog(["records", "deployments", "--org", "acme", other, "--limit", "1"]);
    expect(lines(limited.stdout)).toHaveLength(2);
    expect(limited.stderr).toBe(`1 of 3 deployment records of ${other} (--limit 3 to see all)\n`);
    const json = JSON.parse((await shiplog(["records", "deployments", "--org", "acme", other, "-L", "2", "--json"])).stdout);
    expect(json.deployment_records).toHaveLength(2);
    const env = await shiplog([
      "records",
      "deployments",
      "--org",
      "acme",
      other,
      "--environment",
      "production",
      "--json",
      "deployment_name,tags",
    ]);
    expect(JSON.parse(env.stdout)).toEqual([{ deployment_name: "shop/api", tags: { team: "shop", tier: "1" } }]);
  });

  it("records storage: --registry-url filter, -o yaml, --query, and an unknown --json field named with the known ones", async () => {
    const yaml = await shiplog(["records", "storage", "--org", "acme", other, "-o", "yaml"]);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toMatchObject({ storage_records: [{ name: "ghcr.io/acme/api" }] });
    const query = await shiplog(["records", "storage", "--org", "acme", other, "--query", "storage_records.(name & ' ' & repository)"]);
    expect(query.stdout).toBe("ghcr.io/acme/api acme/api\n");
    const none = await shiplog(["records", "storage", "--org", "acme", other, "--registry-url", "https://quay.io"]);
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: `0 storage records of ${other}\n` });
    const unknown = await shiplog(["records", "storage", "--org", "acme", other, "--json", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^shiplog records storage: --json: unknown field nope; available: created_at, digest, id, name, registry_url, repository/,
    );
    const bad = await shiplog(["records", "storage", "--org", "acme", other, "--query", "storage_records[name="]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^shiplog records storage: --query: .+\n$/);
    const both = await shiplog(["records", "storage", "--org", "acme", other, "--json", "-o", "yaml"]);
    expect(both.stderr).toMatch(/--json and --output yaml ask for two formats: give one/);
    // --json before the command takes no field list from the command's name.
    expect(JSON.parse((await shiplog(["--json", "records", "storage", "--org", "acme", other])).stdout)).toHaveProperty("storage_records");
  });
});

describe("tag list|show|delete", () => {
  it("list, show an annotated tag, delete it (--yes), and a missing tag refused unless --missing-ok", async () => {
    const made = await shiplog(["tag", "create", "acme/web", "v9.0.0", "--object", commits.at(-1)!, "--message", "Release 9"]);
    expect(made.code).toBe(0);
    const list = await shiplog(["tag", "list", "acme/web", "--prefix", "v9"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^TAG\s+TYPE\s+SHA\nv9\.0\.0\s+annotated\s+[0-9a-f]{40}\n$/);
    const show = await shiplog(["tag", "show", "acme/web", "v9.0.0"]);
    expect(show.stdout).toMatch(/^ref\s+refs\/tags\/v9\.0\.0$/m);
    expect(show.stdout).toMatch(new RegExp(`^tags\\s+commit ${commits.at(-1)}$`, "m"));
    expect(show.stdout).toMatch(/^message\s+Release 9$/m);
    const showJson = JSON.parse((await shiplog(["tag", "show", "acme/web", "v9.0.0", "--json"])).stdout);
    expect(showJson).toMatchObject({
      ref: "refs/tags/v9.0.0",
      object: { type: "tag" },
      tag: { message: expect.stringContaining("Release 9") },
    });
    const unasked = await shiplog(["tag", "delete", "acme/web", "v9.0.0"]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/--yes is required: deleting refs\/tags\/v9\.0\.0 cannot be undone/);
    const deleted = await shiplog(["tag", "delete", "acme/web", "v9.0.0", "--yes"]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toMatch(/refs\/tags\/v9\.0\.0\s+deleted/);
    expect((await shiplog(["tag", "list", "acme/web", "--prefix", "v9"])).stdout).toBe("");
    const again = await shiplog(["tag", "delete", "acme/web", "v9.0.0", "--yes"]);
    expect(again.code).not.toBe(0);
    expect(lines(again.stderr)).toHaveLength(1);
    const ok = await shiplog(["tag", "delete", "acme/web", "v9.0.0", "--yes", "--missing-ok"]);
    expect(ok.stdout).toMatch(/refs\/tags\/v9\.0\.0\s+missing/);
    expect(ok.code).toBe(0);
    const missingShow = await shiplog(["tag", "show", "acme/web", "v9.0.0"]);
    expect(missingShow.code).toBe(3);
    expect(missingShow.stderr).toMatch(/tag v9\.0\.0 in acme\/web does not exist/);
  });
});

describe("events list", () => {
  it("prints what a feed holds and stops: newest first, --type and --limit", async () => {
    emulator.activity.push({ actor: "octo", repo: "acme/web", commits: 1 });
    emulator.activity.star({ actor: "hubot", repo: "acme/web" });
    const all = await shiplog(["events", "list", "repo:acme/web"]);
    expect(all.code).toBe(0);
    expect(lines(all.stdout)[0]).toMatch(/^WHEN\s+TYPE\s+ACTOR\s+REPOSITORY\s+WHAT$/);
    expect(lines(all.stdout)[1]).toMatch(/WatchEvent\s+hubot\s+acme\/web/);
    const pushes = await shiplog(["events", "list", "repo:acme/web", "--type", "PushEvent", "--json", "type,actor"]);
    for (const event of JSON.parse(pushes.stdout)) expect(event.type).toBe("PushEvent");
    const one = await shiplog(["events", "list", "repo:acme/web", "--limit", "1"]);
    expect(lines(one.stdout)).toHaveLength(2);
    expect(one.stderr).toMatch(/^1 of \d+ events \(--limit \d+ to see all\)\n$/);
  });
});

describe("notifications done|subscribe|unsubscribe, list --reason --limit", () => {
  it("subscribes, ignores, unsubscribes and marks a thread done", async () => {
    const classic = emulator.tokens.classic!;
    const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Slow" });
    emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" });
    const listed = JSON.parse((await shiplog(["notifications", "list", "--reason", "mention", "--json", "id,reason"], classic)).stdout);
    expect(listed.length).toBeGreaterThan(0);
    const id = listed[0].id as string;
    expect((await shiplog(["notifications", "subscribe", id], classic)).stdout).toBe(`thread ${id} subscribed\n`);
    const ignored = await shiplog(["notifications", "subscribe", id, "--ignore", "--json"], classic);
    expect(JSON.parse(ignored.stdout)).toMatchObject({ ignored: true });
    expect((await shiplog(["notifications", "unsubscribe", id], classic)).stdout).toBe(`thread ${id} unsubscribed\n`);
    const done = await shiplog(["notifications", "done", id], classic);
    expect(done).toMatchObject({ code: 0, stdout: `thread ${id} marked done\n` });
    const after = JSON.parse((await shiplog(["notifications", "list", "--all", "--json", "id"], classic)).stdout);
    expect(after.map((t: { id: string }) => t.id)).not.toContain(id);
    const missing = await shiplog(["notifications", "done", "999999"], classic);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/thread 999999 does not exist/);
  });
});

describe("auth status, --version", () => {
  it("a classic token: its type and scopes, what each command needs and whether it can, its rate limit", async () => {
    const run = await shiplog(["auth", "status"], emulator.tokens.classic);
    expect(run.code).toBe(0);
    // Who the token acts for: GET /user (users/get-authenticated).
    expect(run.stdout).toMatch(/^user\s+octo$/m);
    expect(run.stdout).toMatch(/^token type\s+personal access token \(classic\)$/m);
    expect(run.stdout).toMatch(/^scopes\s+repo, notifications$/m);
    expect(run.stdout).toMatch(/^rate limit\s+\d+ of 5000 left, resets \d{4}-/m);
    expect(run.stdout).toMatch(/^records storage\s+.*\bno: token type refused$/m);
    expect(run.stdout).toMatch(/^notifications\s+.*notifications or repo\s+yes$/m);
    const json = JSON.parse((await shiplog(["auth", "status", "--json", "token_type,scopes,rate_limit"], emulator.tokens.classic)).stdout);
    expect(json).toMatchObject({ token_type: "classic", scopes: ["repo", "notifications"], rate_limit: { limit: 5000 } });
  });

  it("a fine-grained token is not classic: notifications refused, the artifact commands if granted; no credentials: exit 4", async () => {
    const run = await shiplog(["auth", "status", "-o", "yaml"]);
    const status = parseYaml(run.stdout);
    expect(status).toMatchObject({ credentials: "token", user: "octo", token_type: null, scopes: null });
    const verdicts = Object.fromEntries(status.commands.map((c: { command: string; this_token: string }) => [c.command, c.this_token]));
    expect(verdicts).toMatchObject({ notifications: "no: only a classic token is accepted", "records storage": "if granted" });
    const none = await shiplog(["auth", "status"], null);
    expect(none.code).toBe(4);
    expect(none.stdout).toMatch(/^token type\s+none: anonymous/m);
    expect(none.stdout).toMatch(/^user\s+none$/m);
    const bad = await shiplog(["auth", "status"], "emu_not_a_token");
    expect(bad.code).toBe(4);
    expect(lines(bad.stderr)).toHaveLength(1);
  });

  it("App credentials: an installation token, found from --org", async () => {
    const key = join(dir, "app.pem");
    writeFileSync(key, emulator.apps.privateKey(1001001), { mode: 0o600 });
    const run = await runCli(["auth", "status", "--org", "acme", "--json", "credentials,user,token_type"], {
      SHIPLOG_API_URL: emulator.url,
      SHIPLOG_APP_ID: "1001001",
      SHIPLOG_APP_PRIVATE_KEY_FILE: key,
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ credentials: "app", user: null, token_type: "app_installation" });
    const none = await runCli(["auth", "status"], {
      SHIPLOG_API_URL: emulator.url,
      SHIPLOG_APP_ID: "1001001",
      SHIPLOG_APP_PRIVATE_KEY_FILE: key,
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^shiplog auth status: --app-installation-id \(or SHIPLOG_APP_INSTALLATION_ID\) is needed here/);
  });

  it("the bin: node_modules/.bin/shiplog (linked at install time) runs the build; the shim before a build says to build", async () => {
    const linked = await runProcess(join(ROOT, "node_modules", ".bin", "shiplog"), ["--version"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(linked).toMatchObject({ code: 0, stderr: "" });
    expect(linked.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // The committed shim in a package with no dist/ yet, as right after `pnpm install`.
    const unbuilt = join(tempDir("shiplog-unbuilt-"), "bin");
    mkdirSync(unbuilt);
    copyFileSync(join(ROOT, "packages", "cli", "bin", "shiplog.js"), join(unbuilt, "shiplog.js"));
    writeFileSync(join(unbuilt, "..", "package.json"), JSON.stringify({ type: "module" }));
    const run = await runProcess(process.execPath, [join(unbuilt, "shiplog.js"), "--version"], { env: { PATH: process.env.PATH ?? "" } });
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: "shiplog: the command line is not built yet: run `pnpm build` at the repository's root\n",
    });
  });

  it("--version and -V print the package's version", async () => {
    for (const flag of ["--version", "-V"]) expect((await shiplog([flag], null)).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe("import status", () => {
  it("a repository that exists with no import is said to have none, not to be missing; the warning once per state directory", async () => {
    emulator.clock.set("2024-03-01T12:00:00Z", { freeze: true });
    const state = tempDir("shiplog-state-");
    try {
      const env = { SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: emulator.tokens.classic, XDG_STATE_HOME: state };
      const first = await runCli(["import", "status", "acme/web"], env);
      expect(first.code).toBe(3);
      expect(first.stderr).toMatch(/^warning: .*retired/);
      expect(lines(first.stderr).at(-1)).toMatch(/acme\/web has no source import \(the repository exists\)$/);
      expect(first.stderr).not.toMatch(/does not exist/);
      expect(existsSync(join(state, "shiplog"))).toBe(true);
      const second = await runCli(["import", "status", "acme/nothing-here"], env);
      expect(lines(second.stderr)).toHaveLength(1);
      expect(second.stderr).toMatch(/repository acme\/nothing-here does not exist, or the credentials cannot see it/);
    } finally {
      emulator.clock.reset();
    }
  });
});
