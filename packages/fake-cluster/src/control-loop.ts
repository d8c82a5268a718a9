/** A handler reconciles one queued item (an object key or uid); it must be idempotent. */
export type Reconcile = (id: string) => void;

/** Items run between two checks of the back-pressure signal. */
const PRESSURE_CHECK = 100;
/**
 * Most time one batch runs: requests wait for the batch to end (an API server serves them beside its controllers),
 * so a write's answer comes within this much of simulation work, not a batch of 2,000 items (seconds, mid-rollout
 * at 150,000 pods).
 */
const SLICE_MS = 20;

/**
 * The simulation's single work queue: controllers, garbage collector and kubelet enqueue work on store events;
 * work runs in batches on the event loop (HTTP keeps being served in between; a batch ends after SLICE_MS).
 * `settle()` resolves once the queue has drained, which is what lets scripts and tests wait without sleeping. While a watch client is behind
 * (`slowDownWhile`), batches end early so that sockets drain between them: the simulation runs no faster than its
 * watchers read, as a real cluster's controllers are held back by their API rate limits.
 */
export class ControlLoop {
  private readonly queue = new Set<string>();
  private readonly handlers = new Map<string, Reconcile>();
  private scheduled = false;
  private waiters: (() => void)[] = [];
  private stopped = false;
  private pressure: () => boolean = () => false;

  constructor(
    private readonly onError: (error: unknown, item: string) => void,
    private readonly batchSize = 2000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Registers the handler for a work type ("deployments", "gc-owner", ...). */
  handle(type: string, reconcile: Reconcile): void {
    this.handlers.set(type, reconcile);
  }

  /** Makes batches end early (every PRESSURE_CHECK items) while `check` says clients are behind. */
  slowDownWhile(check: () => boolean): void {
    this.pressure = check;
  }

  /** Queues work; duplicates collapse into one pending item. */
  enqueue(type: string, id: string): void {
    if (this.stopped) return;
    this.queue.add(`${type}\u0000${id}`);
    this.schedule();
  }

  /** Resolves when there is no pending work. */
  settle(): Promise<void> {
    if (this.queue.size === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops processing; pending settle() calls resolve. */
  stop(): void {
    this.stopped = true;
    this.queue.clear();
    this.release();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    let done = 0;
    const end = this.now() + SLICE_MS;
    for (const item of this.queue) {
      this.queue.delete(item);
      const sep = item.indexOf("\u0000");
      const handler = this.handlers.get(item.slice(0, sep));
      try {
        handler?.(item.slice(sep + 1));
      } catch (error) {
        this.onError(error, item.replace("\u0000", " "));
      }
      if (++done >= this.batchSize || this.now() >= end || (done % PRESSURE_CHECK === 0 && this.pressure())) break;
    }
    if (this.queue.size > 0) this.schedule();
    else this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
