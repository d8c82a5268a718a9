// A small manager in the manner of controller-runtime's: the controller's parts are runnables, started in the order
// they were added and stopped in the reverse order, so what depends on another part stops before it.
import type { Logger } from "pino";

/** A part the manager starts and stops. */
export interface Runnable {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** Starts runnables in order, stops them in reverse. */
export class Manager {
  readonly #runnables: Runnable[] = [];
  #started: Runnable[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds a runnable (before start). */
  add(runnable: Runnable): this {
    this.#runnables.push(runnable);
    return this;
  }

  /** Starts every runnable in order; a failure stops those already started and is rethrown. */
  async start(): Promise<void> {
    for (const runnable of this.#runnables) {
      try {
        await runnable.start();
      } catch (error) {
        await this.stop();
        throw error;
      }
      this.#started.push(runnable);
    }
  }

  /** Stops the started runnables in reverse order; one failing to stop is logged and the others still stop. */
  async stop(): Promise<void> {
    const started = this.#started.reverse();
    this.#started = [];
    for (const runnable of started) {
      try {
        await runnable.stop();
      } catch (error) {
        this.logger.warn({ err: (error as Error).message, runnable: runnable.name }, "stopping a part of the controller failed");
      }
    }
  }
}
