import type { FakeCluster } from "./fake-cluster.js";
import type { WorkloadSpec } from "./scripting.js";

/** The shape of a synthetic fleet of Deployments (benchmarks). */
export interface FleetOptions {
  /** Number of Deployments. */
  workloads: number;
  /** Pods per Deployment (default 3). */
  replicas?: number;
  /** Namespaces the Deployments are spread over, `team-0`.. (default 30). */
  namespaces?: number;
  /** Containers per pod cycle 1..containers over the workloads (default 3: two on average). */
  containers?: number;
  /** Image repository prefix (default `ghcr.io/acme`). */
  registry?: string;
  /** Annotations of every Deployment: each key's values are cycled over the workloads. */
  annotations?: Record<string, string[]>;
}

/** Which workloads a change applies to: a count or a percentage of the live ones (rounded up). */
export interface FleetSelection {
  count?: number;
  percent?: number;
  /** Resolve once the simulation has settled (default true). */
  wait?: boolean;
}

/** A workload a change touched, with what its containers run now. */
export interface FleetWorkload {
  namespace: string;
  name: string;
  replicas: number;
  containers: { name: string; image: string; imageID: string }[];
}

/** Counts of the live fleet. */
export interface FleetSummary {
  workloads: number;
  pods: number;
  containers: number;
  /** Distinct (workload, container) pairs: what a deployment-record controller records. */
  deploymentNames: number;
}

/**
 * A deterministic fleet of Deployments and the bulk changes a benchmark makes to it, through the cluster's scripting
 * API: workload i is `team-<i mod namespaces>/svc-<i>`, its container j runs `<registry>/svc-<i>-c<j>:<version>.0`.
 * Rollouts take the first live workloads (version + 1), deletions the last ones.
 */
export class WorkloadFleet {
  private readonly versions: Uint32Array;
  private readonly replicas: Int32Array;
  private readonly deleted: Uint8Array;
  private readonly options: Required<FleetOptions>;

  constructor(
    private readonly cluster: FakeCluster,
    options: FleetOptions,
  ) {
    this.options = { replicas: 3, namespaces: 30, containers: 3, registry: "ghcr.io/acme", annotations: {}, ...options };
    const { workloads, replicas, namespaces, containers } = this.options;
    if (!Number.isInteger(workloads) || workloads < 0) throw new TypeError(`workloads: must be a non-negative integer, got ${workloads}`);
    if (!Number.isInteger(replicas) || replicas < 0) throw new TypeError(`replicas: must be a non-negative integer, got ${replicas}`);
    if (!Number.isInteger(namespaces) || namespaces < 1) throw new TypeError(`namespaces: must be a positive integer, got ${namespaces}`);
    if (!Number.isInteger(containers) || containers < 1) throw new TypeError(`containers: must be a positive integer, got ${containers}`);
    this.versions = new Uint32Array(workloads).fill(1);
    this.replicas = new Int32Array(workloads).fill(replicas);
    this.deleted = new Uint8Array(workloads);
  }

  /** The Deployment spec of workload `i` at its current version and size. */
  spec(i: number): WorkloadSpec & { namespace: string; replicas: number; containers: { name: string; image: string }[] } {
    const { namespaces, containers, registry, annotations } = this.options;
    const spec: ReturnType<WorkloadFleet["spec"]> = {
      namespace: `team-${i % namespaces}`,
      name: `svc-${i}`,
      replicas: this.replicas[i]!,
      containers: Array.from({ length: 1 + (i % containers) }, (_, j) => ({
        name: `c${j}`,
        image: `${registry}/svc-${i}-c${j}:${this.versions[i]}.0`,
      })),
    };
    const keys = Object.keys(annotations);
    if (keys.length > 0) spec.annotations = Object.fromEntries(keys.map((k) => [k, annotations[k]![i % annotations[k]!.length]!]));
    return spec;
  }

