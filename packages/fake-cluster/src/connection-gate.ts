import type { Server, Socket } from "node:net";

/** Owns the listening socket: can stop accepting (and drop every connection) and listen again on the same port. */
export class ConnectionGate {
  private readonly sockets = new Set<Socket>();
  private reopenTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly host: string,
    private port: number,
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
    clearTimeout(this.reopenTimer);
    const closing = this.server.listening ? new Promise<void>((resolve) => this.server.close(() => resolve())) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    await closing;
    if (forMs !== undefined && !this.closed) {
      this.reopenTimer = setTimeout(() => void this.listen().catch(() => undefined), forMs);
      this.reopenTimer.unref();
    }
  }

  /** Listens again now. */
  async accept(): Promise<void> {
    clearTimeout(this.reopenTimer);
    await this.listen();
  }

  /** Final shutdown. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.refuse();
  }
}
