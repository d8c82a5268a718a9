// The slice of Kubernetes objects the controller reads, as plain JSON (what list and watch bodies carry).
// Informer caches keep only these projections: a cluster of 10,000 pods must fit in a small controller.
import { DEPLOYMENT_TRACKER_PREFIX } from "./annotations.js";

/** Owner reference, as in metadata.ownerReferences. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

/** Object metadata fields the controller uses. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** A container of a pod spec or pod template. */
export interface Container {
  name: string;
  image?: string;
  /** Only on init containers: `Always` makes it a sidecar that runs for the pod's lifetime. */
  restartPolicy?: string;
}

/** Pod spec fields the controller uses. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
}

/** A container status (status.containerStatuses and status.initContainerStatuses). */
export interface ContainerStatus {
  name: string;
  image?: string;
  imageID?: string;
  ready?: boolean;
  state?: { running?: { startedAt?: string }; waiting?: { reason?: string }; terminated?: { reason?: string } };
}

/** A pod. */
export interface Pod {
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

/** Pod template, as in a workload's spec.template. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpec;
}

/** Deployment, ReplicaSet, StatefulSet and DaemonSet share this shape. */
export interface Workload {
  kind?: string;
  metadata: ObjectMeta;
  spec?: { replicas?: number; template?: PodTemplate };
  status?: { desiredNumberScheduled?: number; conditions?: { type: string; status: string }[] };
}

/** A Job. */
export interface Job {
  kind?: string;
  metadata: ObjectMeta;
  spec?: { template?: PodTemplate };
  status?: { conditions?: { type: string; status: string }[]; completionTime?: string };
}

/** A CronJob. */
export interface CronJob {
  kind?: string;
  metadata: ObjectMeta;
  spec?: { suspend?: boolean; jobTemplate?: { spec?: { template?: PodTemplate } } };
}

/** The kinds the controller watches. */
export type WatchedKind = "Pod" | "ReplicaSet" | "Deployment" | "StatefulSet" | "DaemonSet" | "Job" | "CronJob";

/**
 * Annotation keys kept in the caches: ours, deployment-tracker's (for its migration option; only where a cluster
 * still carries them), plus the Deployment revision used to rank ReplicaSets.
 */
export function isKeptAnnotation(key: string): boolean {
  return key.includes("shiplog.dev/") || key.startsWith(DEPLOYMENT_TRACKER_PREFIX) || key === "deployment.kubernetes.io/revision";
}

// Values repeated across thousands of objects (namespaces, kinds, images, image IDs) are stored once: JSON.parse
// makes a new string for every occurrence, and a cache of 10,000 pods would hold each of them many times over.
const interned = new Map<string, string>();
const MAX_INTERNED = 50_000;

/** The shared copy of a frequently repeated string. */
function intern(value: string): string {
  const found = interned.get(value);
  if (found !== undefined) return found;
  if (interned.size >= MAX_INTERNED) interned.clear();
  interned.set(value, value);
  return value;
}

function slimMeta(meta: Record<string, unknown> | undefined, keepUid = true): ObjectMeta {
  const m = meta ?? {};
  const out: ObjectMeta = { name: String(m.name ?? "") };
  if (typeof m.namespace === "string") out.namespace = intern(m.namespace);
  if (keepUid && typeof m.uid === "string") out.uid = m.uid;
  if (typeof m.resourceVersion === "string") out.resourceVersion = m.resourceVersion;
  const created = timestamp(m.creationTimestamp);
  if (created) out.creationTimestamp = created;
  const deleted = timestamp(m.deletionTimestamp);
  if (deleted) out.deletionTimestamp = deleted;
  const annotations = keptAnnotations(m.annotations);
  if (annotations) out.annotations = annotations;
  if (Array.isArray(m.ownerReferences) && m.ownerReferences.length > 0) {
    out.ownerReferences = (m.ownerReferences as Record<string, unknown>[]).map((o) => {
      const ref: OwnerReference = {
        apiVersion: intern(String(o.apiVersion ?? "")),
        kind: intern(String(o.kind ?? "")),
        name: String(o.name ?? ""),
        uid: String(o.uid ?? ""),
      };
      if (o.controller === true) ref.controller = true;
      return ref;
    });
  }
  return out;
}

function timestamp(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

function keptAnnotations(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== "object") return undefined;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "string" && isKeptAnnotation(k)) (out ??= {})[intern(k)] = intern(v);
  }
  return out;
}

