// A reverse HTTP proxy on loopback in front of one server (a fake cluster, an emulator, a real API server over TLS
// with a client certificate) for one client: it records every request, and its answer's status and (when asked) body,
// and lets a hook see (and hold) each one before it is forwarded. Answers stream through as they come (watches).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";

/** One request the proxy received: its method and its path with the query, then its answer. */
export interface ProxiedRequest {
  method: string;
  url: string;
  /** Its Content-Type and Accept headers. */
  contentType?: string;
  accept?: string;
  /** The answer's status, once its headers came. */
  status?: number;
  /** The answer's body (with `recordBodies`, for answers that are not watches). */
  body?: string;
}

/** A running proxy. */
export interface TestProxy {
  url: string;
  /** Requests received so far, in order. */
  requests: ProxiedRequest[];
  /** A kubeconfig (YAML) like `kubeconfig`, with the server `target` replaced by the proxy. */
  kubeconfigFor(kubeconfig: string, target: string): string;
  close(): Promise<void>;
}

/** Options of a proxy. */
export interface ProxyOptions {
  /** Sees each request (its URL against the target) before it is forwarded; forwarding waits for it. */
  onRequest?: (url: URL) => void | Promise<void>;
  /** For an https target: the CA to trust and the client certificate to present. */
  tls?: { ca: string; cert: Buffer | string; key: Buffer | string };
  /** Keep the body of every answer that is not a watch. */
  recordBodies?: boolean;
}

/** Starts a proxy on 127.0.0.1 that forwards to `target`. */
export async function startProxy(target: string, options: ProxyOptions = {}): Promise<TestProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry: ProxiedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      ...(req.headers["content-type"] && { contentType: req.headers["content-type"] }),
      ...(req.headers.accept && { accept: req.headers.accept }),
    };
    requests.push(entry);
    await options.onRequest?.(new URL(req.url ?? "/", target));
    const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
    const out = send(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        ...(options.tls && { ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key }),
      },
      (answer) => {
        entry.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        if (options.recordBodies && !/[?&]watch=(true|1)/.test(entry.url)) {
          let body = "";
          answer.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
          answer.on("end", () => (entry.body = body));
        }
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
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
    requests,
    kubeconfigFor: (kubeconfig, from) => kubeconfig.split(from).join(url),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
