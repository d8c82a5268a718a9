import type { Server, Socket } from "node:net";
import type { ClusterClock } from "./cluster-clock.js";

/** Owns the listening socket: can stop accepting (and drop every connection) and listen again on the same port. */
export class ConnectionGate {
  private readonly sockets = new Set<Socket>();
  /** Cancels the pending reopening, if any. */
  private cancelReopen = (): void => {};
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly host: string,
    private port: number,
    private readonly clock: ClusterClock,
  ) {
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  /** Listens (initially, or again after `refuse`); resolves with the port. */
  async listen(): Promise<number> {
    if (this.server.listening) return this.port;
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once("error", onError);
      this.server.listen(this.port, this.host, () => {
        this.server.off("error", onError);
        resolve();
      });
    });
    const address = this.server.address();
    if (address && typeof address === "object") this.port = address.port;
    return this.port;
  }

  /** Stops listening and destroys all open connections; `forMs` listens again after that long. */
  async refuse(forMs?: number): Promise<void> {
    this.cancelReopen();
    const closing = this.server.listening ? new Promise<void>((resolve) => this.server.close(() => resolve())) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    await closing;
    if (forMs !== undefined && !this.closed) {
      this.cancelReopen = this.clock.after(forMs, () => void this.listen().catch(() => undefined));
    }
  }

  /** Listens again now. */
  async accept(): Promise<void> {
    this.cancelReopen();
    await this.listen();
  }

  /** Final shutdown. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.refuse();
  }
}
