// Leader election on a coordination.k8s.io/v1 Lease: the elector (election/leader-elector.ts, the algorithm) over a Lease lock
// (election/lease-lock.ts, the API calls), composed as the controller uses it.
import type { KubeConfig } from "@kubernetes/client-node";
import { LeaderElector, type LeaderElectorOptions, type LeaseElectionStatus } from "./leader-elector.js";
import { KubeLeaseLock } from "./lease-lock.js";

/** Settings of the election: the elector's, and where its Lease is (client-go's defaults: 15 s, 10 s, 2 s). */
export type LeaseElectionOptions = Omit<LeaderElectorOptions, "lock"> & {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
};

/** A leader election on one Lease. */
export class LeaseElection {
  readonly #elector: LeaderElector;

  constructor(options: LeaseElectionOptions) {
    const { kubeConfig, namespace, name, ...rest } = options;
    this.#elector = new LeaderElector({ ...rest, lock: new KubeLeaseLock({ kubeConfig, namespace, name }) });
  }

  /** Starts trying to acquire the lease (and renewing it once held). */
  start(): void {
    this.#elector.start();
  }

  /** True while this candidate leads and its last renewal is younger than the renew deadline (read on the clock). */
  isLeader(): boolean {
    return this.#elector.isLeader();
  }

  /** What the election knows now. */
  status(): LeaseElectionStatus {
    return this.#elector.status();
  }

  /** Stops the loops; with `release` and the lease held, hands it back so another candidate takes over at once. */
  stop(options: { release?: boolean } = {}): Promise<void> {
    return this.#elector.stop(options);
  }
}
