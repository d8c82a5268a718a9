// Answers the emulator does not give on purpose: a Link to another host, a body that stalls or breaks off.
// Small real HTTP servers on loopback stand in for a misbehaving service or proxy.
import { afterEach, describe, expect, it } from "vitest";
import { ForeignUrlError, NetworkError, RequestValidationError, ShiplogClient, TimeoutError } from "@shiplog/client";
import { signal } from "../../../test/kit/events.js";
import { closeLoopbackServers, serve } from "../../../test/kit/loopback.js";
import { actingClock, VirtualClock } from "../../../test/kit/virtual-clock.js";

afterEach(closeLoopbackServers);

const TOKEN = "secret-token-never-elsewhere";
const fast = { retries: 2, minDelayMs: 1, maxDelayMs: 2 };

describe("the token only goes to the service", () => {
  it("refuses to follow a pagination Link to another host", async () => {
    const seenElsewhere: (string | undefined)[] = [];
    const elsewhere = await serve((req, res) => {
      seenElsewhere.push(req.headers.authorization);
      res.end("[]");
    });
    const service = await serve((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.setHeader("link", `<${elsewhere}/repos/acme/web/issues/events?page=2>; rel="next"`);
      res.end("[]");
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, retry: false });
    const error = await (async () => {
      for await (const _ of client.issueEvents.listForRepo({ owner: "acme", repo: "web" })) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForeignUrlError);
    expect(error).toMatchObject({ code: "foreign_url" });
    expect(seenElsewhere).toEqual([]);
  });

  it("follows a Link on the same service", async () => {
    let calls = 0;
    const service = await serve((req, res) => {
      calls++;
      res.setHeader("content-type", "application/json");
      if (!req.url?.includes("page=2"))
        res.setHeader("link", `<http://${req.headers.host}/repos/acme/web/issues/events?page=2>; rel="next"`);
      res.end("[]");
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, retry: false });
    for await (const _ of client.issueEvents.listForRepo({ owner: "acme", repo: "web" })) void _;
    expect(calls).toBe(2);
  });
});

describe("paging follows a next link whose URL holds commas and semicolons", () => {
  /** Three pages of issue events; each `next` URL carries a cursor with a comma and a semicolon. */
  async function pagedService(seen: string[]): Promise<string> {
    return serve((req, res) => {
      seen.push(req.url ?? "");
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const base = `http://${req.headers.host}/repos/acme/web/issues/events`;
      const links = [`<${base}?page=3&cursor=z,9;q>; rel="last"`];
      if (page < 3) links.unshift(`<${base}?page=${page + 1}&cursor=a,${page};b>; rel="next"`);
      res.setHeader("content-type", "application/json");
      res.setHeader("link", links.join(", "));
      res.end(JSON.stringify([issueEvent(4 - page)])); // newest first
    });
  }

  it("a listing reads every page", async () => {
    const seen: string[] = [];
    const client = new ShiplogClient({ baseUrl: await pagedService(seen), token: TOKEN, retry: false });
    const ids: number[] = [];
    for await (const event of client.issueEvents.listForRepo({ owner: "acme", repo: "web" })) ids.push(event.id);
    expect(ids).toEqual([3, 2, 1]);
    expect(seen.slice(1).map((url) => new URL(url, "http://x").searchParams.get("cursor"))).toEqual(["a,1;b", "a,2;b"]);
  });

  it("a poller pages back through them too", async () => {
    const seen: string[] = [];
    const client = new ShiplogClient({ baseUrl: await pagedService(seen), token: TOKEN, retry: false });
    const stop = new AbortController();
    const ids: number[] = [];
    const poller = client.issueEvents.poll({ owner: "acme", repo: "web" }, { signal: stop.signal, clock: actingClock(() => stop.abort()) });
    for await (const event of poller) ids.push(event.id);
    expect(ids).toEqual([1, 2, 3]);
  });
});

describe("a body that fails mid-way is a typed error, retried when safe", () => {
  it("a body that breaks off is a network error, and the request is tried again", async () => {
    let calls = 0;
    const service = await serve((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      // Broken off once the first part of the body is on the wire (TCP delivers it before the connection's end).
      res.write('{"storage_records": [', () => res.socket?.destroy());
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, retry: fast });
    const error = await client.artifacts
      .listStorageRecords({ org: "acme", subject_digest: `sha256:${"a".repeat(64)}` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(calls).toBe(3);
  });

  it("a body that stalls past the timeout is a timeout", async () => {
    // The answer's head and one byte arrive, then nothing: an hour passes on the injected clock only.
    const stalled = signal();
    const service = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[", () => stalled.resolve());
    });
    const clock = new VirtualClock();
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, timeoutMs: 3_600_000, retry: false, clock });
    const pending = client.artifacts
      .listStorageRecords({ org: "acme", subject_digest: `sha256:${"a".repeat(64)}` })
      .catch((e: unknown) => e);
    await stalled.promise;
    await clock.advance(3_600_000);
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(JSON.stringify(error) + String(error)).not.toContain(TOKEN);
  });
});

describe("client options are checked when the client is made", () => {
  it.each([
    [{ baseUrl: "api.example.com" }, "baseUrl"],
    [{ baseUrl: "ftp://example.com" }, "baseUrl"],
    [{ baseUrl: "https://robot:secret@api.example.com" }, "baseUrl"],
    [{ retry: { retries: -3 } }, "retry.retries"],
    [{ timeoutMs: 0 }, "timeoutMs"],
  ])("%o", (options, field) => {
    const error = (() => {
      try {
        new ShiplogClient(options);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.field)).toContain(field);
  });
});

function issueEvent(id: number) {
  const actor = {
    login: "octo",
    id: 1,
    node_id: "U",
    avatar_url: "a",
    gravatar_id: "",
    url: "u",
    html_url: "h",
    type: "User",
    site_admin: false,
  };
  return {
    id,
    node_id: `IE${id}`,
    url: `u/${id}`,
    actor,
    event: "closed",
    commit_id: null,
    commit_url: null,
    created_at: `2026-01-0${id}T00:00:00Z`,
  };
}
