// The manager, in the shape of controller-runtime's (pkg/manager/runnable_group.go): the controller's parts are
// runnables in three groups. Started in order: the caches, then what runs on every replica, then, while this
// replica leads, the leader-only group, which the leadership starts and stops (as often as leadership comes and goes:
// a deposed leader campaigns again). Stopped in the reverse order: the leader-only group first (a leader sends what
// is pending and writes its state while it still holds the lease), then every replica's runnables, the caches, and
// the Lease is released last so a standby takes over at once.
import type { Logger } from "pino";
import type { Leadership } from "./election/leadership.js";

/** The groups of runnables, in start order. */
export type RunnableGroupName = "caches" | "always" | "leader";

/** Why a runnable is stopped. */
export interface StopContext {
  /** The manager is stopping (SIGTERM, or the embedder), rather than leadership lost. */
  shutdown: boolean;
  /** Why leadership ended, or "shutdown". */
  reason: string;
  /** On shutdown: send what is pending first, bounded by `timeoutMs`. */
  flush?: boolean;
  timeoutMs?: number;
}

/** A part the manager starts and stops. */
export interface Runnable {
  readonly name: string;
  start(): void | Promise<void>;
  stop(context: StopContext): void | Promise<void>;
}

/** Runnables started in order and stopped in reverse; a start or stop waits for the one before it. */
class RunnableGroup {
  readonly #runnables: Runnable[] = [];
  #started: Runnable[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: RunnableGroupName,
    private readonly logger: Logger,
  ) {}

  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
  }

  /** Starts every runnable in order (no-op when started); a failure stops those already started and rejects. */
  start(): Promise<void> {
    return this.#serial(async () => {
      if (this.#started.length > 0) return;
      for (const runnable of this.#runnables) {
        try {
          await runnable.start();
        } catch (error) {
          await this.#stopStarted({ shutdown: false, reason: `${runnable.name} failed to start` });
          throw error;
        }
        this.#started.push(runnable);
      }
    });
  }

  /** Stops the started runnables in reverse order; one failing to stop is logged and the others still stop. */
  stop(context: StopContext): Promise<void> {
    return this.#serial(() => this.#stopStarted(context));
  }

  async #stopStarted(context: StopContext): Promise<void> {
    const started = this.#started.reverse();
    this.#started = [];
    for (const runnable of started) {
      try {
        await runnable.stop(context);
      } catch (error) {
        this.logger.warn(
          { err: (error as Error).message, runnable: runnable.name, group: this.name },
          "stopping a part of the controller failed",
        );
      }
    }
  }

  #serial(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** Runs the controller's runnables by group; the leadership starts and stops the leader-only group. */
export class Manager {
  readonly #groups: Record<RunnableGroupName, RunnableGroup>;
  #stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly leadership: Leadership,
  ) {
    this.#groups = {
      caches: new RunnableGroup("caches", logger),
      always: new RunnableGroup("always", logger),
      leader: new RunnableGroup("leader", logger),
    };
  }

  /** Adds a runnable to a group (before start). */
  add(group: RunnableGroupName, runnable: Runnable): this {
    this.#groups[group].add(runnable);
    return this;
  }

  /** Starts the caches and every replica's runnables, then campaigns: leading starts the leader-only group. */
  async start(): Promise<void> {
    await this.#groups.caches.start();
    try {
      await this.#groups.always.start();
    } catch (error) {
      await this.#groups.caches.stop({ shutdown: true, reason: "start failed" });
      throw error;
    }
    this.leadership.start({
      onStartedLeading: () => {
        if (this.#stopping) return;
        this.#groups.leader
          .start()
          .catch((error: unknown) => this.logger.error({ err: (error as Error).message }, "starting to lead failed"));
      },
      onStoppedLeading: (reason) => {
        if (!this.#stopping) void this.#groups.leader.stop({ shutdown: false, reason });
      },
    });
  }

  /** Stops every group in reverse order, then releases the Lease. */
  async stop(options: { flush?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const context: StopContext = { shutdown: true, reason: "shutdown", ...options };
    await this.#groups.leader.stop(context);
    await this.#groups.always.stop(context);
    await this.#groups.caches.stop(context);
    await this.leadership.stop({ release: true });
  }
}