function slimContainers(list: unknown): Container[] {
  if (!Array.isArray(list)) return [];
  return (list as Record<string, unknown>[]).map((c) => {
    const out: Container = { name: intern(String(c.name ?? "")) };
    if (typeof c.image === "string") out.image = intern(c.image);
    if (typeof c.restartPolicy === "string") out.restartPolicy = intern(c.restartPolicy);
    return out;
  });
}

function slimPodSpec(spec: unknown): PodSpec | undefined {
  if (!spec || typeof spec !== "object") return undefined;
  const s = spec as Record<string, unknown>;
  const out: PodSpec = { containers: slimContainers(s.containers) };
  if (Array.isArray(s.initContainers) && s.initContainers.length > 0) out.initContainers = slimContainers(s.initContainers);
  return out;
}

function slimTemplate(template: unknown): PodTemplate | undefined {
  if (!template || typeof template !== "object") return undefined;
  const t = template as Record<string, unknown>;
  const meta = (t.metadata ?? {}) as Record<string, unknown>;
  const out: PodTemplate = {};
  const annotations = keptAnnotations(meta.annotations);
  if (annotations) out.metadata = { annotations };
  // Template labels: the label selector filters workloads by the pods they make (pods are filtered server-side).
  if (meta.labels && typeof meta.labels === "object") {
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(meta.labels as Record<string, unknown>)) if (typeof v === "string") labels[intern(k)] = intern(v);
    (out.metadata ??= {}).labels = labels;
  }
  const spec = slimPodSpec(t.spec);
  if (spec) out.spec = spec;
  return out;
}

function slimStatuses(list: unknown): ContainerStatus[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as Record<string, unknown>[]).map((c) => {
    const out: ContainerStatus = { name: intern(String(c.name ?? "")) };
    if (typeof c.image === "string") out.image = intern(c.image);
    if (typeof c.imageID === "string") out.imageID = intern(c.imageID);
    if (typeof c.ready === "boolean") out.ready = c.ready;
    const state = c.state as Record<string, Record<string, unknown> | undefined> | undefined;
    if (state?.running) out.state = { running: {} };
    else if (state?.waiting) out.state = { waiting: {} };
    else if (state?.terminated) out.state = { terminated: {} };
    return out;
  });
}

function slimConditions(list: unknown): { type: string; status: string }[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as Record<string, unknown>[]).map((c) => ({ type: intern(String(c.type ?? "")), status: intern(String(c.status ?? "")) }));
}

/** Projects a full Kubernetes object (plain JSON or client-node model) onto the fields the controller reads. */
export function slimObject(kind: WatchedKind, raw: unknown): Pod | Workload | Job | CronJob {
  const obj = (raw ?? {}) as Record<string, unknown>;
  // Pods need no uid of their own (owners are matched by the uid in the pod's owner reference).
  const metadata = slimMeta(obj.metadata as Record<string, unknown> | undefined, kind !== "Pod");
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const status = (obj.status ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "Pod": {
      const pod: Pod = { metadata, status: {} };
      const podSpec = slimPodSpec(spec);
      if (podSpec) pod.spec = podSpec;
      if (typeof status.phase === "string") pod.status!.phase = intern(status.phase);
      const cs = slimStatuses(status.containerStatuses);
      if (cs) pod.status!.containerStatuses = cs;
      const ics = slimStatuses(status.initContainerStatuses);
      if (ics) pod.status!.initContainerStatuses = ics;
      return pod;
    }
    case "Job": {
      const job: Job = { metadata, spec: {} };
      const template = slimTemplate(spec.template);
      if (template) job.spec!.template = template;
      const conditions = slimConditions(status.conditions);
      job.status = {};
      if (conditions) job.status.conditions = conditions;
      return job;
    }
    case "CronJob": {
      const cronJob: CronJob = { metadata, spec: {} };
      if (typeof spec.suspend === "boolean") cronJob.spec!.suspend = spec.suspend;
      const jobTemplate = spec.jobTemplate as Record<string, unknown> | undefined;
      const template = slimTemplate((jobTemplate?.spec as Record<string, unknown> | undefined)?.template);
      if (template) cronJob.spec!.jobTemplate = { spec: { template } };
      return cronJob;
    }
    default: {
      const workload: Workload = { metadata, spec: {} };
      if (typeof spec.replicas === "number") workload.spec!.replicas = spec.replicas;
      const template = slimTemplate(spec.template);
      if (template) workload.spec!.template = template;
      workload.status = {};
      if (typeof status.desiredNumberScheduled === "number") workload.status.desiredNumberScheduled = status.desiredNumberScheduled;
      return workload;
    }
  }
}
