// What the service has acknowledged: the last entry accepted for each record key. The store is an interface so a
// persisted one (a ConfigMap) and the dry run's throwaway overlay can take its place without touching the controller.
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { RecordGroup } from "./pod-records.js";

/** An entry the service accepted, with the group it was sent in. */
export interface AcknowledgedRecord {
  key: string;
  group: RecordGroup;
  entry: ClusterDeploymentEntry;
}

/** Storage of acknowledged records. */
export interface AcknowledgedStore {
  /** Loads what earlier runs acknowledged (no-op for the in-memory store). */
  load(): Promise<void>;
  /** All acknowledged records, by key. */
  all(): ReadonlyMap<string, AcknowledgedRecord>;
  /** Records accepted entries; decommissioned ones are forgotten once accepted (nothing more to do for them). */
  acknowledge(records: readonly AcknowledgedRecord[]): void;
  /** Writes pending changes to durable storage (no-op for the in-memory store). */
  persist(): Promise<void>;
}

/** An acknowledged-state store that lives as long as the process. */
export class InMemoryAcknowledgedStore implements AcknowledgedStore {
  readonly #records = new Map<string, AcknowledgedRecord>();

  async load(): Promise<void> {}

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#records;
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if (record.entry.status === "decommissioned") this.#records.delete(record.key);
      else this.#records.set(record.key, record);
    }
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

  async load(): Promise<void> {
    if (!this.base) return;
    await this.base.load();
    this.#overlay = new InMemoryAcknowledgedStore();
    this.#overlay.acknowledge([...this.base.all().values()]);
  }

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#overlay.all();
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    this.#overlay.acknowledge(records);
  }

  async persist(): Promise<void> {}
}
