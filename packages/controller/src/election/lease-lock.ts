// The leader-election lock, as client-go's resourcelock: the record a candidate reads and writes, and the only code
// that talks to the API about it. A coordination.k8s.io/v1 Lease here; the elector (election/leader-elector.ts) holds the
// algorithm and never sees the Lease object.
// - update() writes over the object as last read or written, with its resourceVersion: a 409 means another candidate
//   wrote in between (LeaseLockError, code `lease_conflict`);
// - acquireTime and renewTime are MicroTime (6 fractional digits): the API server refuses a plain Date's 3 digits.
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import { ShiplogError } from "@shiplog/client";
import { callOptions, kubeErrorMessage, kubeStatus } from "../kube/call-options.js";

/** The leader-election record kept in the lock (client-go's LeaderElectionRecord); times in ms since the epoch. */
export interface LeaderElectionRecord {
  /** The holder's identity; "" when nobody holds it (released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number | undefined;
  renewTime: number | undefined;
  leaseTransitions: number;
}

/** A failed lock call: `lease_conflict` when the record changed since it was read, `lease_call_failed` otherwise. */
export class LeaseLockError extends ShiplogError {
  constructor(
    code: "lease_conflict" | "lease_call_failed",
    message: string,
    readonly status?: number,
  ) {
    super(code, message);
  }
}

/** Where the leader-election record lives (client-go's resourcelock.Interface). */
export interface LeaseLock {
  /** The current record, or undefined when there is none yet. */
  get(signal: AbortSignal): Promise<LeaderElectionRecord | undefined>;
  /** Creates the record; `lease_conflict` when it exists already. */
  create(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord>;
  /** Writes over the record as last read or written; `lease_conflict` when it changed since. */
  update(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord>;
  /** The lock's name, for logs. */
  describe(): string;
}

/** Settings of the Lease lock. */
export interface KubeLeaseLockOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
}

const wallTime = (t: unknown): number | undefined => (t === undefined || t === null ? undefined : new Date(t as string | Date).getTime());
const microTime = (ms: number | undefined): V1MicroTime | undefined => (ms === undefined ? undefined : new V1MicroTime(ms));

function recordOf(lease: V1Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: wallTime(spec.acquireTime),
    renewTime: wallTime(spec.renewTime),
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

function specOf(record: LeaderElectionRecord): V1Lease["spec"] {
  const spec: NonNullable<V1Lease["spec"]> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = microTime(record.acquireTime)!;
  if (record.renewTime !== undefined) spec.renewTime = microTime(record.renewTime)!;
  return spec;
}

/** A lock on one coordination.k8s.io/v1 Lease. */
export class KubeLeaseLock implements LeaseLock {
  readonly #api: CoordinationV1Api;
  readonly #namespace: string;
  readonly #name: string;
  /** The Lease as last read or written: update() writes over it, with its resourceVersion. */
  #lease: V1Lease | undefined;

  constructor(options: KubeLeaseLockOptions) {
    this.#api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.#namespace = options.namespace;
    this.#name = options.name;
  }

  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }

  async get(signal: AbortSignal): Promise<LeaderElectionRecord | undefined> {
    try {
      this.#lease = await this.#api.readNamespacedLease({ name: this.#name, namespace: this.#namespace }, callOptions(undefined, signal));
      return recordOf(this.#lease);
    } catch (error) {
      if (kubeStatus(error) !== 404) throw this.#failure(error, "reading");
      this.#lease = undefined;
      return undefined;
    }
  }

  async create(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    const body: V1Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.#name, namespace: this.#namespace },
      spec: specOf(record),
    };
    try {
      this.#lease = await this.#api.createNamespacedLease({ namespace: this.#namespace, body }, callOptions(undefined, signal));
      return recordOf(this.#lease);
    } catch (error) {
      throw this.#failure(error, "creating");
    }
  }

  async update(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    if (!this.#lease)
      throw new LeaseLockError("lease_call_failed", `lease ${this.describe()}: update before the lease was read or created`);
    try {
      const body: V1Lease = { ...this.#lease, spec: specOf(record) };
      this.#lease = await this.#api.replaceNamespacedLease(
        { name: this.#name, namespace: this.#namespace, body },
        callOptions(undefined, signal),
      );
      return recordOf(this.#lease);
    } catch (error) {
      throw this.#failure(error, "updating");
    }
  }

  #failure(error: unknown, doing: string): LeaseLockError {
    const status = kubeStatus(error);
    const message = `${doing} lease ${this.describe()}: ${kubeErrorMessage(error)}`;
    return new LeaseLockError(status === 409 ? "lease_conflict" : "lease_call_failed", message, status);
  }
}
