// A cluster as plain data that random events change, for checking the desired-state tracker against
// computeDesiredState: Deployments with their ReplicaSets, StatefulSets, DaemonSets, CronJobs with their Jobs, bare
// Jobs and pods, ReplicaSets of an owner kind nobody watches, owners recreated under a new uid, pods arriving before
// their owners, deletions in progress, annotations that move records between environments or ignore them, image IDs
// that cannot be recorded, owners updated in place (scaled, given a new template, annotated, being deleted). Every
// change is reported to `onChange` as an informer reports it, with whether it reaches dependents (resolvesAlike).
import { createHash } from "node:crypto";
import { resolvesAlike } from "@shiplog/controller/internal";
import type { CronJob, Job, OwnerReference, Pod, TrackedSnapshot, WatchedKind, Workload, WorkloadKind } from "@shiplog/controller/internal";

type AnyObject = Pod | Workload | Job | CronJob;

/** Seeded pseudo-random numbers in [0, 1): the same seed draws the same sequence. */
export function random(seed: number): () => number {
  let draw = 0;
  return () => createHash("sha256").update(`${seed}/${draw++}`).digest().readUInt32BE(0) / 2 ** 32;
}

const WORKLOAD_KINDS: WorkloadKind[] = ["Deployment", "StatefulSet", "DaemonSet", "CronJob", "ReplicaSet", "Job"];
const NAMESPACES = ["a", "b"];
const NAMES = ["web", "api", "db"];
const DIGESTS = ["a", "b", "c"].map((c) => `sha256:${c.repeat(64)}`);

/** A mutable cluster implementing the snapshot the tracker and computeDesiredState read. */
export class PlainCluster implements TrackedSnapshot {
  readonly objects = new Map<WatchedKind, Map<string, AnyObject>>();
  /** Reads of single objects and full iterations, to show what the tracker looks at. */
  reads = { objects: 0, iterations: 0 };
  #uid = 0;
  #version = 0;

  constructor(
    private readonly onChange: (kind: WatchedKind, namespace: string, name: string, reachesDependents: boolean) => void = () => {},
  ) {}

  uid(): string {
    return `uid-${++this.#uid}`;
  }