  /** Creates every workload through the bulk path and waits until all pods run; returns the time it took. */
  async build(): Promise<FleetSummary & { buildMs: number }> {
    const started = performance.now();
    // The bulk path a thousand at a time, only so that its answers (copies of what was created) stay small; no
    // simulation work runs between the calls, as if it were one.
    for (let first = 0; first < this.versions.length; first += 1000) {
      const specs = Array.from({ length: Math.min(1000, this.versions.length - first) }, (_, k) => this.spec(first + k));
      await this.cluster.script.createDeployments(specs, { wait: false });
    }
    await this.cluster.settle();
    return { ...this.summary(), buildMs: Math.round(performance.now() - started) };
  }

  /** Counts of the live workloads. */
  summary(): FleetSummary {
    const out: FleetSummary = { workloads: 0, pods: 0, containers: 0, deploymentNames: 0 };
    for (const i of this.live()) {
      const containers = 1 + (i % this.options.containers);
      out.workloads++;
      out.pods += this.replicas[i]!;
      out.containers += this.replicas[i]! * containers;
      out.deploymentNames += containers;
    }
    return out;
  }

  /** Rolls the first selected live workloads to the next version of every image. */
  async rollout(selection: FleetSelection): Promise<FleetWorkload[]> {
    const chosen = this.pick(selection, "first");
    for (const i of chosen) {
      this.versions[i]!++;
      const spec = this.spec(i);
      const images = Object.fromEntries(spec.containers.map((c) => [c.name, c.image]));
      await this.cluster.script.setImage(spec.namespace, spec.name, images, { wait: false });
    }
    return this.finish(chosen, selection);
  }

  /** Sets the size of the first selected live workloads. */
  async scale(selection: FleetSelection & { replicas: number }): Promise<FleetWorkload[]> {
    if (!Number.isInteger(selection.replicas) || selection.replicas < 0) {
      throw new TypeError(`replicas: must be a non-negative integer, got ${selection.replicas}`);
    }
    const chosen = this.pick(selection, "first");
    for (const i of chosen) {
      this.replicas[i] = selection.replicas;
      const spec = this.spec(i);
      await this.cluster.script.scale("deployments", spec.namespace, spec.name, selection.replicas, { wait: false });
    }
    return this.finish(chosen, selection);
  }

  /** Deletes the last selected live workloads (background propagation: their ReplicaSets and pods go too). */
  async delete(selection: FleetSelection): Promise<FleetWorkload[]> {
    const chosen = this.pick(selection, "last");
    const gone = chosen.map((i) => this.describe(i));
    for (const i of chosen) {
      this.deleted[i] = 1;
      const spec = this.spec(i);
      await this.cluster.script.delete("deployments", spec.namespace, spec.name, { wait: false });
    }
    if (selection.wait !== false) await this.cluster.settle();
    return gone;
  }

  private *live(): Generator<number> {
    for (let i = 0; i < this.deleted.length; i++) if (this.deleted[i] === 0) yield i;
  }

  private pick(selection: FleetSelection, end: "first" | "last"): number[] {
    const { count, percent } = selection;
    if ((count === undefined) === (percent === undefined)) throw new TypeError("count, percent: give exactly one");
    if (count !== undefined && (!Number.isInteger(count) || count < 0)) {
      throw new TypeError(`count: must be a non-negative integer, got ${count}`);
    }
    if (percent !== undefined && !(percent >= 0 && percent <= 100)) {
      throw new TypeError(`percent: must be between 0 and 100, got ${percent}`);
    }
    const live = [...this.live()];
    const n = Math.min(live.length, count ?? Math.ceil((live.length * percent!) / 100));
    return end === "first" ? live.slice(0, n) : live.slice(live.length - n);
  }

  private async finish(chosen: number[], selection: FleetSelection): Promise<FleetWorkload[]> {
    if (selection.wait !== false) await this.cluster.settle();
    return chosen.map((i) => this.describe(i));
  }

  private describe(i: number): FleetWorkload {
    const spec = this.spec(i);
    const containers = spec.containers.map((c) => ({ name: c.name, image: c.image, imageID: this.cluster.imageIdFor(c.image) }));
    return { namespace: spec.namespace, name: spec.name, replicas: spec.replicas, containers };
  }
}
