// The standalone `shiplog-emulator --admin`, driven with curl as a user beside their own code would drive it:
// clock, activity, faults, request log, imports. Also: the admin API is off unless asked for, and CLI mistakes
// end in one line with exit 2.
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLoopbackServers, occupyPort } from "../../../test/kit/loopback.js";
import { startProcess, type RunningProcess } from "../../../test/kit/process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const cli = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const CLASSIC = "emu_classic_octo_0000000000000";

let emulator: RunningProcess;
let service = "";
let admin = "";

/** curl, returning status and parsed body. */
function curl(args: string[]): { status: number; body: unknown; headers: string } {
  const out = execFileSync("curl", ["-sS", "-i", ...args], { encoding: "utf8" });
  const [head, ...rest] = out.split("\r\n\r\n");
  const text = rest.join("\r\n\r\n");
  return { status: Number(/^HTTP\/[\d.]+ (\d+)/.exec(head!)![1]), headers: head!, body: text ? JSON.parse(text) : undefined };
}
const json = (method: string, url: string, body?: unknown, extra: string[] = []) =>
  curl(["-X", method, url, ...(body === undefined ? [] : ["-H", "content-type: application/json", "-d", JSON.stringify(body)]), ...extra]);

beforeAll(async () => {
  // An empty world (no seed): the counts and the import below start from nothing.
  emulator = startProcess(process.execPath, [cli, "--port", "0", "--admin", "--no-seed"]);
  service = /listening on (http:\/\/\S+)/.exec(await emulator.line(/listening on http/))![1]!;
  admin = /admin API on (http:\/\/\S+)/.exec(await emulator.line(/admin API on http/))![1]!;
});
afterAll(() => emulator.stop());