  put(kind: WatchedKind, object: AnyObject): void {
    object.metadata.resourceVersion = String(++this.#version);
    let byKey = this.objects.get(kind);
    if (!byKey) {
      byKey = new Map();
      this.objects.set(kind, byKey);
    }
    const key = `${object.metadata.namespace}/${object.metadata.name}`;
    const before = byKey.get(key);
    byKey.set(key, object);
    this.onChange(kind, object.metadata.namespace ?? "", object.metadata.name, !before || !resolvesAlike(kind, before, object));
  }

  remove(kind: WatchedKind, namespace: string, name: string): void {
    if (this.objects.get(kind)?.delete(`${namespace}/${name}`)) this.onChange(kind, namespace, name, true);
  }

  object(kind: WatchedKind, namespace: string, name: string): AnyObject | undefined {
    this.reads.objects += 1;
    return this.objects.get(kind)?.get(`${namespace}/${name}`);
  }

  get(kind: WatchedKind, namespace: string, name: string): never {
    return this.objects.get(kind)?.get(`${namespace}/${name}`) as never;
  }

  *pods(): Iterable<Pod> {
    this.reads.iterations += 1;
    yield* (this.objects.get("Pod")?.values() ?? []) as Iterable<Pod>;
  }

  *workloads(): Iterable<{ kind: WorkloadKind; object: Workload | Job | CronJob }> {
    this.reads.iterations += 1;
    for (const kind of WORKLOAD_KINDS)
      for (const object of this.objects.get(kind)?.values() ?? []) yield { kind, object: object as Workload };
  }

  all(kind: WatchedKind): AnyObject[] {
    return [...(this.objects.get(kind)?.values() ?? [])];
  }
}

/** Applies one random event to the cluster. */
export function randomEvent(cluster: PlainCluster, next: () => number): void {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const chance = (p: number) => next() < p;
  const namespace = pick(NAMESPACES);
  const name = pick(NAMES);
  const annotations = (): Record<string, string> => {
    const out: Record<string, string> = {};
    if (chance(0.3)) out["shiplog.dev/repository"] = pick(["web", "api", "bad repo!"]);
    if (chance(0.1)) out["shiplog.dev/ignore"] = pick(["true", "false", "maybe"]);
    if (chance(0.15)) out["shiplog.dev/logical-environment"] = pick(["staging", "production"]);
    if (chance(0.15)) out["tags.shiplog.dev/team"] = pick(["core", "edge"]);
    if (chance(0.1)) out["metadata.github.com/owner"] = "ops";
    return out;
  };
  const containers = () =>
    (chance(0.5) ? ["app"] : ["app", "side"]).map((c) => ({ name: c, image: `${pick(NAMES)}:1.${Math.floor(next() * 3)}` }));
  const template = () => ({
    metadata: { labels: chance(0.2) ? { tier: "internal" } : { tier: "public" }, annotations: chance(0.3) ? annotations() : {} },
    spec: {
      containers: containers(),
      ...(chance(0.2) ? { initContainers: [{ name: "mesh", image: "envoy:1", restartPolicy: "Always" }] } : {}),
    },
  });
  const meta = (objectName: string, owner?: OwnerReference) => ({
    name: objectName,
    namespace,
    uid: cluster.uid(),
    annotations: annotations(),
    ...(owner ? { ownerReferences: [owner] } : {}),
    ...(chance(0.08) ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  });
  const ref = (
    kind: string,
    ownerName: string,
    apiVersion = kind === "Job" || kind === "CronJob" ? "batch/v1" : "apps/v1",
  ): OwnerReference => {
    const existing = cluster.get(kind as never, namespace, ownerName) as AnyObject | undefined;
    // Usually the live owner's uid; sometimes a stale one (the owner was recreated) or none yet.
    const uid = existing && chance(0.85) ? existing.metadata.uid! : `stale-${cluster.uid()}`;
    return { apiVersion, kind, name: ownerName, uid, controller: true };
  };
  const roll = next();
  if (roll < 0.1) {
    const kind = pick(["Deployment", "StatefulSet", "DaemonSet"] as const);
    cluster.put(kind, { metadata: meta(name), spec: { replicas: pick([0, 1, 2, undefined]), template: template() } } as Workload);
  } else if (roll < 0.2) {
    // A ReplicaSet of a Deployment, of an owner nobody watches (an Argo Rollout), or of nobody.
    const owner = pick(["Deployment", "Rollout", "none"]);
    const rsName = `${name}-rs${Math.floor(next() * 2)}`;
    const controller = owner === "none" ? undefined : ref(owner, name, owner === "Rollout" ? "argoproj.io/v1alpha1" : "apps/v1");
    const rs = { metadata: meta(rsName, controller), spec: { replicas: pick([0, 1, 2]), template: template() } } as Workload;
    rs.metadata.annotations = { ...rs.metadata.annotations, "deployment.kubernetes.io/revision": String(1 + Math.floor(next() * 3)) };
    cluster.put("ReplicaSet", rs);
  } else if (roll < 0.25) {
    cluster.put("CronJob", { metadata: meta(`${name}-cron`), spec: { jobTemplate: { spec: { template: template() } } } } as CronJob);
  } else if (roll < 0.3) {
    const owned = chance(0.6);
    const job: Job = { metadata: meta(`${name}-job`, owned ? ref("CronJob", `${name}-cron`) : undefined), spec: { template: template() } };
    if (chance(0.2)) job.status = { conditions: [{ type: pick(["Complete", "Failed"]), status: "True" }] };
    cluster.put("Job", job);
  } else if (roll < 0.75) {
    const owners: [string, string][] = [
      ["ReplicaSet", `${name}-rs0`],
      ["ReplicaSet", `${name}-rs1`],
      ["StatefulSet", name],
      ["DaemonSet", name],
      ["Job", `${name}-job`],
    ];
    const owner = chance(0.85) ? pick(owners) : undefined;
    const podName = `${owner?.[1] ?? name}-p${Math.floor(next() * 3)}`;
    const specContainers = containers();
    const status = (c: { name: string; image: string }) => ({
      name: c.name,
      image: c.image,
      imageID: chance(0.1) ? `docker://${pick(DIGESTS)}` : `${c.image.split(":")[0]}@${pick(DIGESTS)}`,
      ready: chance(0.7),
      state: chance(0.85) ? { running: {} } : { waiting: {} },
    });
    const sidecar = chance(0.2) ? [{ name: "mesh", image: "envoy:1", restartPolicy: "Always" }] : undefined;
    cluster.put("Pod", {
      metadata: {
        ...meta(podName, owner ? ref(owner[0], owner[1]) : undefined),
        creationTimestamp: `2026-01-0${1 + Math.floor(next() * 3)}T00:00:00Z`,
      },
      spec: { containers: specContainers, ...(sidecar ? { initContainers: sidecar } : {}) },
      status: {
        phase: pick(["Running", "Running", "Running", "Pending", "Succeeded"]),
        containerStatuses: specContainers.map(status),
        ...(sidecar ? { initContainerStatuses: sidecar.map(status) } : {}),
      },
    });
  } else if (roll < 0.85) {
    // Update a workload object in place (same uid): scaled, a new template, annotated, being deleted, finished.
    // ReplicaSets and Jobs most often: under a Deployment or a CronJob they are no workload's member, so only what
    // resolves through them carries their change.
    const kind = chance(0.6) ? pick(["ReplicaSet", "Job"] as const) : pick(WORKLOAD_KINDS);
    const existing = cluster.all(kind);
    if (existing.length === 0) return;
    const current = pick(existing) as Workload & Job;
    const updated = structuredClone(current);
    const what = pick(["replicas", "template", "annotations", "deleting", "finished"]);
    if (what === "replicas" && updated.spec) updated.spec.replicas = pick([0, 1, 2, 3]);
    else if (what === "template" && updated.spec?.template) updated.spec.template = template();
    else if (what === "annotations") {
      const revision = updated.metadata.annotations?.["deployment.kubernetes.io/revision"];
      const revised = revision && chance(0.5) ? String(1 + Math.floor(next() * 3)) : revision;
      updated.metadata.annotations = { ...annotations(), ...(revised ? { "deployment.kubernetes.io/revision": revised } : {}) };
    } else if (what === "deleting") updated.metadata.deletionTimestamp = "2026-01-02T00:00:00Z";
    else if (what === "finished") updated.status = { conditions: [{ type: "Complete", status: "True" }] };
    cluster.put(kind, updated);
  } else {
    // Delete something that exists.
    const kind = pick(["Pod", "Pod", ...WORKLOAD_KINDS] as WatchedKind[]);
    const victims = cluster.all(kind);
    if (victims.length > 0) {
      const victim = pick(victims);
      cluster.remove(kind, victim.metadata.namespace ?? "", victim.metadata.name);
    }
  }
}
