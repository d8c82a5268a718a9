// Loading and writing the acknowledged state (the store: a ConfigMap, memory, or the dry run's overlay), with the
// bookkeeping around it: a failed load or write is retried with backoff (the flush loop waits for `notBefore`),
// counted, and after STATE_WRITE_FAILURES_UNREADY failed writes in a row makes /readyz fail with the reason. Every
// write carries the head participants' sections (state/head-participant.ts: the write budget's calls) and a load gives
// each its section back.
import type { Logger } from "pino";
import type { AcknowledgedStore, PersistOptions } from "./acknowledged-state.js";
import { backoffDelay } from "../flush/backoff.js";
import type { Clock } from "../clock.js";
import type { ControllerMetrics } from "../observability/metrics.js";
import type { StateDamage } from "./recovery.js";
import type { HeadSection, StateHeadParticipant } from "./head-participant.js";

/** Settings of the state's persistence. */
export interface StatePersistenceOptions {
  store: AcknowledgedStore;
  clock: Clock;
  logger: Logger;
  metrics: ControllerMetrics;
  retryMinDelayMs: number;
  retryMaxDelayMs: number;
  /** Parts that keep a section in the state head (the write budget). */
  participants?: readonly StateHeadParticipant[];
}

/** Options of a write. */
export interface StateWriteOptions {
  /** The last write before this replica stops (see PersistOptions). */
  final?: boolean;
  /** Calls about to leave once this write succeeds (an intent write's): kept as unanswered until a later write. */
  plannedCalls?: number;
}

/** Loads and writes the acknowledged state, and remembers how that went. */
export class StatePersistence {
  readonly store: AcknowledgedStore;
  #loaded = false;
  #loadFailures = 0;
  #writeFailures = 0;
  #writeError = "";
  /** The store holds changes a failed write did not persist: written again (with backoff) before anything is sent. */
  #dirty = false;
  /** A round left its answers for the next round's write (they ride with its intents). */
  #deferred = false;
  #notBefore = 0;

  constructor(private readonly options: StatePersistenceOptions) {
    this.store = options.store;
  }

  /** Loaded since this replica last became the leader. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Unwritten changes wait for a retry. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * The store holds changes not on disk: a failed write, or one skipped while this replica briefly was not the
   * leader (a store that can say so tells; the ConfigMap store does), to be written with the next round.
   */
  get unwritten(): boolean {
    return this.#dirty || this.#deferred || ((this.store as { unwritten?: number }).unwritten ?? 0) > 0;
  }

  /** The store's changes wait for the next round's write (a store that cannot count them still gets it). */
  defer(): void {
    this.#deferred = true;
  }

  /** No load or write retry before this (epoch ms). */
  get notBefore(): number {
    return this.#notBefore;
  }

  get writeFailures(): number {
    return this.#writeFailures;
  }

  get writeError(): string {
    return this.#writeError;
  }

  /** The damage the loaded state records (a store that can tell; the ConfigMap store does), until it is cleared. */
  get damage(): StateDamage | undefined {
    return (this.options.store as { damage?: StateDamage }).damage;
  }

  /** The damage's metrics, as the store last loaded it (a write that met a conflict loads again). */
  #damageMetrics(): void {
    const damage = this.damage;
    this.options.metrics.stateDamaged.set(damage ? 1 : 0);
    this.options.metrics.stateRecordsAtRisk.set(damage?.atRisk ?? 0);
  }

  /** A new leader reads again (the previous one may have written since) and starts its counts afresh. */
  reset(): void {
    this.#loaded = false;
    this.#loadFailures = 0;
    this.#writeFailures = 0;
    this.#notBefore = 0;
  }

  /** Forgets the load (this replica stopped leading): nothing it holds may be trusted by a later leadership. */
  unload(): void {
    this.#loaded = false;
  }

  /** Loads the state; on failure, logs and sets the backoff. Resolves whether it loaded. */
  async load(): Promise<boolean> {
    const { store, clock, logger, metrics } = this.options;
    try {
      await store.load();
      for (const participant of this.options.participants ?? []) participant.restore(store.headSection?.(participant.key), clock.now());
      this.#loaded = true;
      this.#loadFailures = 0;
      metrics.acknowledgedRecords.set(store.all().size);
      metrics.inFlightRecords.set(store.inFlight().size);
      this.#damageMetrics();
      return true;
    } catch (error) {
      const delay = backoffDelay(this.#loadFailures, this.options.retryMinDelayMs, this.options.retryMaxDelayMs);
      this.#loadFailures += 1;
      this.#notBefore = clock.now() + delay;
      logger.warn({ err: (error as Error).message, retryInMs: delay }, "loading acknowledged state failed; nothing is sent until it loads");
      return false;
    }
  }

  /**
   * Writes the state (acknowledged and in-flight sets). A failure is counted and retried with backoff by the flush
   * loop (nothing is sent meanwhile: an intent not on disk must not be acted on). Resolves whether it was written.
   */
  async write(options: StateWriteOptions = {}): Promise<boolean> {
    const { store, clock, logger, metrics, participants } = this.options;
    const sections = new Map<string, HeadSection>();
    for (const participant of participants ?? []) {
      const section = participant.section({ now: clock.now(), plannedCalls: options.plannedCalls ?? 0 });
      if (section) sections.set(participant.key, section);
    }
    const persist: PersistOptions = { ...(options.final && { final: true }), ...(participants && { sections }) };
    try {
      await store.persist(persist);
      const info = (store as { lastWrite?: { bytes: number } }).lastWrite;
      if (info) metrics.stateBytes.set(info.bytes);
      metrics.stateWrites.inc({ result: "success" });
      this.#damageMetrics();
      metrics.inFlightRecords.set(store.inFlight().size);
      if (this.#writeFailures > 0) logger.info({ failures: this.#writeFailures }, "acknowledged state written again");
      this.#dirty = false;
      this.#deferred = false;
      this.#writeFailures = 0;
      return true;
    } catch (error) {
      metrics.stateWrites.inc({ result: "failure" });
      const delay = backoffDelay(this.#writeFailures, this.options.retryMinDelayMs, this.options.retryMaxDelayMs);
      this.#dirty = true;
      this.#writeFailures += 1;
      this.#writeError = (error as Error).message;
      this.#notBefore = Math.max(this.#notBefore, clock.now() + delay);
      logger.error(
        { err: this.#writeError, code: (error as { code?: string }).code, failures: this.#writeFailures, retryInMs: delay },
        "writing acknowledged state failed; retrying, and nothing is sent until it is written",
      );
      return false;
    }
  }
}
