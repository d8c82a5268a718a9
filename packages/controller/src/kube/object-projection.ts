// What an informer cache keeps of an object: the fields the mapping reads (kube/objects.ts), as client-go's
// transform functions trim objects before they are stored. At 150,000 pods every byte kept per pod is 150 KB, so:
// - only the controlling owner reference, only native sidecars of the init containers, only which container state is
//   set, only the Complete/Failed conditions of a Job, a pod's own uid never (owners are matched by the uid in the
//   owner reference), no resourceVersion (an update is told apart by what it says: sameProjection), template
//   labels only when a label selector needs them;
// - the pods of one owner (a ReplicaSet, a StatefulSet...) share one copy of their spec, of their status while it is
//   equal (image, digest, readiness) and of their owner reference; a ReplicaSet's template shares its pods' spec;
//   a Deployment's or a CronJob's template keeps its container names only, one copy for every equal set of names;
//   low-variety strings (namespaces, container names, annotations) are stored once. Shared parts are frozen;
// - every object is built as one literal with all its fields, so V8 gives it a fixed shape with no overflow storage.
import type { Container, ContainerStatus, CronJob, Job, ObjectMeta, OwnerReference } from "./objects.js";
import type { Pod, PodSpec, PodStatus, PodTemplate, WatchedKind, Workload } from "./objects.js";
import { isKeptAnnotation } from "./objects.js";
import { Interner, StringInterner } from "./interner.js";
import { sameOwnerRef } from "../mapping/workload-owner.js";
import { NAMESPACE_REPOSITORY_KEY, namespaceRepository } from "../mapping/repository-rules.js";

const strings = new StringInterner();
const intern = (value: string): string => strings.intern(value);
/** Shared parts, keyed by the uid of the owner whose pods (and template) they belong to. */
const FAMILY_GENERATION = 1 << 17;
const ownerRefs = new Interner<readonly OwnerReference[]>(FAMILY_GENERATION);
const podSpecs = new Interner<PodSpec>(FAMILY_GENERATION);
const podStatuses = new Interner<PodStatus>(FAMILY_GENERATION);
/** Names-only template specs, keyed by their container names (a handful of sets in a whole cluster). */
const namedSpecs = new Interner<PodSpec>(1 << 12);

// Only which state is set is read (running or not): one shared object each.
const RUNNING = Object.freeze({ running: Object.freeze({}) });
const WAITING = Object.freeze({ waiting: Object.freeze({}) });
const TERMINATED = Object.freeze({ terminated: Object.freeze({}) });

/** What a projection keeps beyond the fields the mapping always reads. */
export interface ProjectionOptions {
  /** Pod template labels (read only to apply a label selector to workloads). Default true. */
  templateLabels?: boolean;
}

type Raw = Record<string, unknown>;

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined, same: (x: T, y: T) => boolean): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((x, i) => same(x, b[i]!));
}

const sameContainer = (a: Container, b: Container) => a.name === b.name && a.image === b.image && a.restartPolicy === b.restartPolicy;
const sameStatus = (a: ContainerStatus, b: ContainerStatus) =>
  a.name === b.name && a.image === b.image && a.imageID === b.imageID && a.ready === b.ready && a.state === b.state;
const sameSpec = (a: PodSpec, b: PodSpec) =>
  sameList(a.containers, b.containers, sameContainer) && sameList(a.initContainers, b.initContainers, sameContainer);
const samePodStatus = (a: PodStatus, b: PodStatus) =>
  a.phase === b.phase &&
  sameList(a.containerStatuses, b.containerStatuses, sameStatus) &&
  sameList(a.initContainerStatuses, b.initContainerStatuses, sameStatus);
const sameRefs = (a: readonly OwnerReference[], b: readonly OwnerReference[]) => sameList(a, b, sameOwnerRef);

