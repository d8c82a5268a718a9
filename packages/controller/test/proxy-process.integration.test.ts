// The controller process behind an HTTPS proxy: with HTTPS_PROXY set every call to the service is tunnelled
// through the proxy; with the service's host in NO_PROXY none is. The service is the emulator behind a TLS front
// on this machine's non-loopback address (loopback is never proxied), with a certificate made here by openssl.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, describe, expect, it } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { REPO, converged, type Harness } from "./scenario-harness.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

/** An IPv4 address of this machine that is not loopback. */
const address = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

const closers: (() => unknown)[] = [];
let cluster: FakeCluster | undefined;
let emulator: Emulator | undefined;
const controllers: ControllerProcess[] = [];

afterEach(async () => {
  for (const p of controllers.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  for (const close of closers.splice(0)) await close();
  await emulator?.stop();
  await cluster?.stop();
});

/** A TLS front for the emulator on `host`: records the source port of every request it passes on. */
async function tlsFront(host: string, target: string, dir: string) {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "1",
      "-subj",
      `/CN=${host}`,
      "-addext",
      `subjectAltName=IP:${host}`,
    ],
    { stdio: "ignore" },
  );
  const sourcePorts: number[] = [];
  const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
    sourcePorts.push(req.socket.remotePort!);
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { url: `https://${host}:${(server.address() as { port: number }).port}`, sourcePorts, caFile: join(dir, "cert.pem") };
}

/** A CONNECT proxy on loopback: its log of tunnels, and the local ports of the connections it opened. */
async function connectProxy() {
  const tunnels: string[] = [];
  const upstreamPorts = new Set<number>();
  const sockets: Socket[] = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on("connect", (req: IncomingMessage, client: Socket) => {
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host!, () => {
      upstreamPorts.add(upstream.localPort!);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    sockets.push(client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, tunnels, upstreamPorts };
}

describe.skipIf(!address)("the controller process behind a proxy", () => {
  it("tunnels every call through HTTPS_PROXY, and none when the service's host is in NO_PROXY", async () => {
    cluster = await startFakeCluster({});
    emulator = await startEmulator({ port: 0 });
    const h = { cluster, emulator } as Harness;
    await cluster.script.ensureNamespace("shiplog");
    for (const name of ["web", "api"])
      await cluster.script.createDeployment({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO });
    const front = await tlsFront(address!, emulator.url, tempDir("shiplog-proxy-"));
    const proxy = await connectProxy();
    const env = { SHIPLOG_API_URL: front.url, NODE_EXTRA_CA_CERTS: front.caFile, HTTPS_PROXY: proxy.url };

    const proxied = startControllerProcess(cluster, emulator, env);
    controllers.push(proxied);
    await converged(h);
    await cluster.script.setImage("shop", "web", "ghcr.io/acme/web:1.1");
    await converged(h);
    expect(front.sourcePorts.length).toBeGreaterThanOrEqual(2);
    // Every call the service saw came over a connection the proxy opened; every tunnel went to the service.
    expect(front.sourcePorts.every((port) => proxy.upstreamPorts.has(port))).toBe(true);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(front.url).host]));
    proxied.child.kill("SIGKILL");

    const callsBefore = front.sourcePorts.length;
    const tunnelsBefore = proxy.tunnels.length;
    const direct = startControllerProcess(cluster, emulator, { ...env, NO_PROXY: address! });
    controllers.push(direct);
    await cluster.script.setImage("shop", "api", "ghcr.io/acme/api:1.1");
    await converged(h);
    expect(front.sourcePorts.length).toBeGreaterThan(callsBefore);
    expect(proxy.tunnels).toHaveLength(tunnelsBefore);
    expect(front.sourcePorts.slice(callsBefore).some((port) => proxy.upstreamPorts.has(port))).toBe(false);
  }, 60_000);
});
