// Which workload a pod belongs to, by following controlling owner references through the real objects
// (never by trimming name suffixes): Pod -> ReplicaSet -> Deployment, Pod -> Job -> CronJob, Pod -> StatefulSet,
// Pod -> DaemonSet. An owner kind we do not watch (an Argo Rollout above a ReplicaSet, an operator's custom
// resource) is taken as the workload as-is. A pod without a controller is its own workload.
import type { CronJob, Job, ObjectMeta, OwnerReference, Pod, Workload } from "../kube/objects.js";
import type { Parsed } from "./image-reference.js";

/** The workload a record belongs to. */
export interface WorkloadRef {
  kind: string;
  namespace: string;
  name: string;
}

/** Where a workload stands in its life. Only `active` workloads have deployed records. */
export type WorkloadActivity = "active" | "deleting" | "scaled-to-zero" | "finished";

/** A resolved owner chain. */
export interface ResolvedWorkload {
  workload: WorkloadRef;
  /** The top workload object when it is a kind we watch (absent for unknown owner kinds). */
  object?: Workload | Job | CronJob | Pod;
  activity: WorkloadActivity;
  /** Annotations of the top workload, then of intermediate owners; pod annotations are merged after these. */
  annotations: (Record<string, string> | undefined)[];
  /** Deployment revision of the pod's ReplicaSet (0 when unknown): ranks pods of one workload during a rollout. */
  revision: number;
}

/** Read access to the informer caches. */
export interface OwnerLookup {
  get(kind: "ReplicaSet" | "Deployment" | "StatefulSet" | "DaemonSet", namespace: string, name: string): Workload | undefined;
  get(kind: "Job", namespace: string, name: string): Job | undefined;
  get(kind: "CronJob", namespace: string, name: string): CronJob | undefined;
}

/** The controlling owner reference of an object, if any. */
export function controllerOf(meta: ObjectMeta): OwnerReference | undefined {
  return meta.ownerReferences?.find((ref) => ref.controller === true);
}

function sameObject(ref: OwnerReference, object: { metadata: ObjectMeta } | undefined): boolean {
  // A uid mismatch means the owner was deleted and a new object took its name: the pod is an orphan being collected.
  return object !== undefined && (ref.uid === "" || object.metadata.uid === undefined || object.metadata.uid === ref.uid);
}

function group(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Activity of a workload object of a watched kind. */
export function workloadActivity(kind: string, object: Workload | Job | CronJob | Pod): WorkloadActivity {
  if (object.metadata.deletionTimestamp) return "deleting";
  switch (kind) {
    case "Deployment":
    case "StatefulSet":
    case "ReplicaSet":
      return ((object as Workload).spec?.replicas ?? 1) === 0 ? "scaled-to-zero" : "active";
    case "Job": {
      const done = (object as Job).status?.conditions?.some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
      return done ? "finished" : "active";
    }
    case "Pod": {
      const phase = (object as Pod).status?.phase;
      return phase === "Succeeded" || phase === "Failed" ? "finished" : "active";
    }
    default:
      return "active";
  }
}

function combine(a: WorkloadActivity, b: WorkloadActivity): WorkloadActivity {
  return a !== "active" ? a : b;
}

function revisionOf(meta: ObjectMeta): number {
  const value = Number(meta.annotations?.["deployment.kubernetes.io/revision"]);
  return Number.isFinite(value) ? value : 0;
}

function sameAnnotations(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b ?? {}).length && keys.every((key) => a![key] === b?.[key]);
}

/** Two owner references name the same owner (the controller flag aside). */
export function sameOwnerRef(a: OwnerReference, b: OwnerReference): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid;
}

function sameController(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && sameOwnerRef(a, b));
}

/**
 * True when what resolveWorkload reads of an owner (its uid, controlling owner, annotations, its activity, which
 * says whether it is being deleted) is the same before and after a change, so what resolves through it (its pods, a
 * Deployment's ReplicaSets) resolves alike: a ReplicaSet scaled from 4 replicas to 3, or a new template, is not.
 */
export function resolvesAlike(kind: string, before: Workload | Job | CronJob | Pod, after: Workload | Job | CronJob | Pod): boolean {
  const a = before.metadata;
  const b = after.metadata;
  return (
    a.uid === b.uid &&
    a.name === b.name &&
    sameController(controllerOf(a), controllerOf(b)) &&
    sameAnnotations(a.annotations, b.annotations) &&
    workloadActivity(kind, before) === workloadActivity(kind, after)
  );
}