function frozen<T extends object>(list: T[]): T[] {
  for (const item of list) Object.freeze(item);
  return Object.freeze(list) as T[];
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : value instanceof Date ? value.toISOString() : undefined;
const list = (value: unknown): Raw[] =>
  Array.isArray(value) ? (value as unknown[]).filter((v): v is Raw => !!v && typeof v === "object") : [];

/** The annotations the mapping reads of an object of `kind` (a pod template's are a pod's). */
function keptAnnotations(value: unknown, kind: WatchedKind): Record<string, string> | undefined {
  if (!value || typeof value !== "object") return undefined;
  const kept = Object.entries(value as Raw).filter((e): e is [string, string] => typeof e[1] === "string" && isKeptAnnotation(e[0], kind));
  return kept.length > 0 ? Object.fromEntries(kept.map(([k, v]) => [intern(k), intern(v)])) : undefined;
}

function controllerRef(meta: Raw): readonly OwnerReference[] | undefined {
  const owner = list(meta.ownerReferences).find((o) => o.controller === true);
  if (!owner) return undefined;
  const ref: OwnerReference = {
    apiVersion: intern(String(owner.apiVersion ?? "")),
    kind: intern(String(owner.kind ?? "")),
    name: String(owner.name ?? ""),
    uid: String(owner.uid ?? ""),
    controller: true,
  };
  return ownerRefs.share(ref.uid || `${ref.kind}/${ref.name}`, frozen([ref]), sameRefs);
}

function podMeta(m: Raw): ObjectMeta {
  return {
    name: String(m.name ?? ""),
    namespace: typeof m.namespace === "string" ? intern(m.namespace) : undefined,
    creationTimestamp: intern(text(m.creationTimestamp) ?? ""),
    deletionTimestamp: text(m.deletionTimestamp),
    annotations: keptAnnotations(m.annotations, "Pod"),
    ownerReferences: controllerRef(m) as OwnerReference[] | undefined,
  };
}

function workloadMeta(m: Raw, kind: WatchedKind): ObjectMeta {
  return {
    name: String(m.name ?? ""),
    namespace: typeof m.namespace === "string" ? intern(m.namespace) : undefined,
    uid: text(m.uid),
    deletionTimestamp: text(m.deletionTimestamp),
    annotations: keptAnnotations(m.annotations, kind),
    ownerReferences: controllerRef(m) as OwnerReference[] | undefined,
  };
}

// A Deployment's or a CronJob's template makes no pod itself (its ReplicaSets and Jobs do, from their own copy):
// only its container names are read (the names a live workload holds), so it keeps those alone.
const NAMES_ONLY = Symbol("names only");

function container(c: Raw, sidecar: boolean, withImage: boolean): Container {
  const image = withImage ? text(c.image) : undefined;
  return { name: intern(String(c.name ?? "")), image: image && intern(image), restartPolicy: sidecar ? "Always" : undefined };
}

/**
 * Regular containers and native sidecars, shared with the equal specs of `family` (its pods, its template); or, for
 * family "names only", their names only, shared by every template with those names.
 */
function podSpec(spec: unknown, family: string | undefined | typeof NAMES_ONLY): PodSpec | undefined {
  if (!spec || typeof spec !== "object") return undefined;
  const s = spec as Raw;
  const withImage = family !== NAMES_ONLY;
  const sidecars = list(s.initContainers).filter((c) => c.restartPolicy === "Always");
  const out: PodSpec = {
    containers: frozen(list(s.containers).map((c) => container(c, false, withImage))),
    initContainers: sidecars.length > 0 ? frozen(sidecars.map((c) => container(c, true, withImage))) : undefined,
  };
  Object.freeze(out);
  if (family === NAMES_ONLY) {
    const names = [...out.containers, { name: "" }, ...(out.initContainers ?? [])].map((c) => c.name);
    return namedSpecs.share(names.join("\u0000"), out, sameSpec);
  }
  return family ? podSpecs.share(family, out, sameSpec) : out;
}

function template(raw: unknown, options: ProjectionOptions, family: string | undefined | typeof NAMES_ONLY): PodTemplate | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const t = raw as Raw;
  const meta = (t.metadata ?? {}) as Raw;
  const annotations = keptAnnotations(meta.annotations, "Pod");
  // Template labels: the label selector filters workloads by the pods they make (pods are filtered server-side).
  const labels =
    options.templateLabels !== false && meta.labels && typeof meta.labels === "object"
      ? Object.fromEntries(Object.entries(meta.labels as Raw).flatMap(([k, v]) => (typeof v === "string" ? [[intern(k), intern(v)]] : [])))
      : undefined;
  return { metadata: annotations || labels ? { labels, annotations } : undefined, spec: podSpec(t.spec, family) };
}

