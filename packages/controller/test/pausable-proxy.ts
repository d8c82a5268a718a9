// An HTTP proxy in front of the fake cluster for one client only: `cut()` makes it answer nothing (requests hang, as
// through a network partition) until `restore()`, so one candidate can lose the API server while others keep it.
// `onRequest` sees each request (path and query) before it is forwarded, which waits for it.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface PausableProxy {
  url: string;
  /** A kubeconfig (YAML) like `kubeconfig` but pointing at the proxy. */
  kubeconfigFor(kubeconfig: string, target: string): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(target: string, onRequest: (url: URL) => void | Promise<void> = () => {}): Promise<PausableProxy> {
  const upstream = new URL(target);
  let cut = false;
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    await onRequest(new URL(req.url ?? "/", target));
    if (cut) {
      held.push(res);
      return;
    }
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
  };
  const server = createServer((req, res) => void forward(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeconfigFor: (kubeconfig, from) => kubeconfig.split(from).join(url),
    cut: () => {
      cut = true;
    },
    restore: () => {
      cut = false;
      for (const res of held.splice(0)) res.destroy();
    },
    close: async () => {
      for (const res of held.splice(0)) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