describe("admin API with curl", () => {
  it("gives the fixture's tokens with their values, which the banner does not print", async () => {
    const { status, body } = json("GET", `${admin}/tokens`);
    expect(status).toBe(200);
    const tokens = (body as { tokens: { name: string; type: string; token: string }[] }).tokens;
    expect(tokens).toContainEqual(expect.objectContaining({ name: "classic", type: "classic", token: CLASSIC }));
    expect(await emulator.line(/^token values/)).toBe(`token values: curl -s ${admin}/tokens (or start with --show-tokens)`);
    expect(emulator.stdout()).not.toContain(CLASSIC);
    // The value is accepted on the service's port: its limit is a token's, not an anonymous caller's.
    const limits = json("GET", `${service}/rate_limit`, undefined, ["-H", `authorization: Bearer ${CLASSIC}`]);
    expect(limits.body).toMatchObject({ resources: { core: { limit: 5000 } } });
  });

  it("sets the clock, and generated activity carries it", () => {
    expect(json("POST", `${admin}/clock`, { set: "2026-03-10T08:00:00Z", freeze: true }).body).toEqual({ now: "2026-03-10T08:00:00Z" });
    expect(json("GET", `${admin}/clock`).body).toEqual({ now: "2026-03-10T08:00:00Z" });
    const pushed = json("POST", `${admin}/activity`, { kind: "push", actor: "octo", repo: "acme/web" });
    expect(pushed.status).toBe(201);
    const feed = json("GET", `${service}/repos/acme/web/events`);
    expect(feed.status).toBe(200);
    expect((feed.body as { type: string; created_at: string }[])[0]).toMatchObject({
      type: "PushEvent",
      created_at: "2026-03-10T08:00:00Z",
    });
    // As the README shows it: `curl -d` without a content type (form encoding) is read as JSON.
    expect(curl(["-X", "POST", `${admin}/clock`, "-d", '{"advance_ms":3600000}']).body).toEqual({ now: "2026-03-10T09:00:00Z" });
    expect(json("POST", `${admin}/activity`, { kind: "explode" }).status).toBe(400);
  });

  it("adds, lists and clears faults", () => {
    const added = json("POST", `${admin}/faults`, { kind: "status", status: 503, times: 1, route: "/events" });
    expect(added.status).toBe(201);
    expect(json("GET", `${admin}/faults`).body).toMatchObject({ faults: [{ kind: "status", status: 503, hits: 0 }] });
    expect(json("GET", `${service}/events`).status).toBe(503);
    expect(json("GET", `${service}/events`).status).toBe(200);
    const bad = json("POST", `${admin}/faults`, { kind: "status", rate: 7 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("rule.rate");
    expect(json("DELETE", `${admin}/faults`).status).toBe(204);
    expect(json("GET", `${admin}/faults`).body).toEqual({ faults: [] });
  });

  it("reads and clears the request log, never with a token value", () => {
    json("GET", `${service}/notifications`, undefined, ["-H", `authorization: Bearer ${CLASSIC}`]);
    const log = json("GET", `${admin}/requests?route=/notifications`);
    expect(log.status).toBe(200);
    expect((log.body as { requests: unknown[] }).requests).toEqual([
      expect.objectContaining({ method: "GET", status: 200, tokenName: "classic" }),
    ]);
    expect(JSON.stringify(log.body)).not.toContain(CLASSIC);
    expect(json("DELETE", `${admin}/requests`).status).toBe(204);
    expect((json("GET", `${admin}/requests`).body as { requests: unknown[] }).requests).toEqual([]);
  });

  it("steps a source import", () => {
    const auth = ["-H", `authorization: Bearer ${CLASSIC}`];
    // The import endpoints close from 2024-04-12 (spec 9): step back before it.
    json("POST", `${admin}/clock`, { set: "2024-03-01T00:00:00Z", freeze: true });
    const started = json("PUT", `${service}/repos/acme/api/import`, { vcs_url: "https://svn.example.com/api", vcs: "subversion" }, auth);
    expect(started.status).toBe(201);
    expect((json("POST", `${admin}/imports/step`, { owner: "acme", repo: "api" }).body as { status: string }).status).toMatch(
      /^(importing|mapping)$/,
    );
    expect(json("POST", `${admin}/imports/step`, { owner: "acme", repo: "api", to_completion: true }).body).toEqual({ status: "complete" });
    expect((json("GET", `${service}/repos/acme/api/import`, undefined, auth).body as { status: string }).status).toBe("complete");
  });

  it("reads and changes the secondary limits, which are on by default, and counts refusals per limit", () => {
    const auth = ["-H", `authorization: Bearer ${CLASSIC}`];
    expect(json("POST", `${admin}/clock`, { reset: true }).status).toBe(200);
    const before = json("GET", `${admin}/secondary-limits`).body as { settings: { enabled: boolean; contentPerMinute: number } };
    expect(before.settings).toMatchObject({ enabled: true, contentPerMinute: 80, contentPerHour: 500, concurrentRequests: 100 });
    // Two content-generating requests a minute; the third is refused (a tag object, by octo's classic token).
    expect(json("POST", `${admin}/secondary-limits`, { contentPerMinute: 2, reset: true }).status).toBe(200);
    const tag = { tag: "v0", message: "m", object: "0".repeat(40), type: "commit" };
    const statuses = [1, 2, 3].map(() => json("POST", `${service}/repos/acme/web/git/tags`, tag, auth));
    expect(statuses[2]!.status).toBe(403);
    expect(statuses[2]!.headers).toMatch(/^retry-after: \d+\r?$/im);
    expect(json("GET", `${admin}/secondary-limits`).body).toMatchObject({ refused: { content_per_minute: 1, total: 1 } });
    const bad = json("POST", `${admin}/secondary-limits`, { contentPerMinute: 0, burst: 1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("body.contentPerMinute");
    expect(json("POST", `${admin}/secondary-limits`, { enabled: false, contentPerMinute: 80, reset: true }).body).toMatchObject({
      settings: { enabled: false },
      refused: { total: 0 },
    });
    expect(json("POST", `${service}/repos/acme/web/git/tags`, tag, auth).status).not.toBe(403);
    json("POST", `${admin}/secondary-limits`, { enabled: true });
  });

  it("reads and changes the installation token lifetime: tokens minted afterwards follow it", () => {
    expect(json("GET", `${admin}/apps`).body).toEqual({ settings: { installationTokenLifetimeSeconds: 3600 }, minted: 0 });
    expect(json("POST", `${admin}/apps`, { installationTokenLifetimeSeconds: 540 }).body).toEqual({
      settings: { installationTokenLifetimeSeconds: 540 },
      minted: 0,
    });
    const bad = json("POST", `${admin}/apps`, { installationTokenLifetimeSeconds: 7200 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("body.installationTokenLifetimeSeconds");
    expect(JSON.stringify(bad.body)).toContain("at most 3600 seconds");
    json("POST", `${admin}/apps`, { installationTokenLifetimeSeconds: 3600 });
  });

  it("counts deployment records per status and cluster, and pages through them", () => {
    const auth = ["-H", `authorization: Bearer ${CLASSIC}`];
    const deployments = ["a", "b", "c"].map((name, i) => ({
      name: "web",
      digest: `sha256:${String(i).repeat(64)}`,
      deployment_name: name,
      github_repository: "web",
      status: name === "c" ? "decommissioned" : "deployed",
    }));
    for (const cluster of ["east", "west"]) {
      const body = { logical_environment: "prod", deployments, return_records: false };
      expect(json("POST", `${service}/orgs/acme/artifacts/metadata/deployment-record/cluster/${cluster}`, body, auth).status).toBe(200);
    }
    expect(json("GET", `${admin}/deployment-records/counts?org=ACME`).body).toEqual({
      total: 6,
      by_status: { deployed: 4, decommissioned: 2 },
      by_cluster: { east: { total: 3, deployed: 2, decommissioned: 1 }, west: { total: 3, deployed: 2, decommissioned: 1 } },
    });
    expect(json("GET", `${admin}/deployment-records/counts?cluster=west&status=deployed`).body).toMatchObject({ total: 2 });
    const first = json("GET", `${admin}/deployment-records?limit=4&fields=deployment_name,cluster,status`).body as {
      records: unknown[];
      next_after: number;
    };
    expect(first.records).toEqual([
      { deployment_name: "a", cluster: "east", status: "deployed" },
      { deployment_name: "b", cluster: "east", status: "deployed" },
      { deployment_name: "c", cluster: "east", status: "decommissioned" },
      { deployment_name: "a", cluster: "west", status: "deployed" },
    ]);
    const rest = json("GET", `${admin}/deployment-records?limit=4&after=${first.next_after}`).body as {
      records: { deployment_name: string }[];
    };
    expect(rest.records.map((r) => r.deployment_name)).toEqual(["b", "c"]);
    expect(rest).not.toHaveProperty("next_after");
    const bad = json("GET", `${admin}/deployment-records?limit=0&fields=digest,secret`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/query\.limit.*query\.fields/);
  });

  it("is not on the service's port", () => {
    expect(json("GET", `${service}/clock`).status).toBe(404);
  });
});

describe("CLI mistakes: one line, exit 2", () => {
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 20_000 });
  const oneLine = (result: ReturnType<typeof run>, text: string) => {
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(text);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  it("an unknown flag, a port in use, an unusable host", async () => {
    oneLine(run(["--prot", "1"]), "--prot");
    const port = await occupyPort();
    try {
      oneLine(run(["--port", String(port)]), `--port ${port}: the port is in use`);
    } finally {
      await closeLoopbackServers();
    }
    oneLine(run(["--port", "0", "--host", "no-such-host.invalid"]), "--host no-such-host.invalid");
  });

  it("a secondary-limit flag that is not a whole number, or breaks its setting's rule, named by the flag", () => {
    oneLine(run(["--port", "0", "--content-per-minute", "ten"]), "--content-per-minute must be a whole number");
    oneLine(run(["--port", "0", "--content-per-hour", "0"]), "--content-per-hour");
    oneLine(run(["--port", "0", "--endpoint-points-per-minute", "4"]), "--endpoint-points-per-minute must admit one write (5 points)");
    oneLine(run(["--port", "0", "--secondary-limit-status", "500"]), "--secondary-limit-status must be 403 or 429");
  });

  it("an installation token lifetime that is not a whole number, or not 1 to 3600 seconds, named by the flag", () => {
    oneLine(run(["--port", "0", "--installation-token-lifetime", "9m"]), "--installation-token-lifetime must be a whole number of seconds");
    oneLine(run(["--port", "0", "--installation-token-lifetime", "0"]), "--installation-token-lifetime must be at least 1 second");
    oneLine(run(["--port", "0", "--installation-token-lifetime", "3601"]), "--installation-token-lifetime must be at most 3600 seconds");
  });

  it("a fixture that is null, or repeats tokens, or has unknown keys, named by path", () => {
    const dir = tempDir("emulator-fixture-");
    const file = (name: string, value: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(value));
      return join(dir, name);
    };
    oneLine(run(["--port", "0", "--fixture", file("null.json", null)]), "fixture");
    const twice = { name: "a", token: "secret_value_1234", type: "classic" };
    const bad = run([
      "--port",
      "0",
      "--fixture",
      file("bad.json", { orgz: [], tokens: [twice, { ...twice, token: "has space 123", grants: [{ org: "nope" }] }, twice] }),
    ]);
    oneLine(bad, "fixture.orgz");
    for (const path of ["fixture.tokens[1].token", "fixture.tokens[2].token", "fixture.tokens[2].name", "fixture.tokens[1].grants[0].org"])
      expect(bad.stderr).toContain(path);
    expect(bad.stderr).not.toContain("secret_value_1234");
  });
});
