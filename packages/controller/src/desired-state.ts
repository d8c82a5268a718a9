// The records the cluster should have now, computed from the informer caches (desired state, not events).
//
// - One record per deployment name (per environment group). Among the pods of a workload, a ready container
//   beats a not-ready one, then the newest revision (the Deployment revision of the pod's ReplicaSet), then the
//   newest pod: during a rollout the newest ready revision wins.
// - A workload that is deleted, being deleted (foreground deletion), scaled to zero, or finished (a bare Job)
//   contributes nothing, so its records are decommissioned.
// - A live workload with no running container for a name (crash loop, pods being rescheduled, a CronJob between
//   runs) "holds" that name: whatever was recorded stays as it is, neither replaced nor decommissioned.
// - Two different workloads that map to one deployment name are a conflict: reported, both held, never merged.
// - Workloads are filtered as their pods are: by namespace, and by the label selector on their pod template.
import { mergeAnnotations, readIgnore, readRecordAnnotations } from "./annotations.js";
import type { CronJob, Job, Pod, PodTemplate, Workload } from "./kube-objects.js";
import {
  placeRecord,
  podRecords,
  recordKey,
  trackedContainers,
  type CandidateRecord,
  type MappingOptions,
  type RecordGroup,
  type SkippedItem,
} from "./pod-records.js";
import type { AnnotationWarning } from "./annotations.js";
import { controllerOf, resolveWorkload, workloadActivity, type OwnerLookup, type ResolvedWorkload, type WorkloadRef } from "./workload-owner.js";

/** Kinds listed as workloads (everything watched but pods). */
export type WorkloadKind = "Deployment" | "StatefulSet" | "DaemonSet" | "CronJob" | "ReplicaSet" | "Job";

/** The informer caches, read-only. */
export interface ClusterSnapshot extends OwnerLookup {
  pods(): Iterable<Pod>;
  workloads(): Iterable<{ kind: WorkloadKind; object: Workload | Job | CronJob }>;
}

/** A record the cluster should have. */
export interface DesiredRecord extends CandidateRecord {}

/** Different workloads that map to one deployment name. */
export interface NameConflict {
  key: string;
  group: RecordGroup;
  deploymentName: string;
  workloads: WorkloadRef[];
}

/** The desired state of the cluster's records. */
export interface DesiredState {
  records: Map<string, DesiredRecord>;
  /** Keys that must be left as they are (live workload with nothing running for the name, or a conflict). */
  held: Set<string>;
  conflicts: NameConflict[];
  skipped: SkippedItem[];
  warnings: (AnnotationWarning & { subject: string })[];
}

/** Options of the desired-state computation. */
export interface DesiredStateOptions extends MappingOptions {
  /** Namespace filter (include and exclude lists); absent means all namespaces. */
  namespaceAllowed?: (namespace: string) => boolean;
  /**
   * The label selector's matcher, applied to workloads' pod templates: a workload whose pods the selector leaves
   * out neither holds nor claims names (its pods are filtered out by the API server already). Absent: all match.
   */
  podLabelsMatch?: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  /** Reuses the mapping of pods unchanged since the last computation (same options required). */
  memo?: PodRecordsMemo;
}

type PodRecordsResult = ReturnType<typeof podRecords>;

/**
 * Remembers each pod's records by object identity (the informer cache replaces an object when it changes), so a
 * flush over 10,000 pods maps only the pods that changed. Entries go with their pods (a WeakMap).
 */
export class PodRecordsMemo {
  readonly #entries = new WeakMap<Pod, { owner: ResolvedWorkload; result: PodRecordsResult }>();

  /** The records of a pod, mapped again only if the pod or its owner chain changed. */
  records(pod: Pod, owner: ResolvedWorkload, options: MappingOptions): PodRecordsResult {
    const cached = this.#entries.get(pod);
    if (cached && sameOwner(cached.owner, owner)) return cached.result;
    const result = podRecords(pod, owner, options);
    this.#entries.set(pod, { owner, result });
    return result;
  }
}

function sameOwner(a: ResolvedWorkload, b: ResolvedWorkload): boolean {
  return (
    a.workload.kind === b.workload.kind &&
    a.workload.name === b.workload.name &&
    a.workload.namespace === b.workload.namespace &&
    a.revision === b.revision &&
    a.annotations.length === b.annotations.length &&
    a.annotations.every((x, i) => x === b.annotations[i])
  );
}

/** True when candidate a should be recorded rather than b (same name, same workload). */
export function preferCandidate(a: CandidateRecord, b: CandidateRecord): boolean {
  if (a.ready !== b.ready) return a.ready;
  if (a.revision !== b.revision) return a.revision > b.revision;
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  return a.pod > b.pod;
}

