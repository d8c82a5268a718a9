// How requests leave the client: undici's request API by default (redirects, proxies from the environment), or the
// caller's own fetch. Small real HTTP servers and a CONNECT proxy on loopback stand in for the service and network.
import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, createServer as createTcpServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { AbortedError, NetworkError, RequestValidationError, TimeoutError, Transport } from "@shiplog/client";

const clientEntry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js")).href;
const TOKEN = "secret-token-never-elsewhere";
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); })));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  return listen(createServer(handler));
}

function json(res: ServerResponse, body: unknown): void {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

describe("the default engine", () => {
  it("follows a redirect on the service and reports the URL that answered", async () => {
    const service = await serve((req, res) => {
      if (req.url === "/repos/acme/old-name") {
        res.writeHead(301, { location: "/repos/acme/web" }).end();
        return;
      }
      json(res, { full_name: "acme/web", authorization: req.headers.authorization });
    });
    const response = await new Transport({ baseUrl: service, token: TOKEN }).request({ method: "GET", route: "/repos/acme/old-name" });
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
    const response = await new Transport({ baseUrl: service, token: TOKEN }).request({ method: "GET", route: "/repos/acme/web" });
    expect(response.data).toEqual({ moved: true });
    expect(seenElsewhere).toEqual([undefined]);
  });

  it("builds the answer's headers when they are read, all values kept", async () => {
    const service = await serve((_req, res) => {
      res.setHeader("x-poll-interval", "60");
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      json(res, []);
    });
    const response = await new Transport({ baseUrl: service }).request({ method: "GET", route: "/notifications" });
    expect([...response.headers.keys()]).toContain("x-poll-interval");
    expect(response.headers.get("x-poll-interval")).toBe("60");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("goes through the proxy HTTP_PROXY names, around it for NO_PROXY hosts, and never for loopback", async () => {
    const service = await serve((_req, res) => json(res, { ok: true }));
    const servicePort = new URL(service).port;
    // A forward proxy: plain http arrives in absolute form; it alone knows where service.test is.
    const forwarded: string[] = [];
    const proxyUrl = await serve((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? "");
      fetch(`http://127.0.0.1:${target.port}${target.pathname}`)
        .then(async (upstream) => res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text()))
        .catch(() => res.writeHead(502).end());
    });
    // The proxy is chosen once per process, from the environment it starts with.
    const run = async (baseUrl: string, env: Record<string, string>) => {
      const script = `const { Transport } = await import(${JSON.stringify(clientEntry)});
        const transport = new Transport({ baseUrl: ${JSON.stringify(baseUrl)}, retry: false, timeoutMs: 3000 });
        console.log(JSON.stringify(await transport.request({ method: "GET", route: "/meta" }).then((r) => r.data, (e) => ({ error: e.code }))));`;
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        env: { PATH: process.env["PATH"], NODE_NO_WARNINGS: "1", ...env },
      });
      return JSON.parse(stdout) as unknown;
    };

    expect(await run(`http://service.test:${servicePort}`, { HTTP_PROXY: proxyUrl })).toEqual({ ok: true });
    expect(forwarded).toEqual([`GET http://service.test:${servicePort}/meta`]);

    // service.test resolves nowhere but through the proxy: going around it fails.
    expect(await run(`http://service.test:${servicePort}`, { HTTP_PROXY: proxyUrl, NO_PROXY: "service.test" })).toMatchObject({ error: expect.stringMatching(/network_error|timeout/) });
    expect(await run(service, { HTTP_PROXY: proxyUrl })).toEqual({ ok: true });
    expect(forwarded).toHaveLength(1);
  });

  it("asks for compressed answers and decodes them", async () => {
    const service = await serve((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(JSON.stringify({ asked: req.headers["accept-encoding"] })));
    });
    const response = await new Transport({ baseUrl: service }).request({ method: "GET", route: "/meta" });
    expect(response.data).toEqual({ asked: "gzip, deflate, br" });
  });

  it("refuses an answer in an encoding it cannot decode, rather than returning its bytes", async () => {
    const service = await serve((_req, res) => res.writeHead(200, { "content-encoding": "zstd" }).end("\x28\xb5\x2f\xfd"));
    const error = await new Transport({ baseUrl: service, retry: false }).request({ method: "GET", route: "/meta" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain("zstd");
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
    const response = await new Transport({ baseUrl: service, token: TOKEN }).request({ method: "POST", route: "/repos/acme/old/git/tags", body: { tag: "v1" } });
    expect(response.data).toEqual({ sha: "1" });
    expect(seen).toEqual(['POST /repos/acme/old/git/tags {"tag":"v1"}', 'POST /repos/acme/web/git/tags {"tag":"v1"}', "GET /repos/acme/web/git/tags/1 "]);
  });

  it("gives up after 20 redirects with a network error, as fetch does", async () => {
    let hops = 0;
    const service = await serve((_req, res) => {
      hops++;
      res.writeHead(302, { location: `/loop/${hops}` }).end();
    });
    const error = await new Transport({ baseUrl: service, retry: false }).request({ method: "GET", route: "/loop" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(hops).toBe(21);
  });

  it("times out, and stops at the caller's abort, while the connection is still being set up", async () => {
    // Accepts TCP and never answers the TLS handshake.
    const silent = createTcpServer((socket) => sockets.push(socket));
    const base = (await listen(silent as unknown as Server)).replace("http:", "https:");
    const timedOut = await new Transport({ baseUrl: base, timeoutMs: 200, retry: false }).request({ method: "GET", route: "/meta" }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TimeoutError);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await new Transport({ baseUrl: base, retry: false }).request({ method: "GET", route: "/meta", signal: controller.signal }).catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(AbortedError);
    // Left to undici, each would settle only at its 10 s connect timeout: this bound is what fails then.
  }, 8000);
});

describe("header values", () => {
  it("a token read from a file, final newline and all, is sent trimmed", async () => {
    const service = await serve((req, res) => json(res, { authorization: req.headers.authorization }));
    const response = await new Transport({ baseUrl: service, token: `${TOKEN}\n` }).request({ method: "GET", route: "/meta" });
    expect(response.data).toEqual({ authorization: `Bearer ${TOKEN}` });
  });

  it("a token or header with a line break inside is refused before anything is sent, without echoing it", async () => {
    let requests = 0;
    const service = await serve((_req, res) => {
      requests++;
      json(res, {});
    });
    const refused = (() => {
      try {
        new Transport({ baseUrl: service, token: `${TOKEN}\nX-Injected: 1` });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused).toMatchObject({ code: "invalid_request", issues: [{ field: "token", rule: "header value" }] });
    expect(JSON.stringify(refused) + String(refused) + (refused as Error).stack).not.toContain(TOKEN);

    const badHeader = await new Transport({ baseUrl: service })
      .request({ method: "GET", route: "/meta", headers: { "if-none-match": 'W/"a"\r\nX-Injected: 1' } })
      .catch((e: unknown) => e);
    expect(badHeader).toMatchObject({ code: "invalid_request", issues: [{ field: "headers.if-none-match", rule: "header value" }] });
    expect(requests).toBe(0);
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
    const transport = new Transport({ baseUrl: service, token: TOKEN, fetch: countingFetch, retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 } });
    const response = await transport.request({ method: "GET", route: "/meta" });
    expect(response.data).toEqual({ ok: true });
    expect(sentThrough).toEqual([`${service}/meta`, `${service}/meta`]);
  });
});
