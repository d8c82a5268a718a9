// The secondary rate limits over real HTTP: answers as the service gives them (status, headers, body), recognised
// by octokit's throttling plugin as a secondary limit (never the primary one), per caller, on the emulator's clock,
// and switchable. octokit's plugin is the judge of "what a real client recognises": it is not our code.
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { countingWaits } from "../../../test/kit/counted-clock.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const ThrottledOctokit = Octokit.plugin(throttling);
const DIGEST = `sha256:${"5".repeat(64)}`;
const STORAGE = "/orgs/acme/artifacts/metadata/storage-record";

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

async function start(options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
  emu = await startEmulator(options);
  emu.clock.set("2026-03-10T08:00:00Z", { freeze: true });
  return emu;
}

/** One storage-record create (content-generating) with a named fixture token. */
async function createStorageRecord(e: Emulator, token = "admin") {
  const response = await fetch(`${e.url}${STORAGE}`, {
    method: "POST",
    headers: { authorization: `Bearer ${e.tokens[token]}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "web", digest: DIGEST, registry_url: "https://registry.example.com", github_repository: "web" }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

async function createMany(e: Emulator, n: number, token = "admin"): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await createStorageRecord(e, token)).status);
  return statuses;
}

/** An octokit with the throttling plugin that records what it was told, retrying once after moving the emulator's clock. */
function throttledOctokit(e: Emulator, token = "admin") {
  const told: { kind: "secondary" | "primary"; retryAfter: number }[] = [];
  const octokit = new ThrottledOctokit({
    auth: e.tokens[token],
    baseUrl: e.url,
    throttle: {
      // Waits are scaled to nothing in real time; the emulator's clock moves by the wait instead.
      retryAfterBaseValue: 1,
      onSecondaryRateLimit: (retryAfter, _options, _octokit, retryCount) => {
        told.push({ kind: "secondary", retryAfter });
        e.clock.advance(retryAfter * 1000);
        return retryCount === 0;
      },
      onRateLimit: (retryAfter) => {
        told.push({ kind: "primary", retryAfter });
        return false;
      },
    },
  });
  return { octokit, told };
}

describe("content creation: 80 requests in any minute per caller", () => {
  it("refuses the 81st with the service's answer, names the wait, and admits again once the clock has moved", async () => {
    const e = await start();
    expect(await createMany(e, 80)).toEqual(Array(80).fill(200));
    e.clock.advance(20_000);
    const refused = await createStorageRecord(e);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      /^You have exceeded a secondary rate limit and have been temporarily blocked from content creation\./,
    );
    // The request id in the message is the answer's own.
    expect(refused.body.message).toContain(`request ID ${refused.headers.get("x-service-request-id")}.`);
    expect(refused.body.documentation_url).toMatch(/rate-limits-for-the-rest-api#about-secondary-rate-limits$/);
    expect(refused.headers.get("retry-after")).toBe("40");
    // The primary limit is not spent: a client must not read this as "wait for x-ratelimit-reset".
    expect(Number(refused.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(0);
    expect(
      e.requests
        .list({ method: "POST" })
        .map((r) => r.status)
        .slice(-1),
    ).toEqual([403]);

    e.clock.advance(39_000);
    expect((await createStorageRecord(e)).status).toBe(403);
    e.clock.advance(1_000);
    expect((await createStorageRecord(e)).status).toBe(200);
    expect(e.secondaryLimits.counts().refused).toMatchObject({ content_per_minute: 2, total: 2 });
  });

  it("is recognised by octokit's throttling plugin as a secondary limit with the wait named, and the retry lands", async () => {
    const e = await start();
    await createMany(e, 80);
    const { octokit, told } = throttledOctokit(e);
    const created = await octokit.request(`POST ${STORAGE.replace("acme", "{org}")}`, {
      org: "acme",
      name: "web",
      digest: DIGEST,
      registry_url: "https://registry.example.com",
      github_repository: "web",
    });
    expect(created.status).toBe(200);
    expect(told).toEqual([{ kind: "secondary", retryAfter: 60 }]);
  });

  it("applies per user: another token of the same user is refused, a token of an installation is not", async () => {
    const e = await start();
    await createMany(e, 80, "admin");
    const sameUser = await createStorageRecord(e, "classic"); // also octo's
    expect(sameUser.status).toBe(403);
    expect(sameUser.body.message).toMatch(/secondary rate limit/);
    expect((await createStorageRecord(e, "installation")).status).toBe(200);
  });
});

describe("the other limits", () => {
  it("admits 900 points a minute on one endpoint (900 reads), then refuses with the general wording", async () => {
    const e = await start();
    const list = `${e.url}/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`;
    const read = () => fetch(list, { headers: { authorization: `Bearer ${e.tokens.admin}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 900; i++) statuses.push((await read()).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const refused = await read();
    expect(refused.status).toBe(403);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /^You have exceeded a secondary rate limit\. Please wait a few minutes/,
    );
    // Another endpoint has its own budget.
    expect((await fetch(`${e.url}/notifications`, { headers: { authorization: `Bearer ${e.tokens.classic}` } })).status).toBe(200);
    expect(e.secondaryLimits.counts().refused).toMatchObject({ endpoint_points: 1, total: 1 });
  });

  it("holds 100 requests in flight per caller; the 101st is refused without a wait to name, and a slot frees when one ends", async () => {
    const source = new VirtualClock();
    const { clock, waits } = countingWaits(source);
    const e = await start({ clock });
    // Requests held by an injected latency are in flight at the service until its clock has moved that far: one for
    // 30 s, 99 for 60 s. The limits admit a request before its latency, so the 100th wait started means 100 admitted.
    e.faults.add({ kind: "latency", latencyMs: 30_000, route: "/notifications", times: 1 });
    e.faults.add({ kind: "latency", latencyMs: 60_000, route: "/notifications", times: 99 });
    const notifications = (token: string) => fetch(`${e.url}/notifications`, { headers: { authorization: `Bearer ${e.tokens[token]}` } });
    const held = Array.from({ length: 100 }, () => notifications("classic"));
    await waits.reached(100);
    expect(e.secondaryLimits.usage("user:octo").inFlight).toBe(100);
    // Another token of the same user (admin is octo's too): the limit is the user's.
    const refused = await notifications("admin");
    expect(refused.status).toBe(403);
    expect(refused.headers.has("retry-after")).toBe(false);
    expect(((await refused.json()) as { message: string }).message).toMatch(/secondary rate limit/);
    expect(e.secondaryLimits.counts().refused).toMatchObject({ concurrent_requests: 1, total: 1 });

    // The server gives the slot back as its answer goes out, before the answer can reach the caller.
    await source.advance(30_000);
    expect((await Promise.race(held)).status).toBe(200);
    expect(e.secondaryLimits.usage("user:octo").inFlight).toBe(99);
    expect((await notifications("classic")).status).toBe(200);
    await source.advance(30_000);
    expect((await Promise.all(held)).map((response) => response.status)).toEqual(Array(100).fill(200));
    expect(e.secondaryLimits.usage("user:octo").inFlight).toBe(0);
  });

  it("gives the slot back when the connection is dropped before or after the handler", async () => {
    const e = await start();
    e.faults.add({ kind: "drop", route: "/notifications", times: 3 });
    e.faults.add({ kind: "drop_after", route: "/orgs/:org/artifacts/metadata/storage-record", times: 3 });
    for (let i = 0; i < 3; i++) {
      await expect(fetch(`${e.url}/notifications`, { headers: { authorization: `Bearer ${e.tokens.classic}` } })).rejects.toThrow();
      await expect(createStorageRecord(e)).rejects.toThrow();
    }
    // The server closes the connection (and gives the slot back) before the caller can see it closed.
    expect(e.secondaryLimits.usage("user:octo").inFlight).toBe(0);
    expect(e.requests.list().filter((r) => r.status === 0)).toHaveLength(6);
  });
});

