// What the service has acknowledged: the last entry accepted for each record key. The store is an interface so a
// persisted one (a ConfigMap) and the dry run's throwaway overlay can take its place without touching the controller.
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { RecordGroup } from "../mapping/pod-records.js";
import type { StateDamage } from "./damage.js";
import type { HeadSection } from "./head-participant.js";

/** An entry the service accepted, with the group it was sent in. */
export interface AcknowledgedRecord {
  key: string;
  group: RecordGroup;
  entry: ClusterDeploymentEntry;
}

/** Options of a write. */
export interface PersistOptions {
  /** The last write before this replica stops: leave the state readable by the previous version too. */
  final?: boolean;
  /** The head participants' sections, by key (state/head-participant.ts), kept with the state. */
  sections?: ReadonlyMap<string, HeadSection>;
}

/**
 * Storage of acknowledged records, and of the write-ahead "in flight" set: deployed entries that were (or are about
 * to be) sent without an answer yet. An in-flight entry may exist at the service; it stays in the set until an
 * answer for its key is acknowledged, so after any crash the next leader knows everything the service may hold.
 */
export interface AcknowledgedStore {
  /** Loads what earlier runs acknowledged (no-op for the in-memory store). */
  load(): Promise<void>;
  /** All acknowledged records, by key. */
  all(): ReadonlyMap<string, AcknowledgedRecord>;
  /** Deployed entries sent or about to be sent whose outcome is unknown, by key. */
  inFlight(): ReadonlyMap<string, AcknowledgedRecord>;
  /** Records deployed entries about to be sent; persist() makes the intent durable before the call. */
  intend(records: readonly AcknowledgedRecord[]): void;
  /**
   * Records accepted entries; decommissioned ones are forgotten once accepted (nothing more to do for them). An
   * accepted entry settles its key's in-flight entry: the service now holds this one under that deployment name.
   */
  acknowledge(records: readonly AcknowledgedRecord[]): void;
  /**
   * Records entries the service refused: it holds none of them, so each settles its key's in-flight entry when that
   * is the same deployment (see settledByRefusal). Nothing is acknowledged.
   */
  refuse(records: readonly AcknowledgedRecord[]): void;
  /** Writes pending changes to durable storage (no-op for the in-memory store). */
  persist(options?: PersistOptions): Promise<void>;
  /** A head participant's section as the loaded state recorded it (a store that keeps none: undefined). */
  headSection?(key: string): string | undefined;
}

/**
 * Whether a refused entry settles the in-flight entry of its key: a deployed entry of the same digest (the one sent,
 * or an earlier send of the same image the service would refuse alike). A refused decommission settles nothing: the
 * deployment it was to end may exist at the service.
 */
export function settledByRefusal(inFlight: AcknowledgedRecord | undefined, refused: AcknowledgedRecord): boolean {
  if (inFlight === undefined || (refused.entry.status ?? "deployed") !== "deployed") return false;
  return inFlight.entry.digest === refused.entry.digest;
}

/** An acknowledged-state store that lives as long as the process. */
export class InMemoryAcknowledgedStore implements AcknowledgedStore {
  readonly #records = new Map<string, AcknowledgedRecord>();
  readonly #inFlight = new Map<string, AcknowledgedRecord>();

  async load(): Promise<void> {}

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#records;
  }

  inFlight(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#inFlight;
  }

  intend(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) if ((record.entry.status ?? "deployed") === "deployed") this.#inFlight.set(record.key, record);
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      this.#inFlight.delete(record.key);
      if (record.entry.status === "decommissioned") this.#records.delete(record.key);
      else this.#records.set(record.key, record);
    }
  }

  refuse(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) if (settledByRefusal(this.#inFlight.get(record.key), record)) this.#inFlight.delete(record.key);
  }

  async persist(): Promise<void> {}
}

/**
 * The dry run's store: reads what earlier live runs acknowledged (so the dry run shows what a live run would send),
 * takes the dry run's "acknowledgements" in memory only, and never writes. A dry run that persisted would tell a
 * later live run that the service holds records it was never sent.
 */
export class DryRunAcknowledgedStore implements AcknowledgedStore {
  #overlay = new InMemoryAcknowledgedStore();

  constructor(private readonly base?: AcknowledgedStore) {}

  headSection(key: string): string | undefined {
    return this.base?.headSection?.(key);
  }

  /** The damage the state read has (the ConfigMap store tells; a dry run reports it, and writes nothing about it). */
  get damage(): StateDamage | undefined {
    return (this.base as { damage?: StateDamage } | undefined)?.damage;
  }

  async load(): Promise<void> {
    if (!this.base) return;
    await this.base.load();
    this.#overlay = new InMemoryAcknowledgedStore();
    this.#overlay.acknowledge([...this.base.all().values()]);
    this.#overlay.intend([...this.base.inFlight().values()]);
  }

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#overlay.all();
  }

  inFlight(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#overlay.inFlight();
  }

  intend(records: readonly AcknowledgedRecord[]): void {
    this.#overlay.intend(records);
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    this.#overlay.acknowledge(records);
  }

  refuse(records: readonly AcknowledgedRecord[]): void {
    this.#overlay.refuse(records);
  }

  async persist(): Promise<void> {}
}