function workloadId(ref: WorkloadRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

function templateOf(kind: WorkloadKind, object: Workload | Job | CronJob): PodTemplate | undefined {
  if (kind === "CronJob") return (object as CronJob).spec?.jobTemplate?.spec?.template;
  return (object as Workload | Job).spec?.template;
}

/** The workload a listed object stands for, or undefined when a higher owner (Deployment, CronJob) covers it. */
function workloadOfObject(kind: WorkloadKind, object: Workload | Job | CronJob): WorkloadRef | undefined {
  const namespace = object.metadata.namespace ?? "";
  const owner = controllerOf(object.metadata);
  if ((kind === "ReplicaSet" || kind === "Job") && owner) {
    const group = owner.apiVersion.split("/")[0];
    if (kind === "ReplicaSet" && group === "apps" && owner.kind === "Deployment") return undefined;
    if (kind === "Job" && group === "batch" && owner.kind === "CronJob") return undefined;
    return { kind: owner.kind, namespace, name: owner.name };
  }
  return { kind, namespace, name: object.metadata.name };
}

/** Computes the records the cluster should have from its caches. Pure. */
export function computeDesiredState(snapshot: ClusterSnapshot, options: DesiredStateOptions): DesiredState {
  const allowed = options.namespaceAllowed ?? (() => true);
  const best = new Map<string, Map<string, CandidateRecord>>(); // key -> workload id -> best candidate
  const claims = new Map<string, { group: RecordGroup; deploymentName: string; workloads: Map<string, WorkloadRef> }>();
  const heldCandidates = new Set<string>();
  const skipped: SkippedItem[] = [];
  const warnings: (AnnotationWarning & { subject: string })[] = [];

  const claim = (key: string, group: RecordGroup, deploymentName: string, workload: WorkloadRef): void => {
    let entry = claims.get(key);
    if (!entry) claims.set(key, (entry = { group, deploymentName, workloads: new Map() }));
    entry.workloads.set(workloadId(workload), workload);
  };

  const hold = (workload: WorkloadRef, annotationSources: (Record<string, string> | undefined)[], template: PodTemplate | undefined): void => {
    const merged = mergeAnnotations(...annotationSources, template?.metadata?.annotations);
    if (readIgnore(merged).ignore) return;
    for (const { container } of trackedContainers(template?.spec)) {
      const annotations = readRecordAnnotations(merged, container.name).value;
      const { group, deploymentName } = placeRecord(workload, container.name, annotations, options);
      const key = recordKey(group, deploymentName);
      claim(key, group, deploymentName, workload);
      heldCandidates.add(key);
    }
  };

  for (const pod of snapshot.pods()) {
    const namespace = pod.metadata.namespace ?? "";
    if (!allowed(namespace)) continue;
    const resolved = resolveWorkload(pod, snapshot);
    if (!resolved.ok) {
      if (!pod.metadata.deletionTimestamp) skipped.push({ subject: `${namespace}/${pod.metadata.name}`, reason: resolved.reason });
      continue;
    }
    const owner = resolved.value;
    if (owner.activity !== "active") continue;
    if (owner.workload.kind === "Pod" && !pod.metadata.deletionTimestamp) hold(owner.workload, [], pod);
    const result = options.memo ? options.memo.records(pod, owner, options) : podRecords(pod, owner, options);
    skipped.push(...result.skipped);
    warnings.push(...result.warnings);
    for (const record of result.records) {
      claim(record.key, record.group, record.entry.deployment_name, record.workload);
      let byWorkload = best.get(record.key);
      if (!byWorkload) best.set(record.key, (byWorkload = new Map()));
      const id = workloadId(record.workload);
      const current = byWorkload.get(id);
      if (!current || preferCandidate(record, current)) byWorkload.set(id, record);
    }
  }

  for (const { kind, object } of snapshot.workloads()) {
    const namespace = object.metadata.namespace ?? "";
    if (!allowed(namespace)) continue;
    const workload = workloadOfObject(kind, object);
    if (!workload) continue;
    if (workloadActivity(kind, object) !== "active") continue;
    const template = templateOf(kind, object);
    // Outside the selector: like a workload in an excluded namespace, it claims nothing, so what it recorded
    // before its pods stopped matching is decommissioned, and it cannot conflict with a selected workload.
    if (options.podLabelsMatch && !options.podLabelsMatch(template?.metadata?.labels)) continue;
    hold(workload, [object.metadata.annotations], template);
  }

  const records = new Map<string, DesiredRecord>();
  const held = new Set<string>();
  const conflicts: NameConflict[] = [];
  for (const [key, claimed] of claims) {
    if (claimed.workloads.size > 1) {
      conflicts.push({
        key,
        group: claimed.group,
        deploymentName: claimed.deploymentName,
        workloads: [...claimed.workloads.values()].sort((a, b) => workloadId(a).localeCompare(workloadId(b))),
      });
      held.add(key);
      continue;
    }
    const candidate = best.get(key)?.values().next().value;
    if (candidate) records.set(key, candidate);
    else if (heldCandidates.has(key)) held.add(key);
  }
  return { records, held, conflicts, skipped, warnings };
}
