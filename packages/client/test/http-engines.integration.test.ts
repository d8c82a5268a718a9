// How requests leave the client: undici's request API by default (redirects, decoding, proxies from the
// environment), or the caller's own fetch. Small real HTTP servers and a CONNECT proxy on loopback stand in for the
// service and the network; what depends on the process's environment runs in a child process.
import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, createServer as createTcpServer, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortedError,
  NetworkError,
  NotFoundError,
  RequestValidationError,
  ResponseValidationError,
  ShiplogClient,
  TimeoutError,
} from "@shiplog/client";
import { closeLoopbackServers, listen, serve, trackSocket } from "../../../test/kit/loopback.js";

const clientEntry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js")).href;
const TOKEN = "secret-token-never-elsewhere";
const fast = { retries: 2, minDelayMs: 1, maxDelayMs: 2 };
afterEach(closeLoopbackServers);

function json(res: ServerResponse, body: unknown): void {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

/** Accepts TCP and never answers: a TLS handshake against it never ends. */
async function silentTlsBase(): Promise<string> {
  const silent = createTcpServer((socket) => trackSocket(socket));
  return (await listen(silent as unknown as Server)).replace("http:", "https:");
}

/**
 * One GET /meta from a fresh process with this environment: its result's data, or its error's code and issues.
 * The child exits at once, whatever lookups or sockets are still pending.
 */
async function requestInChild(baseUrl: string, env: Record<string, string>, options = "{}"): Promise<unknown> {
  const script = `const { ShiplogClient } = await import(${JSON.stringify(clientEntry)});
    const transport = new ShiplogClient({ baseUrl: ${JSON.stringify(baseUrl)}, retry: false, timeoutMs: 3000, ...${options} });
    const result = await transport.request({ method: "GET", route: "/meta" }).then((r) => r.data, (e) => ({ error: e.code, issues: e.issues, message: e.message }));
    console.log(JSON.stringify(result));
    process.exit(0);`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH, NODE_NO_WARNINGS: "1", ...env },
    timeout: 8000,
  });
  return JSON.parse(stdout) as unknown;
}

describe("the default engine: redirects", () => {
  it("follows a redirect on the service and reports the URL that answered", async () => {
    const service = await serve((req, res) => {
      if (req.url === "/repos/acme/old-name") {
        res.writeHead(301, { location: "/repos/acme/web" }).end();
        return;
      }
      json(res, { full_name: "acme/web", authorization: req.headers.authorization });
    });
    const response = await new ShiplogClient({ baseUrl: service, token: TOKEN }).request({ method: "GET", route: "/repos/acme/old-name" });
    expect(response.url).toBe(`${service}/repos/acme/web`);
    expect(response.data).toEqual({ full_name: "acme/web", authorization: `Bearer ${TOKEN}` });
  });

  it("drops the token when a redirect leaves the service's origin", async () => {
    const seenElsewhere: (string | undefined)[] = [];
    const elsewhere = await serve((req, res) => {
      seenElsewhere.push(req.headers.authorization);
      json(res, { moved: true });
    });
    const service = await serve((_req, res) => res.writeHead(302, { location: `${elsewhere}/somewhere` }).end());
    const response = await new ShiplogClient({ baseUrl: service, token: TOKEN }).request({ method: "GET", route: "/repos/acme/web" });
    expect(response.data).toEqual({ moved: true });
    expect(seenElsewhere).toEqual([undefined]);
  });

  it("re-sends a POST and its body on 307, and turns it into a GET on 303", async () => {
    const seen: string[] = [];
    const service = await serve((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        if (req.url === "/repos/acme/old/git/tags") res.writeHead(307, { location: "/repos/acme/web/git/tags" }).end();
        else if (req.url === "/repos/acme/web/git/tags") res.writeHead(303, { location: "/repos/acme/web/git/tags/1" }).end();
        else json(res, { sha: "1" });
      });
    });
    const response = await new ShiplogClient({ baseUrl: service, token: TOKEN }).request({
      method: "POST",
      route: "/repos/acme/old/git/tags",
      body: { tag: "v1" },
    });
    expect(response.data).toEqual({ sha: "1" });
    expect(seen).toEqual([
      'POST /repos/acme/old/git/tags {"tag":"v1"}',
      'POST /repos/acme/web/git/tags {"tag":"v1"}',
      "GET /repos/acme/web/git/tags/1 ",
    ]);
  });

  it("follows 20 redirects, as fetch does, and fails on the 21st without retrying", async () => {
    let hops = 0;
    // Redirects /hop/N onward until N reaches the limit the path names.
    const service = await serve((req, res) => {
      hops++;
      const [, , limit, n] = (req.url ?? "").split("/").map(Number);
      if (n! < limit!) res.writeHead(302, { location: `/hop/${limit}/${n! + 1}` }).end();
      else json(res, { after: n });
    });
    const transport = new ShiplogClient({ baseUrl: service, retry: fast });
    expect((await transport.request({ method: "GET", route: "/hop/20/0" })).data).toEqual({ after: 20 });
    expect(hops).toBe(21);

    hops = 0;
    const error = await transport.request({ method: "GET", route: "/hop/21/0" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain("more than 20 redirects");
    expect(hops).toBe(21);
  });

  it("counts a 300 among the redirects, as undici follows it", async () => {
    let hops = 0;
    const service = await serve((req, res) => {
      hops++;
      res.writeHead(hops % 2 ? 300 : 302, { location: `/again${req.url}` }).end("choose");
    });
    const error = await new ShiplogClient({ baseUrl: service, retry: fast })
      .request({ method: "GET", route: "/x" })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain("more than 20 redirects");
    expect(hops).toBe(21);
  });
});

