// Plain Kubernetes objects for the pure mapping tests.
import type { ClusterSnapshot, CronJob, Job, OwnerReference, Pod, Workload, WorkloadKind } from "@shiplog/controller/internal";

export const DIGEST_A = `sha256:${"a".repeat(64)}`;
export const DIGEST_B = `sha256:${"b".repeat(64)}`;
export const DIGEST_C = `sha256:${"c".repeat(64)}`;

let uidCounter = 0;
export const uid = (): string => `uid-${++uidCounter}`;

export function owner(
  kind: string,
  name: string,
  ownerUid: string,
  apiVersion = kind === "Job" || kind === "CronJob" ? "batch/v1" : "apps/v1",
): OwnerReference {
  return { apiVersion, kind, name, uid: ownerUid, controller: true };
}

export function workload(
  kind: "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet",
  name: string,
  opts: {
    namespace?: string;
    replicas?: number;
    image?: string;
    containers?: string[];
    annotations?: Record<string, string>;
    owners?: OwnerReference[];
    deleting?: boolean;
    revision?: number;
    uid?: string;
  } = {},
): Workload {
  const annotations = { ...(opts.annotations ?? {}) };
  if (opts.revision !== undefined) annotations["deployment.kubernetes.io/revision"] = String(opts.revision);
  return {
    kind,
    metadata: {
      name,
      namespace: opts.namespace ?? "shop",
      uid: opts.uid ?? uid(),
      annotations,
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
      template: { spec: { containers: (opts.containers ?? ["app"]).map((c) => ({ name: c, image: opts.image ?? "nginx:1.25" })) } },
    },
  };
}

export function pod(
  name: string,
  opts: {
    namespace?: string;
    owners?: OwnerReference[];
    containers?: { name: string; image: string; imageID?: string; ready?: boolean; running?: boolean; statusImage?: string }[];
    phase?: string;
    deleting?: boolean;
    annotations?: Record<string, string>;
    created?: string;
    initContainers?: { name: string; image: string; imageID?: string; restartPolicy?: string }[];
  } = {},
): Pod {
  const containers = opts.containers ?? [{ name: "app", image: "nginx:1.25", imageID: `docker.io/library/nginx@${DIGEST_A}` }];
  const statusOf = (c: { name: string; image: string; imageID?: string; ready?: boolean; running?: boolean; statusImage?: string }) => ({
    name: c.name,
    image: c.statusImage ?? c.image,
    ...(c.imageID !== undefined ? { imageID: c.imageID } : {}),
    ready: c.ready ?? true,
    state: c.running === false ? { waiting: {} } : { running: {} },
  });
  return {
    kind: "Pod",
    metadata: {
      name,
      namespace: opts.namespace ?? "shop",
      uid: uid(),
      creationTimestamp: opts.created ?? "2026-01-01T00:00:00Z",
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.deleting ? { deletionTimestamp: "2026-01-01T00:01:00Z" } : {}),
    },
    spec: {
      containers: containers.map((c) => ({ name: c.name, image: c.image })),
      ...(opts.initContainers
        ? {
            initContainers: opts.initContainers.map((c) => ({
              name: c.name,
              image: c.image,
              ...(c.restartPolicy ? { restartPolicy: c.restartPolicy } : {}),
            })),
          }
        : {}),
    },
    status: {
      phase: opts.phase ?? "Running",
      containerStatuses: containers.map(statusOf),
      ...(opts.initContainers
        ? { initContainerStatuses: opts.initContainers.map((c) => statusOf({ ...c, running: c.restartPolicy === "Always" })) }
        : {}),
    },
  };
}

/** A snapshot over plain arrays, as the informer caches present them. */
export function snapshot(objects: {
  pods?: Pod[];
  workloads?: { kind: WorkloadKind; object: Workload | Job | CronJob }[];
}): ClusterSnapshot {
  const workloads = objects.workloads ?? [];
  return {
    pods: () => objects.pods ?? [],
    workloads: () => workloads,
    get: ((kind: string, namespace: string, name: string) =>
      workloads.find((w) => w.kind === kind && w.object.metadata.name === name && (w.object.metadata.namespace ?? "") === namespace)
        ?.object) as ClusterSnapshot["get"],
  };
}

/** A Deployment with its ReplicaSet and ready pods. */
export function deploymentWithPods(
  name: string,
  opts: {
    namespace?: string;
    image?: string;
    imageID?: string;
    pods?: number;
    revision?: number;
    replicas?: number;
    annotations?: Record<string, string>;
  } = {},
) {
  const ns = opts.namespace ?? "shop";
  const deployment = workload("Deployment", name, {
    namespace: ns,
    replicas: opts.replicas ?? opts.pods ?? 1,
    image: opts.image ?? "nginx:1.25",
    annotations: opts.annotations ?? {},
  });
  const rs = workload("ReplicaSet", `${name}-rs${opts.revision ?? 1}`, {
    namespace: ns,
    image: opts.image ?? "nginx:1.25",
    revision: opts.revision ?? 1,
    owners: [owner("Deployment", name, deployment.metadata.uid!)],
  });
  const pods = Array.from({ length: opts.pods ?? 1 }, (_, i) =>
    pod(`${rs.metadata.name}-${i}`, {
      namespace: ns,
      owners: [owner("ReplicaSet", rs.metadata.name, rs.metadata.uid!)],
      containers: [{ name: "app", image: opts.image ?? "nginx:1.25", imageID: opts.imageID ?? `docker.io/library/nginx@${DIGEST_A}` }],
    }),
  );
  return {
    deployment,
    rs,
    pods,
    workloads: [
      { kind: "Deployment" as const, object: deployment },
      { kind: "ReplicaSet" as const, object: rs },
    ],
  };
}

export const MAPPING = {
  cluster: "prod-eu",
  logicalEnvironment: "production",
  physicalEnvironment: "eu-west-1",
  deploymentNameTemplate: "{namespace}-{workload}-{container}",
};
