// HTTP details the service follows that the spec leaves out (production-facts.md, "More HTTP details"), over real
// HTTP with fetch: per_page capped, weak ETags with If-None-Match before If-Modified-Since (RFC 9110 13.1.3), 400 for
// a JSON body that is not an object, 60 requests an hour without credentials, CORS from any origin, GET /rate_limit,
// GET /user's two views.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clock, defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { validateResponse } from "../../../test/support/openapi-contract.js";

let emu: Emulator;

beforeAll(async () => {
  // More requests than a person sends in a minute, on purpose (counting the anonymous limit): secondary limits off.
  emu = await startEmulator({ secondaryLimits: false });
});
afterAll(() => emu.stop());

function call(path: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  return fetch(`${emu.url}${path}`, { method: init.method ?? "GET", headers, body: init.body });
}

/** Opens issues in acme/web that mention octo: octo gets one notification thread each. */
function threadsForOcto(count: number): void {
  for (let i = 0; i < count; i++) {
    const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: `Capped ${i}` }).number;
    emu.activity.mention({ actor: "hubot", repo: "acme/web", issue, user: "octo" });
  }
}

describe("per_page above the maximum", () => {
  it("is capped to it, not refused: 50 on /notifications, 100 on feeds; a malformed one is still 422", async () => {
    threadsForOcto(55);
    const notifications = await call("/notifications?per_page=51", { token: emu.tokens.classic });
    expect(notifications.status).toBe(200);
    expect(((await notifications.json()) as unknown[]).length).toBe(50);
    // The Link header names the page size the service used.
    expect(notifications.headers.get("link")).toContain("per_page=50");
    expect(notifications.headers.get("link")).not.toContain("per_page=51");

    for (let i = 0; i < 105; i++) emu.activity.star({ actor: "hubot", repo: "acme/web" });
    const feed = await call("/repos/acme/web/events?per_page=500", { token: emu.tokens.admin });
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as unknown[]).length).toBe(100);

    expect((await call("/repos/acme/web/events?per_page=abc", { token: emu.tokens.admin })).status).toBe(422);
    expect((await call("/notifications?per_page=0", { token: emu.tokens.classic })).status).toBe(422);
  });
});

