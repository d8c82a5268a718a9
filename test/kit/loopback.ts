// Small real servers on loopback that stand in for a service, a proxy or a network that misbehaves, and free ports.
// A test file that uses `listen` or `serve` calls `afterEach(closeLoopbackServers)`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

const servers: Server[] = [];
const sockets: Socket[] = [];

/** Closes every server and socket the test opened. */
export async function closeLoopbackServers(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections?.();
          s.close(r);
        }),
    ),
  );
}

/** Destroys the socket when the test ends (sockets a server keeps open on purpose, or tunnels). */
export function trackSocket(...opened: Socket[]): void {
  sockets.push(...opened);
}

/** Listens on a free loopback port; its http:// base URL. */
export async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An HTTP server on loopback answering with the handler; its base URL. */
export function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  return listen(createServer(handler));
}

/** A loopback port that was free a moment ago, for a program that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server holding a loopback port (so a program told to listen there meets EADDRINUSE); its port. */
export async function occupyPort(): Promise<number> {
  const server = createServer();
  await listen(server);
  return (server.address() as AddressInfo).port;
}