describe("switches", () => {
  it("429 and no retry-after: octokit falls back to its minute, as the service's advice says", async () => {
    const e = await start({ secondaryLimits: { status: 429, retryAfter: false, contentPerMinute: 3 } });
    await createMany(e, 3);
    const refused = await createStorageRecord(e);
    expect(refused.status).toBe(429);
    expect(refused.headers.has("retry-after")).toBe(false);
    const { octokit, told } = throttledOctokit(e);
    const body = { org: "acme", name: "web", digest: DIGEST, registry_url: "https://registry.example.com", github_repository: "web" };
    expect((await octokit.request(`POST ${STORAGE.replace("acme", "{org}")}`, body)).status).toBe(200);
    expect(told).toEqual([{ kind: "secondary", retryAfter: 60 }]);
  });

  it("off at start, or switched off and on while running", async () => {
    const e = await start({ secondaryLimits: false });
    expect(await createMany(e, 100)).toEqual(Array(100).fill(200));
    expect(e.secondaryLimits.counts()).toMatchObject({ admitted: 0, refused: { total: 0 } });
    e.secondaryLimits.configure({ enabled: true, contentPerMinute: 1 });
    expect(await createMany(e, 2)).toEqual([200, 403]);
    e.secondaryLimits.configure({ enabled: false });
    expect(await createMany(e, 2)).toEqual([200, 200]);
  });

  it("refuses bad settings at start naming the setting", async () => {
    await expect(startEmulator({ secondaryLimits: { contentPerHour: 0 } })).rejects.toThrow(
      /startEmulator: secondaryLimits.contentPerHour/,
    );
  });
});
