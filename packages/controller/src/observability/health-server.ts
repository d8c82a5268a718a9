// /healthz (the flush loop is alive), /readyz (caches synced, and leading with a first flush done or standing by when
// standbys count as ready) and /metrics (Prometheus).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "../clock.js";
import type { ControllerMetrics } from "./metrics.js";

/** What the health server reads (the Controller). */
export interface HealthSource {
  status(): { started: boolean; lastTickAt: number; leading: boolean };
  notReadyReason(): string | undefined;
  readonly metrics: Pick<ControllerMetrics, "registry">;
}

/** A running health and metrics server. */
export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the health and metrics server for a controller. `staleAfterMs`: a loop silent this long is unhealthy. */
export async function startHealthServer(
  controller: HealthSource,
  options: { host: string; port: number; staleAfterMs: number; now?: () => number },
): Promise<HealthServer> {
  const now = options.now ?? systemClock.now;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const reply = (status: number, body: string, type = "text/plain; charset=utf-8"): void => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "method not allowed\n");
    if (path === "/healthz") {
      const status = controller.status();
      const alive = !status.started || status.lastTickAt === 0 || now() - status.lastTickAt < options.staleAfterMs;
      return reply(alive ? 200 : 503, alive ? "ok\n" : "flush loop stalled\n");
    }
    if (path === "/readyz") {
      const reason = controller.notReadyReason();
      if (reason !== undefined) return reply(503, `${reason}\n`);
      return reply(200, controller.status().leading ? "ok: leader\n" : "ok: standby\n");
    }
    if (path === "/metrics") {
      controller.metrics.registry.metrics().then(
        (text) => reply(200, text, controller.metrics.registry.contentType),
        (error: Error) => reply(500, `${error.message}\n`),
      );
      return;
    }
    reply(404, "not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