/** Follows a pod's controlling owners up to its workload, using the caches. */
export function resolveWorkload(pod: Pod, lookup: OwnerLookup): Parsed<ResolvedWorkload> {
  const namespace = pod.metadata.namespace ?? "";
  const ref = controllerOf(pod.metadata);
  if (!ref) {
    return {
      ok: true,
      value: {
        workload: { kind: "Pod", namespace, name: pod.metadata.name },
        object: pod,
        activity: workloadActivity("Pod", pod),
        annotations: [],
        revision: 0,
      },
    };
  }
  const refGroup = group(ref.apiVersion);
  const missing = (kind: string, name: string): Parsed<ResolvedWorkload> => ({
    ok: false,
    reason: `owner ${kind} ${namespace}/${name} is not in the cache (deleted, or not yet seen)`,
  });

  if (refGroup === "apps" && ref.kind === "ReplicaSet") {
    const rs = lookup.get("ReplicaSet", namespace, ref.name);
    if (!sameObject(ref, rs)) return missing("ReplicaSet", ref.name);
    const rsActivity = rs!.metadata.deletionTimestamp ? "deleting" : "active";
    const revision = revisionOf(rs!.metadata);
    const top = controllerOf(rs!.metadata);
    if (!top) {
      return {
        ok: true,
        value: {
          workload: { kind: "ReplicaSet", namespace, name: rs!.metadata.name },
          object: rs!,
          activity: workloadActivity("ReplicaSet", rs!),
          annotations: [rs!.metadata.annotations],
          revision,
        },
      };
    }
    if (group(top.apiVersion) === "apps" && top.kind === "Deployment") {
      const deployment = lookup.get("Deployment", namespace, top.name);
      if (!sameObject(top, deployment)) return missing("Deployment", top.name);
      return {
        ok: true,
        value: {
          workload: { kind: "Deployment", namespace, name: top.name },
          object: deployment!,
          activity: combine(workloadActivity("Deployment", deployment!), rsActivity),
          annotations: [deployment!.metadata.annotations, rs!.metadata.annotations],
          revision,
        },
      };
    }
    // An owner we do not watch (Argo Rollout and the like): its own name is the workload name.
    return {
      ok: true,
      value: {
        workload: { kind: top.kind, namespace, name: top.name },
        activity: rsActivity,
        annotations: [rs!.metadata.annotations],
        revision,
      },
    };
  }

  if (refGroup === "batch" && ref.kind === "Job") {
    const job = lookup.get("Job", namespace, ref.name);
    if (!sameObject(ref, job)) return missing("Job", ref.name);
    const top = controllerOf(job!.metadata);
    if (top && group(top.apiVersion) === "batch" && top.kind === "CronJob") {
      const cronJob = lookup.get("CronJob", namespace, top.name);
      if (!sameObject(top, cronJob)) return missing("CronJob", top.name);
      return {
        ok: true,
        value: {
          workload: { kind: "CronJob", namespace, name: top.name },
          object: cronJob!,
          // A finished Job of a live CronJob is not a reason to decommission: the CronJob runs that image again.
          activity: combine(workloadActivity("CronJob", cronJob!), job!.metadata.deletionTimestamp ? "deleting" : "active"),
          annotations: [cronJob!.metadata.annotations, job!.metadata.annotations],
          revision: 0,
        },
      };
    }
    if (top) {
      return {
        ok: true,
        value: {
          workload: { kind: top.kind, namespace, name: top.name },
          activity: workloadActivity("Job", job!),
          annotations: [job!.metadata.annotations],
          revision: 0,
        },
      };
    }
    return {
      ok: true,
      value: {
        workload: { kind: "Job", namespace, name: job!.metadata.name },
        object: job!,
        activity: workloadActivity("Job", job!),
        annotations: [job!.metadata.annotations],
        revision: 0,
      },
    };
  }

  if (refGroup === "apps" && (ref.kind === "StatefulSet" || ref.kind === "DaemonSet")) {
    const object = lookup.get(ref.kind, namespace, ref.name);
    if (!sameObject(ref, object)) return missing(ref.kind, ref.name);
    return {
      ok: true,
      value: {
        workload: { kind: ref.kind, namespace, name: ref.name },
        object: object!,
        activity: workloadActivity(ref.kind, object!),
        annotations: [object!.metadata.annotations],
        revision: 0,
      },
    };
  }

  return {
    ok: true,
    value: { workload: { kind: ref.kind, namespace, name: ref.name }, activity: "active", annotations: [], revision: 0 },
  };
}
