import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, ShiplogClient, UnavailableError, type ActivityEvent } from "@shiplog/client";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { collect } from "./collect.js";

// Spec 4.4 and 6.1 over HTTP: capacity, age, ETag/304, X-Poll-Interval, visibility, 301, 503, access.
let emu: Emulator;

const fixture = {
  ...defaultFixture,
  tokens: [
    ...(defaultFixture.tokens ?? []),
    // Can see acme's repositories but lacks the organization's Events permission.
    {
      name: "noEvents",
      token: "emu_fg_noevents_00000000000000",
      type: "fine_grained" as const,
      user: "octo",
      grants: [{ org: "acme", permissions: { metadata: "read" as const } }],
    },
  ],
};

beforeAll(async () => {
  emu = await startEmulator({ fixture });
});
afterAll(() => emu.stop());

const client = (token?: string) =>
  new ShiplogClient({ baseUrl: emu.url, token: token === undefined ? undefined : emu.tokens[token], retry: false });

async function get(path: string, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${emu.url}${path}`, {
    headers: { ...(token ? { authorization: `Bearer ${emu.tokens[token]}` } : {}), ...headers },
    redirect: "manual",
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe("feed rules (6.1)", () => {
  it("a feed holds at most 300 events, newest first, paged with Link headers at 30 (15 for /events) per page", async () => {
    emu.state.events.clear();
    for (let i = 0; i < 320; i++) emu.activity.star({ actor: "hubot", repo: "acme/web" });
    const events = await collect(client("admin").activity.listRepoEvents({ owner: "acme", repo: "web" }));
    expect(events).toHaveLength(300);
    const ids = events.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a < b ? 1 : -1))).toEqual(ids);
    const newest = emu.state.events.all().at(-1)!;
    expect(events[0]?.id).toBe(String(newest.id));

    const firstPage = await get("/repos/acme/web/events");
    expect(firstPage.body).toHaveLength(30);
    expect(firstPage.headers.get("link")).toMatch(/page=2>; rel="next".*page=10>; rel="last"/);
    const publicPage = await get("/events");
    expect(publicPage.body).toHaveLength(15);
    const big = await get("/repos/acme/web/events?per_page=100");
    expect(big.body).toHaveLength(100);
    // Section 8: 100 at most, and above it the service caps (production-facts.md); page from 1; integers only.
    const capped = await get("/repos/acme/web/events?per_page=101");
    expect(capped.status).toBe(200);
    expect(capped.body).toHaveLength(100);
    for (const query of ["page=0", "per_page=abc"]) {
      const refused = await get(`/repos/acme/web/events?${query}`);
      expect(refused.status, query).toBe(422);
      expect(JSON.stringify(refused.body), query).toContain(query.split("=")[0]);
    }
  });

  it("only events of the last 30 days are included, even when fewer than 300 exist", async () => {
    emu.state.events.clear();
    emu.activity.push({ actor: "hubot", repo: "acme/web" });
    emu.clock.advance(29 * 24 * 3600_000);
    emu.activity.push({ actor: "hubot", repo: "acme/web" });
    expect(await collect(client().activity.listPublicOrgEvents({ org: "acme" }))).toHaveLength(2);
    emu.clock.advance(2 * 24 * 3600_000);
    expect(await collect(client().activity.listPublicOrgEvents({ org: "acme" }))).toHaveLength(1);
  });

  it("the exact ETag in If-None-Match gives 304 and costs no rate limit; a new event changes the ETag", async () => {
    emu.activity.star({ actor: "octo", repo: "acme/web" });
    const first = await get("/orgs/acme/events", "admin");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const used = emu.rateLimits.used("token:admin");
    const again = await get("/orgs/acme/events", "admin", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("x-ratelimit-limit")).toBe("5000");
    expect(again.headers.get("x-ratelimit-remaining")).toBe(first.headers.get("x-ratelimit-remaining"));
    expect(emu.rateLimits.used("token:admin")).toBe(used);
    // Not the exact value: a full answer.
    expect((await get("/orgs/acme/events", "admin", { "if-none-match": etag.replace(/"$/, 'x"') })).status).toBe(200);
    emu.activity.star({ actor: "octo", repo: "acme/web" });
    const changed = await get("/orgs/acme/events", "admin", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  it("X-Poll-Interval is configurable and grows under simulated load", async () => {
    expect((await get("/events")).headers.get("x-poll-interval")).toBe("60");
    emu.state.events.setPollInterval(30);
    emu.state.events.simulateLoad(4);
    expect((await get("/events")).headers.get("x-poll-interval")).toBe("120");
    emu.state.events.simulateLoad(1);
    emu.state.events.setPollInterval(60);
  });

  it("every answer carries the rate-limit headers", async () => {
    for (const path of ["/events", "/orgs/acme/events", "/users/octo/events", "/repos/acme/web/issues/events"]) {
      const { headers } = await get(path, "admin");
      expect([
        headers.get("x-ratelimit-limit"),
        headers.get("x-ratelimit-remaining") !== null,
        headers.get("x-ratelimit-reset") !== null,
      ]).toEqual(["5000", true, true]);
    }
  });
});

describe("visibility and access (4.4)", () => {
  it("private events go only to their own user; public feeds never show them", async () => {
    emu.state.events.clear();
    emu.activity.push({ actor: "octo", repo: "acme/api" }); // private repository
    emu.activity.push({ actor: "octo", repo: "acme/web" });
    const types = (events: ActivityEvent[]) => events.map((e) => `${e.repo.name}:${e.public}`);
    // octo's own tokens see both; hubot (and anonymous callers) see only the public one.
    expect(types(await collect(client("classic").activity.listEventsForUser({ username: "octo" })))).toEqual([
      "acme/web:true",
      "acme/api:false",
    ]);
    expect(types(await collect(client("classicHubot").activity.listEventsForUser({ username: "octo" })))).toEqual(["acme/web:true"]);
    expect(types(await collect(client().activity.listEventsForUser({ username: "octo" })))).toEqual(["acme/web:true"]);
    expect(types(await collect(client("classic").activity.listPublicEventsForUser({ username: "octo" })))).toEqual(["acme/web:true"]);
    expect(types(await collect(client("admin").activity.listPublicOrgEvents({ org: "acme" })))).toEqual(["acme/web:true"]);
    expect(types(await collect(client().activity.listPublicEvents()))).toEqual(["acme/web:true"]);
    // Received events: hubot watches web; octo watches web and api, and does not receive their own.
    emu.activity.push({ actor: "hubot", repo: "acme/api" });
    emu.activity.star({ actor: "hubot", repo: "acme/web" });
    expect(types(await collect(client("classic").activity.listReceivedEventsForUser({ username: "octo" })))).toEqual([
      "acme/web:true",
      "acme/api:false",
    ]);
    expect(types(await collect(client("classicHubot").activity.listReceivedEventsForUser({ username: "octo" })))).toEqual([
      "acme/web:true",
    ]);
    expect(types(await collect(client("classic").activity.listReceivedPublicEventsForUser({ username: "octo" })))).toEqual([
      "acme/web:true",
    ]);
  });

  it("the organization feed of a user: only that user, with the organization's Events read", async () => {
    const events = await collect(client("admin").activity.listOrgEventsForUser({ username: "octo", org: "acme" }));
    expect(events.some((e) => !e.public)).toBe(true);
    expect(events.every((e) => e.org?.login === "acme")).toBe(true);
    await expect(collect(client("admin").activity.listOrgEventsForUser({ username: "hubot", org: "acme" }))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const refused = await collect(client("noEvents").activity.listOrgEventsForUser({ username: "octo", org: "acme" })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect((refused as ForbiddenError).acceptedPermissions).toEqual([[{ permission: "organization_events", access: "read" }]]);
    await expect(collect(client("installation").activity.listOrgEventsForUser({ username: "octo", org: "acme" }))).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect((await get("/users/octo/events/orgs/acme")).status).toBe(401);
  });

  it("repository events need Metadata read on a private repository; a public one is open to all", async () => {
    expect((await collect(client().activity.listRepoEvents({ owner: "acme", repo: "web" }))).length).toBeGreaterThan(0);
    // Anonymous: a private repository is not found (its existence stays hidden), not 401.
    expect((await get("/repos/acme/api/events")).status).toBe(404);
    await expect(collect(client("noGrants").activity.listRepoEvents({ owner: "acme", repo: "api" }))).rejects.toBeInstanceOf(NotFoundError);
    expect(
      (await collect(client("readOnly").activity.listRepoEvents({ owner: "acme", repo: "api" }))).every((e) => e.repo.name === "acme/api"),
    ).toBe(true);
    await expect(collect(client().activity.listEventsForUser({ username: "nobody-here" }))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a renamed network answers 301 to its current name, which the client follows", async () => {
    const moved = await get("/networks/acme/website/events?per_page=5");
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe(`${emu.url}/networks/acme/web/events?per_page=5`);
    const events = await collect(client().activity.listPublicEventsForRepoNetwork({ owner: "acme", repo: "website" }));
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.repo.name === "acme/web")).toBe(true);
    expect((await get("/networks/acme/nothing/events")).status).toBe(404);
  });

  it("503 from /events reaches the caller as UnavailableError after retries", async () => {
    emu.faults.add({ route: "/events", kind: "status", status: 503, times: 2 });
    const error = await collect(client().activity.listPublicEvents()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).status).toBe(503);
    emu.faults.clear();
  });
});