describe("the default engine: answers", () => {
  it("builds the answer's headers with every value kept", async () => {
    const service = await serve((_req, res) => {
      res.setHeader("x-poll-interval", "60");
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      json(res, []);
    });
    const response = await new ShiplogClient({ baseUrl: service }).request({ method: "GET", route: "/notifications" });
    expect(response.headers.get("x-poll-interval")).toBe("60");
    expect([...response.headers.keys()]).toContain("x-poll-interval");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("gives header bytes back as fetch does, one character a byte, even beside an error status", async () => {
    // Node's server writes a header string one byte a character: these are the UTF-8 bytes of é and of ☃.
    const utf8Bytes = (text: string) => Buffer.from(text, "utf8").toString("latin1");
    const service = await serve((req, res) => {
      res.setHeader("etag", utf8Bytes('W/"café"'));
      res.setHeader("x-note", utf8Bytes("snow ☃"));
      if (req.url === "/missing") res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
      else json(res, {});
    });
    const transport = new ShiplogClient({ baseUrl: service, retry: false });
    const viaFetch = await fetch(`${service}/meta`);
    const response = await transport.request({ method: "GET", route: "/meta" });
    expect(response.headers.get("etag")).toBe(viaFetch.headers.get("etag"));
    expect(response.headers.get("x-note")).toBe(viaFetch.headers.get("x-note"));
    expect(await transport.request({ method: "GET", route: "/missing" }).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  });

  const document = { ok: "yes", ünïcode: "✓" };
  const text = JSON.stringify(document);
  const encodings: [string, string | string[], Buffer][] = [
    ["gzip", "gzip", gzipSync(text)],
    ["deflate with the zlib wrapper", "deflate", deflateSync(text)],
    ["deflate without it", "deflate", deflateRawSync(text)],
    ["brotli", "br", brotliCompressSync(text)],
    ["gzip, then brotli", "gzip, br", brotliCompressSync(gzipSync(text))],
    ["gzip, then brotli, in two headers", ["gzip", "br"], brotliCompressSync(gzipSync(text))],
    ["gzip with a byte order mark inside", "gzip", gzipSync(`\ufeff${text}`)],
  ];
  it.each(encodings)("asks for compressed answers and decodes %s", async (_name, encoding, body) => {
    let asked: string | undefined;
    const service = await serve((req, res) => {
      asked = req.headers["accept-encoding"];
      res.setHeader("content-encoding", encoding);
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const response = await new ShiplogClient({ baseUrl: service }).request({ method: "GET", route: "/meta" });
    expect(asked).toBe("gzip, deflate, br");
    expect(response.data).toEqual(document);
  });

  it("leaves a body in a coding it does not know as it came, as fetch does", async () => {
    const service = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "none" }).end('{"ok":true}'),
    );
    expect((await new ShiplogClient({ baseUrl: service }).request({ method: "GET", route: "/meta" })).data).toEqual({ ok: true });
  });

  it("reads an empty gzip body as empty, and a cut-short one as far as it goes", async () => {
    const whole = gzipSync("0123456789".repeat(1000));
    const service = await serve((req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" }).end(req.url === "/empty" ? "" : whole.subarray(0, whole.length - 8));
    });
    const transport = new ShiplogClient({ baseUrl: service, retry: false });
    expect((await transport.request({ method: "GET", route: "/empty" })).data).toBeUndefined();
    expect((await transport.request({ method: "GET", route: "/cut" })).data).toBe("0123456789".repeat(1000));
  });

  it("refuses an answer that does not decode, once, rather than returning its bytes; an error status still wins", async () => {
    let hits = 0;
    const service = await serve((req, res) => {
      hits++;
      if (req.url === "/missing") res.writeHead(404, { "content-encoding": "gzip" }).end("not gzip at all");
      else res.writeHead(200, { "content-encoding": "gzip" }).end("not gzip either");
    });
    const transport = new ShiplogClient({ baseUrl: service, retry: fast });
    const undecodable = await transport.request({ method: "GET", route: "/meta" }).catch((e: unknown) => e);
    expect(undecodable).toBeInstanceOf(ResponseValidationError);
    expect(undecodable).toMatchObject({ code: "invalid_response", issues: [{ field: "(body)", rule: "content-encoding gzip" }] });
    expect((undecodable as Error).message).toContain("cannot be decoded");
    expect(hits).toBe(1);

    const missing = await transport.request({ method: "GET", route: "/missing" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});

describe("the default engine: proxies", () => {
  it("tunnels through the proxy HTTP_PROXY names, goes around it for NO_PROXY hosts, and never proxies loopback", async () => {
    const service = await serve((_req, res) => json(res, { ok: true }));
    const servicePort = new URL(service).port;
    // A CONNECT proxy that alone knows where service.test is.
    const tunnels: string[] = [];
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req: IncomingMessage, client: Socket) => {
      tunnels.push(req.url ?? "");
      const port = Number((req.url ?? "").split(":")[1]);
      const upstream = connect(port, "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client).pipe(upstream);
      });
      trackSocket(client, upstream);
    });
    const proxyUrl = await listen(proxy);
    const remote = `http://service.test:${servicePort}`;

    expect(await requestInChild(remote, { HTTP_PROXY: proxyUrl })).toEqual({ ok: true });
    expect(tunnels).toEqual([`service.test:${servicePort}`]);

    // service.test resolves nowhere but through the proxy: going around it fails.
    expect(await requestInChild(remote, { HTTP_PROXY: proxyUrl, NO_PROXY: "service.test" })).toMatchObject({
      error: expect.stringMatching(/network_error|timeout/),
    });
    expect(await requestInChild(service, { HTTP_PROXY: proxyUrl })).toEqual({ ok: true });
    expect(tunnels).toHaveLength(1);
  });

  it("names a proxy variable that is not an http(s) URL, without showing its value, and still reaches loopback", async () => {
    const service = await serve((_req, res) => json(res, { ok: true }));
    const env = { HTTPS_PROXY: "proxy.corp:3128", HTTP_PROXY: "socks5://user:secret-password@proxy.corp:1080" };
    const refused = (await requestInChild("https://service.test", env)) as { error: string; issues: unknown[]; message: string };
    expect(refused).toMatchObject({
      error: "invalid_request",
      issues: [
        { field: "HTTP_PROXY", rule: "http(s) proxy URL" },
        { field: "HTTPS_PROXY", rule: "http(s) proxy URL" },
      ],
    });
    expect(refused.message).not.toContain("secret-password");
    expect(await requestInChild(service, env)).toEqual({ ok: true });

    // As undici reads them, an empty lower-case variable hides the upper-case one: no proxy, so nothing to refuse.
    const hidden = await requestInChild("http://service.test", { http_proxy: "", HTTP_PROXY: "proxy.corp:3128" });
    expect(hidden).toMatchObject({ error: expect.stringMatching(/network_error|timeout/) });
  });
});

describe("the default engine: timeouts and aborts", () => {
  it("times out, and stops at the caller's abort, while the connection is still being set up", async () => {
    const base = await silentTlsBase();
    const timedOut = await new ShiplogClient({ baseUrl: base, timeoutMs: 200, retry: false })
      .request({ method: "GET", route: "/meta" })
      .catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TimeoutError);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await new ShiplogClient({ baseUrl: base, retry: false })
      .request({ method: "GET", route: "/meta", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(AbortedError);
    // Left to undici, each would settle only at its 10 s connect timeout: this bound is what fails then.
  }, 8000);

  it("times out on a process's first request, when the timeout fires while the engine is still loading", async () => {
    // 1 ms is over before undici has loaded: the attempt starts with its signal already aborted. The child is
    // given 8 s, less than undici's 10 s connect timeout.
    expect(await requestInChild(await silentTlsBase(), {}, "{ timeoutMs: 1 }")).toMatchObject({ error: "timeout" });
  });
});

describe("header values and names", () => {
  it("a token read from a file, final newline and all, is sent trimmed", async () => {
    const service = await serve((req, res) => json(res, { authorization: req.headers.authorization }));
    const response = await new ShiplogClient({ baseUrl: service, token: `${TOKEN}\n` }).request({ method: "GET", route: "/meta" });
    expect(response.data).toEqual({ authorization: `Bearer ${TOKEN}` });
  });

  it("a token or header that cannot be sent is refused before anything is, naming it and never echoing it", async () => {
    let requests = 0;
    const service = await serve((_req, res) => {
      requests++;
      json(res, {});
    });
    const refused = (() => {
      try {
        new ShiplogClient({ baseUrl: service, token: `${TOKEN}\nX-Injected: 1` });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused).toMatchObject({ code: "invalid_request", issues: [{ field: "token", rule: "header value" }] });
    expect(JSON.stringify(refused) + String(refused) + (refused as Error).stack).not.toContain(TOKEN);

    const transport = new ShiplogClient({ baseUrl: service, retry: fast });
    const cases: [Record<string, string>, { field: string; rule: string }][] = [
      [{ "if-none-match": 'W/"a"\r\nX-Injected: 1' }, { field: "headers.if-none-match", rule: "header value" }],
      [{ "x-note": "5 €" }, { field: "headers.x-note", rule: "header value" }],
      [{ "x bad": "1" }, { field: "headers.x bad", rule: "header name" }],
      [{ Connection: "upgrade" }, { field: "headers.Connection", rule: "not a connection header" }],
    ];
    for (const [headers, issue] of cases) {
      const error = await transport.request({ method: "GET", route: "/meta", headers }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "invalid_request", issues: [issue] });
    }
    expect(requests).toBe(0);
    expect((await transport.request({ method: "GET", route: "/meta", headers: { Connection: "close" } })).data).toEqual({});
    expect(requests).toBe(1);
  });
});

describe("a caller's fetch", () => {
  it("is the one that sends every attempt", async () => {
    let attempts = 0;
    const service = await serve((_req, res) => {
      attempts++;
      if (attempts === 1) res.writeHead(503, { "retry-after": "0" }).end();
      else json(res, { ok: true });
    });
    const sentThrough: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      sentThrough.push(String(input));
      return fetch(input, init);
    };
    const transport = new ShiplogClient({
      baseUrl: service,
      token: TOKEN,
      fetch: countingFetch,
      retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
    });
    const response = await transport.request({ method: "GET", route: "/meta" });
    expect(response.data).toEqual({ ok: true });
    expect(sentThrough).toEqual([`${service}/meta`, `${service}/meta`]);
  });
});
