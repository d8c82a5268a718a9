// Answers the emulator does not give on purpose: a Link to another host, a body that stalls or breaks off.
// Small real HTTP servers on loopback stand in for a misbehaving service or proxy.
import { afterEach, describe, expect, it } from "vitest";
import { ForeignUrlError, NetworkError, RequestValidationError, ShiplogClient, TimeoutError } from "@shiplog/client";
import { closeLoopbackServers, serve } from "./loopback-servers.js";

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
      if (!req.url?.includes("page=2")) res.setHeader("link", `<http://${req.headers.host}/repos/acme/web/issues/events?page=2>; rel="next"`);
      res.end("[]");
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, retry: false });
    for await (const _ of client.issueEvents.listForRepo({ owner: "acme", repo: "web" })) void _;
    expect(calls).toBe(2);
  });
});

describe("a body that fails mid-way is a typed error, retried when safe", () => {
  it("a body that breaks off is a network error, and the request is tried again", async () => {
    let calls = 0;
    const service = await serve((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"storage_records": [');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, retry: fast });
    const error = await client.artifacts.listStorageRecords({ org: "acme", subject_digest: `sha256:${"a".repeat(64)}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(calls).toBe(3);
  });

  it("a body that stalls past the timeout is a timeout", async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
    });
    const client = new ShiplogClient({ baseUrl: service, token: TOKEN, timeoutMs: 100, retry: false });
    const error = await client.artifacts.listStorageRecords({ org: "acme", subject_digest: `sha256:${"a".repeat(64)}` }).catch((e: unknown) => e);
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
