// How requests leave the client: undici's request API by default (redirects, proxies from the environment), or the
// caller's own fetch. Small real HTTP servers and a CONNECT proxy on loopback stand in for the service and network.
import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { Transport } from "@shiplog/client";

const clientEntry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js")).href;
const TOKEN = "secret-token-never-elsewhere";
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
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
    expect(response.headers).toBeInstanceOf(Headers);
    expect(response.headers.get("x-poll-interval")).toBe("60");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("goes through the proxy HTTPS_PROXY names, and around it for hosts in NO_PROXY", async () => {
    const service = await serve((_req, res) => json(res, { ok: true }));
    const tunnels: string[] = [];
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req: IncomingMessage, client: Socket) => {
      tunnels.push(req.url ?? "");
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host!, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client).pipe(upstream);
      });
      sockets.push(client, upstream);
    });
    const proxyUrl = await listen(proxy);
    // The proxy is chosen once per process, from the environment it starts with.
    const script = `const { Transport } = await import(${JSON.stringify(clientEntry)});
      const response = await new Transport({ baseUrl: ${JSON.stringify(service)} }).request({ method: "GET", route: "/meta" });
      console.log(JSON.stringify(response.data));`;
    const run = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { env: { PATH: process.env["PATH"], ...env } });

    const proxied = await run({ HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl });
    expect(JSON.parse(proxied.stdout)).toEqual({ ok: true });
    expect(tunnels).toEqual([new URL(service).host]);

    const direct = await run({ HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl, NO_PROXY: "127.0.0.1" });
    expect(JSON.parse(direct.stdout)).toEqual({ ok: true });
    expect(tunnels).toHaveLength(1);
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