describe("ETags", () => {
  it("a weak ETag on refs, matching refs, tags and record lists; If-None-Match with it gives 304 until the answer changes", async () => {
    const git = emu.state.git.repository("acme", "web")!;
    const [first, second] = git.commits().map((c) => c.sha);
    git.createRef("refs/heads/etag-test", first!);
    const admin = emu.tokens.admin!;
    const digest = `sha256:${"e".repeat(64)}`;
    const tag = await call("/repos/acme/web/git/tags", {
      method: "POST",
      token: admin,
      body: JSON.stringify({ tag: "etag-v1", message: "m", object: first, type: "commit" }),
    });
    const tagSha = ((await tag.json()) as { sha: string }).sha;
    const paths = [
      "/repos/acme/web/git/ref/heads/etag-test",
      "/repos/acme/web/git/matching-refs/heads/etag",
      `/repos/acme/web/git/tags/${tagSha}`,
      `/orgs/acme/artifacts/${digest}/metadata/deployment-records`,
      `/orgs/acme/artifacts/${digest}/metadata/storage-records`,
    ];
    const etags = new Map<string, string>();
    for (const path of paths) {
      const answer = await call(path, { token: admin });
      expect(answer.status, path).toBe(200);
      const etag = answer.headers.get("etag") ?? "";
      expect(etag, path).toMatch(/^W\/"[0-9a-f]+"$/);
      etags.set(path, etag);
      const again = await call(path, { token: admin, headers: { "if-none-match": etag } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe("");
      // The opaque tag matches too (weak comparison), and a 304 costs no rate limit.
      const used = emu.rateLimits.used("token:admin");
      expect((await call(path, { token: admin, headers: { "if-none-match": etag.slice(2) } })).status, path).toBe(304);
      expect(emu.rateLimits.used("token:admin"), path).toBe(used);
    }

    // Changed answers: the old ETag no longer matches.
    git.updateRef("refs/heads/etag-test", second!);
    await call("/orgs/acme/artifacts/metadata/deployment-record", {
      method: "POST",
      token: admin,
      body: JSON.stringify({
        name: "web",
        digest,
        status: "deployed",
        logical_environment: "prod",
        deployment_name: "etag",
        github_repository: "web",
      }),
    });
    for (const path of [paths[0]!, paths[1]!, paths[3]!]) {
      const answer = await call(path, { token: admin, headers: { "if-none-match": etags.get(path)! } });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("etag"), path).not.toBe(etags.get(path));
    }
  });

  it("a weak ETag on a source import's status, authors and large files, and on one issue event; 304 with it", async () => {
    // The import endpoints answer only before their retirement (2024-04-12): an emulator on a clock set before it.
    const clock = new Clock();
    clock.set("2024-03-01T12:00:00Z", { freeze: true });
    const before = await startEmulator({ clock, secondaryLimits: false });
    try {
      const token = before.tokens.classic!;
      const request = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
        fetch(`${before.url}${path}`, {
          method: init.method ?? "GET",
          body: init.body,
          headers: { authorization: `Bearer ${token}`, ...init.headers },
        });
      expect((await request("/repos/acme/api/import", { method: "PUT", body: '{"vcs_url":"https://svn.example.com/x"}' })).status).toBe(
        201,
      );
      before.imports.runToCompletion("acme", "api");
      const issue = before.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "An event" });
      before.activity.closeIssue({ actor: "octo", repo: "acme/web", issue: issue.number });
      const events = (await (await request("/repos/acme/web/issues/events")).json()) as { id: number }[];
      for (const path of [
        "/repos/acme/api/import",
        "/repos/acme/api/import/authors",
        "/repos/acme/api/import/large_files",
        `/repos/acme/web/issues/events/${events[0]!.id}`,
      ]) {
        const answer = await request(path);
        expect(answer.status, path).toBe(200);
        const etag = answer.headers.get("etag") ?? "";
        expect(etag, path).toMatch(/^W\/"[0-9a-f]+"$/);
        expect((await request(path, { headers: { "if-none-match": etag } })).status, path).toBe(304);
      }
    } finally {
      await before.stop();
    }
  });

  it("/notifications: If-None-Match decides when sent, and If-Modified-Since is then ignored (RFC 9110 13.1.3)", async () => {
    threadsForOcto(1);
    const token = emu.tokens.classic!;
    const first = await call("/notifications", { token });
    const etag = first.headers.get("etag")!;
    const lastModified = first.headers.get("last-modified")!;
    expect(etag).toMatch(/^W\/"/);
    expect((await call("/notifications", { token, headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await call("/notifications", { token, headers: { "if-modified-since": lastModified } })).status).toBe(304);
    // A matching date does not win over a tag that does not match.
    const both = await call("/notifications", { token, headers: { "if-none-match": 'W/"other"', "if-modified-since": lastModified } });
    expect(both.status).toBe(200);
    expect(((await both.json()) as unknown[]).length).toBeGreaterThan(0);
    // A matching tag wins over a date that would not match.
    const old = "Thu, 01 Jan 1970 00:00:00 GMT";
    expect((await call("/notifications", { token, headers: { "if-none-match": etag, "if-modified-since": old } })).status).toBe(304);

    const thread = ((await first.json()) as { id: string }[])[0]!.id;
    const one = await call(`/notifications/threads/${thread}`, { token });
    const threadEtag = one.headers.get("etag")!;
    expect(threadEtag).toMatch(/^W\/"/);
    expect((await call(`/notifications/threads/${thread}`, { token, headers: { "if-none-match": threadEtag } })).status).toBe(304);
    await call(`/notifications/threads/${thread}`, { method: "PATCH", token });
    expect((await call(`/notifications/threads/${thread}`, { token, headers: { "if-none-match": threadEtag } })).status).toBe(200);
  });
});

describe("a JSON body that is not an object", () => {
  it("answers 400 Body should be a JSON object; text that is not JSON stays 'Problems parsing JSON'", async () => {
    const path = "/orgs/acme/artifacts/metadata/storage-record";
    for (const body of ["[]", '[{"name":"web"}]', '"text"', "42", "null", "true"]) {
      const answer = await call(path, { method: "POST", token: emu.tokens.admin, body, headers: { "content-type": "application/json" } });
      expect(answer.status, body).toBe(400);
      expect(((await answer.json()) as { message: string }).message, body).toBe("Body should be a JSON object");
    }
    const broken = await call(path, {
      method: "POST",
      token: emu.tokens.admin,
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { message: string }).message).toBe("Problems parsing JSON");
    // An object goes on to the schemas: here a missing field, 422.
    const object = await call(path, { method: "POST", token: emu.tokens.admin, body: "{}" });
    expect(object.status).toBe(422);
  });
});

describe("callers without credentials", () => {
  it("get 60 requests an hour by IP, then 403 with x-ratelimit-remaining 0, until the window ends on the emulator's clock", async () => {
    emu.rateLimits.reset();
    const first = await call("/events");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("59");
    for (let i = 1; i < 60; i++) expect((await call("/events")).status).toBe(200);
    const refused = await call("/events");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(((await refused.json()) as { message: string }).message).toMatch(/rate limit exceeded/i);
    // A token has its own limit, untouched by the address's.
    const withToken = await call("/events", { token: emu.tokens.admin });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("x-ratelimit-limit")).toBe("5000");

    emu.clock.advance(3_600_000);
    const next = await call("/events");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-remaining")).toBe("59");
    emu.clock.reset();
    emu.rateLimits.reset();
  });
});

describe("CORS", () => {
  it("answers a preflight from any origin on any path, before credentials, and allows every origin on answers", async () => {
    const preflight = await call("/orgs/acme/artifacts/metadata/deployment-record", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("if-none-match");
    // Not an API call: nothing counted against the address.
    emu.rateLimits.reset();
    await call("/notifications", { method: "OPTIONS", headers: { origin: "https://x.example" } });
    expect(emu.rateLimits.used("ip:127.0.0.1")).toBe(0);

    for (const answer of [
      await call("/repos/acme/web/events", { token: emu.tokens.admin, headers: { origin: "https://app.example.com" } }),
      await call("/notifications", { headers: { origin: "https://app.example.com" } }),
      await call("/no/such/path", { token: emu.tokens.admin }),
    ]) {
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    }
    const exposed = (await call("/events", { token: emu.tokens.admin })).headers.get("access-control-expose-headers")?.toLowerCase();
    for (const name of ["etag", "link", "x-ratelimit-remaining", "x-poll-interval"]) expect(exposed).toContain(name);
  });
});

describe("GET /rate_limit", () => {
  it("reports the caller's limits, with or without credentials, and does not count against them", async () => {
    emu.rateLimits.reset();
    const token = emu.tokens.admin!;
    await call("/events", { token });
    const before = await call("/rate_limit", { token });
    expect(before.status).toBe(200);
    const body = (await before.json()) as {
      resources: { core: { limit: number; used: number; remaining: number; reset: number } };
      rate: unknown;
    };
    expect(body.resources.core).toMatchObject({ limit: 5000, used: 1, remaining: 4999 });
    expect(body.rate).toEqual(body.resources.core);
    expect(before.headers.get("x-ratelimit-used")).toBe("1");
    for (let i = 0; i < 3; i++) await call("/rate_limit", { token });
    expect(emu.rateLimits.used("token:admin")).toBe(1);

    const anonymous = (await (await call("/rate_limit")).json()) as { resources: { core: { limit: number; used: number } } };
    expect(anonymous.resources.core).toMatchObject({ limit: 60, used: 0 });

    // Version 2026-03-10 drops the `rate` object (the OpenAPI's remove_rate_limit_rate change).
    const newer = (await (await call("/rate_limit", { token, headers: { "x-service-api-version": "2026-03-10" } })).json()) as object;
    expect(newer).not.toHaveProperty("rate");
    expect(newer).toHaveProperty("resources.core");

    // It answers when the limit is spent: that is how a caller learns when it resets.
    for (let i = 0; i < 60; i++) await call("/events");
    expect((await call("/events")).status).toBe(403);
    const spent = await call("/rate_limit");
    expect(spent.status).toBe(200);
    expect(((await spent.json()) as { resources: { core: { remaining: number } } }).resources.core.remaining).toBe(0);
    emu.rateLimits.reset();
  });
});

describe("GET /user", () => {
  it("the private view only for a classic token with the user scope, valid against the official private-user schema", async () => {
    const fixture = {
      ...defaultFixture,
      tokens: [
        ...(defaultFixture.tokens ?? []),
        { name: "classicUser", token: "emu_classic_user_00000000000000", type: "classic" as const, user: "octo", scopes: ["user"] },
      ],
    };
    const own = await startEmulator({ fixture, secondaryLimits: false });
    try {
      const answer = await fetch(`${own.url}/user`, { headers: { authorization: `Bearer ${own.tokens.classicUser}` } });
      const body = (await answer.json()) as { login: string; user_view_type: string };
      expect(answer.status).toBe(200);
      expect(body).toMatchObject({ login: "octo", user_view_type: "private", two_factor_authentication: true });
      expect(validateResponse("GET", "/user", 200, body)).toEqual([]);
    } finally {
      await own.stop();
    }
    const publicView = (await (await call("/user", { token: emu.tokens.classic })).json()) as Record<string, unknown>;
    expect(publicView).toMatchObject({ login: "octo", user_view_type: "public" });
    expect(publicView).not.toHaveProperty("two_factor_authentication");
    expect(validateResponse("GET", "/user", 200, publicView)).toEqual([]);
  });
});