function statuses(raw: unknown, keep?: ReadonlySet<string>): ContainerStatus[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  // map() allocates the list at its exact size (a list pushed to keeps 16 spare slots).
  const kept = keep ? list(raw).filter((c) => keep.has(String(c.name ?? ""))) : list(raw);
  return frozen(
    kept.map((c) => {
      const state = c.state as Raw | undefined;
      return {
        name: intern(String(c.name ?? "")),
        image: typeof c.image === "string" ? intern(c.image) : undefined,
        imageID: text(c.imageID),
        ready: typeof c.ready === "boolean" ? c.ready : undefined,
        state: state?.running ? RUNNING : state?.waiting ? WAITING : state?.terminated ? TERMINATED : undefined,
      };
    }),
  );
}

function pod(metadata: ObjectMeta, spec: unknown, status: Raw): Pod {
  // The pods of one owner (a ReplicaSet, a StatefulSet...) share their spec, and their status while equal.
  const family = metadata.ownerReferences?.[0]?.uid || undefined;
  const projectedSpec = podSpec(spec, family);
  const sidecars = projectedSpec?.initContainers ? new Set(projectedSpec.initContainers.map((c) => c.name)) : undefined;
  const projectedStatus: PodStatus = Object.freeze({
    phase: typeof status.phase === "string" ? intern(status.phase) : undefined,
    containerStatuses: statuses(status.containerStatuses),
    initContainerStatuses: sidecars ? statuses(status.initContainerStatuses, sidecars) : undefined,
  });
  return { metadata, spec: projectedSpec, status: family ? podStatuses.share(family, projectedStatus, samePodStatus) : projectedStatus };
}

/**
 * Projects a full Kubernetes object (plain JSON or client-node model) onto the fields the mapping reads: what an
 * informer cache keeps.
 */
export function slimObject(kind: WatchedKind, raw: unknown, options: ProjectionOptions = {}): Pod | Workload | Job | CronJob {
  const obj = (raw ?? {}) as Raw;
  const meta = (obj.metadata ?? {}) as Raw;
  const spec = (obj.spec ?? {}) as Raw;
  const status = (obj.status ?? {}) as Raw;
  if (kind === "Pod") return pod(podMeta(meta), obj.spec, status);
  const metadata = workloadMeta(meta, kind);
  // A workload's template shares its spec with its pods' when it makes them directly (a ReplicaSet, a Job...).
  const family = metadata.uid;
  switch (kind) {
    case "Job": {
      const done = list(status.conditions).filter((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
      return {
        metadata,
        spec: { template: template(spec.template, options, family) },
        status: done.length > 0 ? { conditions: done.map((c) => ({ type: intern(String(c.type)), status: "True" })) } : undefined,
      };
    }
    case "CronJob": {
      const jobSpec = ((spec.jobTemplate as Raw | undefined)?.spec ?? {}) as Raw;
      return { metadata, spec: { jobTemplate: { spec: { template: template(jobSpec.template, options, NAMES_ONLY) } } } };
    }
    default: {
      const replicas = typeof spec.replicas === "number" ? spec.replicas : undefined;
      return { metadata, spec: { replicas, template: template(spec.template, options, kind === "Deployment" ? NAMES_ONLY : family) } };
    }
  }
}

/**
 * A namespace as the caches keep it: its name and, as the one annotation kept, the repository its label or
 * annotation names (mapping/repository-rules.ts), so that a change of anything else is no change.
 */
export function namespaceProjection(raw: unknown): Workload {
  const meta = (((raw ?? {}) as Raw).metadata ?? {}) as Raw;
  const repository = namespaceRepository({
    labels: meta.labels as Record<string, string> | undefined,
    annotations: meta.annotations as Record<string, string> | undefined,
  });
  const name = String(meta.name ?? "");
  return { metadata: repository === undefined ? { name } : { name, annotations: { [NAMESPACE_REPOSITORY_KEY]: repository } } };
}

/**
 * Two projections of one object say the same: the update between them changed nothing the mapping reads (a pod
 * scheduled, a condition, a grace period), so the desired state need not look again and the cache keeps its copy.
 */
export function sameProjection(a: Pod | Workload | Job | CronJob, b: Pod | Workload | Job | CronJob): boolean {
  return deepEqual(a, b);
}

/** Plain-data equality; shared (interned) parts are equal by reference at once. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => deepEqual((a as Raw)[key], (b as Raw)[key]));
}
