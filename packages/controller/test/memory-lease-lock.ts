// An in-memory Lease with the API server's concurrency rules (create of an existing record and update of a changed
// one are refused with a conflict), and per-candidate locks that can be cut off from it as a network partition
// would: their calls hang until the caller's deadline aborts them (or reach the lease and lose their answer).
// lease-lock.test.ts holds the real Lease lock to the same rules against the fake cluster.
import { LeaseLockError, type LeaderElectionRecord, type LeaseLock } from "@shiplog/controller/internal";

/** One write that reached the lease. */
export interface LeaseWrite {
  by: string;
  kind: "create" | "update";
  record: LeaderElectionRecord;
}

/** The stored record and its version (the resourceVersion). */
export class MemoryLease {
  record: LeaderElectionRecord | undefined;
  version = 0;
  readonly writes: LeaseWrite[] = [];

  /** A candidate's lock on this lease. */
  lockFor(identity: string): MemoryLeaseLock {
    return new MemoryLeaseLock(this, identity);
  }

  /** Someone else (an operator, another controller) writes the record. */
  overwrite(record: LeaderElectionRecord): void {
    this.record = { ...record };
    this.version += 1;
    this.writes.push({ by: "outside", kind: "update", record: { ...record } });
  }
}

/** A candidate's view of a MemoryLease. */
export class MemoryLeaseLock implements LeaseLock {
  /** Cut off: calls hang until their signal aborts. */
  cut = false;
  /** Calls reach the lease (writes are stored) but their answers are lost: they hang until their signal aborts. */
  loseAnswers = false;
  /** Calls fail at once with this error (an API server error), when set. */
  failWith: LeaseLockError | undefined;
  /** The calls made, in order. */
  readonly calls: ("get" | "create" | "update")[] = [];
  /** The version last read or written by this lock. */
  #seen: number | undefined;

  constructor(
    readonly lease: MemoryLease,
    readonly identity: string,
  ) {}

  describe(): string {
    return `memory/${this.identity}`;
  }

  async get(signal: AbortSignal): Promise<LeaderElectionRecord | undefined> {
    this.calls.push("get");
    await this.#reach(signal);
    const record = this.lease.record && { ...this.lease.record };
    await this.#answer(signal);
    this.#seen = this.lease.version;
    return record;
  }

  async create(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    this.calls.push("create");
    await this.#reach(signal);
    if (this.lease.record) throw new LeaseLockError("lease_conflict", 'leases "memory" already exists', 409);
    return this.#store(record, "create", signal);
  }

  async update(record: LeaderElectionRecord, signal: AbortSignal): Promise<LeaderElectionRecord> {
    this.calls.push("update");
    await this.#reach(signal);
    if (this.#seen === undefined) throw new LeaseLockError("lease_call_failed", "update before the lease was read");
    if (this.#seen !== this.lease.version) throw new LeaseLockError("lease_conflict", "the object has been modified", 409);
    return this.#store(record, "update", signal);
  }

  async #store(record: LeaderElectionRecord, kind: LeaseWrite["kind"], signal: AbortSignal): Promise<LeaderElectionRecord> {
    this.lease.record = { ...record };
    this.lease.version += 1;
    const version = this.lease.version;
    this.lease.writes.push({ by: this.identity, kind, record: { ...record } });
    await this.#answer(signal);
    this.#seen = version;
    return { ...record };
  }

  async #reach(signal: AbortSignal): Promise<void> {
    if (this.cut) await hang(signal);
    await Promise.resolve();
    if (signal.aborted) throw signal.reason as Error;
    if (this.failWith) throw this.failWith;
  }

  async #answer(signal: AbortSignal): Promise<void> {
    if (this.loseAnswers) await hang(signal);
  }
}

/** Never resolves; rejects when `signal` aborts. */
function hang(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
  });
}
