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
import type { CronJob, Job, Pod, PodTemplate, Workload } from "../kube/objects.js";
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
import { controllerOf, resolveWorkload, workloadActivity } from "./workload-owner.js";
import type { OwnerLookup, ResolvedWorkload, WorkloadRef } from "./workload-owner.js";

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
}

/** True when candidate a should be recorded rather than b (same name, same workload). */
export function preferCandidate(a: CandidateRecord, b: CandidateRecord): boolean {
  if (a.ready !== b.ready) return a.ready;
  if (a.revision !== b.revision) return a.revision > b.revision;
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  return a.pod > b.pod;
}

/** The identity of a workload: kind, namespace and name. */
export function workloadId(ref: WorkloadRef): string {
  return [ref.kind, ref.namespace, ref.name].join("/");
}

function templateOf(kind: WorkloadKind, object: Workload | Job | CronJob): PodTemplate | undefined {
  if (kind === "CronJob") return (object as CronJob).spec?.jobTemplate?.spec?.template;
  return (object as Workload | Job).spec?.template;
}

/** The workload a listed object stands for, or undefined when a higher owner (Deployment, CronJob) covers it. */
export function workloadOfObject(kind: WorkloadKind, object: Workload | Job | CronJob): WorkloadRef | undefined {
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

/** A pod or a workload object that belongs to a workload: what its contribution is computed from. */
export type WorkloadMember = { pod: Pod; owner: ResolvedWorkload } | { kind: WorkloadKind; object: Workload | Job | CronJob };

/** A record key one workload claims: its best candidate record for the key, or held (nothing running for it). */
export interface Claim {
  key: string;
  group: RecordGroup;
  deploymentName: string;
  best: CandidateRecord | undefined;
  held: boolean;
}

/** What the pods and objects of one workload contribute to the desired state. */
export interface WorkloadContribution {
  claims: Claim[];
  skipped: SkippedItem[];
  warnings: (AnnotationWarning & { subject: string })[];
}

/** The empty list every workload without skipped items or warnings shares (frozen: nothing may add to it). */
const NOTHING: never[] = [];
Object.freeze(NOTHING);

/**
 * The contribution of one workload's members (pods resolved to it, objects standing for it). Pure. Given the
 * workload's `previous` claims, a claim for the same key keeps their strings: the maps keyed by it hold the first
 * copy, so a new one would be a second copy kept as long as the record.
 */
export function contributeWorkload(
  workload: WorkloadRef,
  members: Iterable<WorkloadMember>,
  options: DesiredStateOptions,
  previous: readonly Claim[] = [],
): WorkloadContribution {
  const claims: Claim[] = [];
  const skipped: SkippedItem[] = [];
  const warnings: (AnnotationWarning & { subject: string })[] = [];
  const claimOf = (key: string, group: RecordGroup, deploymentName: string): Claim => {
    let claim = claims.find((c) => c.key === key);
    if (!claim) {
      const earlier = previous.find((c) => c.key === key);
      claim = { key: earlier?.key ?? key, group, deploymentName: earlier?.deploymentName ?? deploymentName, best: undefined, held: false };
      claims.push(claim);
    }
    return claim;
  };
  const hold = (annotationSources: (Record<string, string> | undefined)[], template: PodTemplate | undefined): void => {
    const merged = mergeAnnotations(...annotationSources, template?.metadata?.annotations);
    if (readIgnore(merged).ignore) return;
    for (const { container } of trackedContainers(template?.spec)) {
      const annotations = readRecordAnnotations(merged, container.name).value;
      const { group, deploymentName } = placeRecord(workload, container.name, annotations, options);
      claimOf(recordKey(group, deploymentName), group, deploymentName).held = true;
    }
  };
  for (const member of members) {
    if ("pod" in member) {
      const { pod, owner } = member;
      if (owner.activity !== "active") continue;
      if (owner.workload.kind === "Pod" && !pod.metadata.deletionTimestamp) hold([], pod);
      const result = podRecords(pod, owner, options);
      skipped.push(...result.skipped);
      warnings.push(...result.warnings);
      for (const record of result.records) {
        const claim = claimOf(record.key, record.group, record.entry.deployment_name);
        if (claim.best && !preferCandidate(record, claim.best)) continue;
        // A desired state holds one record per key for as long as it lives: the best shares its claim's copies of
        // the key, names and workload (equal by construction) instead of keeping its own.
        record.key = claim.key;
        record.entry.deployment_name = claim.deploymentName;
        record.workload = workload;
        claim.best = record;
      }
      continue;
    }
    const { kind, object } = member;
    if (workloadActivity(kind, object) !== "active") continue;
    const template = templateOf(kind, object);
    // Outside the selector: like a workload in an excluded namespace, it claims nothing, so what it recorded
    // before its pods stopped matching is decommissioned, and it cannot conflict with a selected workload.
    if (options.podLabelsMatch && !options.podLabelsMatch(template?.metadata?.labels)) continue;
    hold([object.metadata.annotations], template);
  }
  // Exactly sized (a pushed-to short array keeps 16 spare slots), since the tracker keeps them.
  const exact = <T>(list: T[]): T[] => (list.length > 0 ? list.slice() : NOTHING);
  return { claims: exact(claims), skipped: exact(skipped), warnings: exact(warnings) };
}

/** What the desired state holds for one key, given every workload claiming it. */
export type Settled = { record: DesiredRecord } | { held: true; conflict?: NameConflict } | undefined;

/** Settles one key: a single claimant's best record, or held; two workloads or more are a conflict (held). Pure. */
export function settleKey(key: string, claimants: readonly { workload: WorkloadRef; claim: Claim }[]): Settled {
  if (claimants.length === 0) return undefined;
  if (claimants.length > 1) {
    const { group, deploymentName } = claimants[0]!.claim;
    const workloads = claimants.map((c) => c.workload).sort((a, b) => workloadId(a).localeCompare(workloadId(b)));
    return { held: true, conflict: { key, group, deploymentName, workloads } };
  }
  const { claim } = claimants[0]!;
  if (claim.best) return { record: claim.best };
  return claim.held ? { held: true } : undefined;
}

/** The workload a pod belongs to, or, when its owner is not in the cache, why it is skipped. */
export function resolveMember(pod: Pod, snapshot: ClusterSnapshot): { owner: ResolvedWorkload } | { skipped?: SkippedItem } {
  const resolved = resolveWorkload(pod, snapshot);
  if (resolved.ok) return { owner: resolved.value };
  // A pod being deleted with its owner gone is the garbage collector at work, not a problem to report.
  if (pod.metadata.deletionTimestamp) return {};
  return { skipped: { subject: `${pod.metadata.namespace ?? ""}/${pod.metadata.name}`, reason: resolved.reason } };
}

/** Computes the records the cluster should have from its caches. Pure. */
export function computeDesiredState(snapshot: ClusterSnapshot, options: DesiredStateOptions): DesiredState {
  const allowed = options.namespaceAllowed ?? (() => true);
  const members = new Map<string, { workload: WorkloadRef; members: WorkloadMember[] }>();
  const skipped: SkippedItem[] = [];
  const warnings: (AnnotationWarning & { subject: string })[] = [];
  const join = (workload: WorkloadRef, member: WorkloadMember): void => {
    const id = workloadId(workload);
    let entry = members.get(id);
    if (!entry) {
      entry = { workload, members: [] };
      members.set(id, entry);
    }
    entry.members.push(member);
  };
  for (const pod of snapshot.pods()) {
    if (!allowed(pod.metadata.namespace ?? "")) continue;
    const resolved = resolveMember(pod, snapshot);
    if ("owner" in resolved) join(resolved.owner.workload, { pod, owner: resolved.owner });
    else if (resolved.skipped) skipped.push(resolved.skipped);
  }
  for (const { kind, object } of snapshot.workloads()) {
    if (!allowed(object.metadata.namespace ?? "")) continue;
    const workload = workloadOfObject(kind, object);
    if (workload) join(workload, { kind, object });
  }

  const claimants = new Map<string, { workload: WorkloadRef; claim: Claim }[]>();
  for (const { workload, members: list } of members.values()) {
    const contribution = contributeWorkload(workload, list, options);
    skipped.push(...contribution.skipped);
    warnings.push(...contribution.warnings);
    for (const claim of contribution.claims) {
      let forKey = claimants.get(claim.key);
      if (!forKey) {
        forKey = [];
        claimants.set(claim.key, forKey);
      }
      forKey.push({ workload, claim });
    }
  }
  const records = new Map<string, DesiredRecord>();
  const held = new Set<string>();
  const conflicts: NameConflict[] = [];
  for (const [key, forKey] of claimants) {
    const settled = settleKey(key, forKey);
    if (!settled) continue;
    if ("record" in settled) records.set(key, settled.record);
    else {
      held.add(key);
      if (settled.conflict) conflicts.push(settled.conflict);
    }
  }
  return { records, held, conflicts, skipped, warnings };
}
