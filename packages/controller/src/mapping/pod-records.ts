// Records a pod stands for: one per container that is running now, with the digest it really runs.
//
// Containers, deliberately:
// - `spec.containers`: tracked.
// - init containers with `restartPolicy: Always` (native sidecars, Kubernetes 1.28+): tracked, they run for the
//   pod's whole life like any container.
// - other init containers: not tracked; they run to completion before the application starts and are not
//   deployed software in the sense of a deployment record.
// - ephemeral containers (`kubectl debug`): not tracked; they are temporary debugging tools, not deployments.
import type { ClusterDeploymentEntry } from "@shiplog/client";
import { parseImageReference, type ImageReference } from "@shiplog/client/internal";
import { mergeAnnotations, readIgnore, readRecordAnnotations, type AnnotationWarning, type RecordAnnotations } from "./annotations.js";
import { runningDigest } from "./image-reference.js";
import { StringInterner } from "../kube/interner.js";
import { resolveRepository, type RepositoryRules } from "./repository-rules.js";
import type { Container, ContainerStatus, Pod, PodSpec } from "../kube/objects.js";
import type { ResolvedWorkload, WorkloadRef } from "./workload-owner.js";

/** Settings the mapping needs. */
export interface MappingOptions {
  cluster: string;
  logicalEnvironment: string;
  physicalEnvironment?: string;
  /** Placeholders: {namespace}, {workload}, {kind}, {container}, {cluster}. */
  deploymentNameTemplate: string;
  /** Also read github/deployment-tracker's annotations (see mapping/annotations.ts). */
  deploymentTrackerAnnotations?: boolean;
  /**
   * The repository rules besides the workload's annotation (mapping/repository-rules.ts): the cluster-wide ones, and the
   * repository a namespace names (from the namespace cache). Absent: the annotation only.
   */
  repositories?: { rules: RepositoryRules; namespaceRepository?: (namespace: string) => string | undefined };
}

const ANNOTATION_ONLY: RepositoryRules = { org: "", imageRepositories: [], registryHost: "" };

/** The logical and physical environment a record lives in; one cluster call per group. */
export interface RecordGroup {
  logicalEnvironment: string;
  physicalEnvironment?: string;
}

/** A record the cluster could want, from one container of one pod. */
export interface CandidateRecord {
  key: string;
  group: RecordGroup;
  entry: ClusterDeploymentEntry;
  workload: WorkloadRef;
  /** The pod's name (in the workload's namespace): the pod's own string, kept with the record. */
  pod: string;
  ready: boolean;
  revision: number;
  createdAt: string;
}

/** Something not turned into a record, and why. */
export interface SkippedItem {
  subject: string;
  reason: string;
}

export const DEPLOYMENT_NAME_PLACEHOLDERS = ["namespace", "workload", "kind", "container", "cluster"] as const;
export const DEFAULT_DEPLOYMENT_NAME_TEMPLATE = "{namespace}-{workload}-{container}";

/** github/deployment-tracker's DN_TEMPLATE placeholders and ours (its default: {{namespace}}/{{deploymentName}}/{{containerName}}). */
const DEPLOYMENT_TRACKER_PLACEHOLDERS: Record<string, string> = {
  namespace: "namespace",
  deploymentName: "workload",
  containerName: "container",
};

/**
 * A template written in deployment-tracker's syntax, in ours: `{{namespace}}/{{deploymentName}}/{{containerName}}`
 * becomes `{namespace}/{workload}/{container}`. Its workload name is ours (the Deployment, DaemonSet, StatefulSet,
 * CronJob or Job owning the pod), so the names, and the records they key, stay the same.
 */
export function fromDeploymentTrackerTemplate(template: string): string {
  return template.replace(
    /\{\{(namespace|deploymentName|containerName)\}\}/g,
    (_, name: string) => `{${DEPLOYMENT_TRACKER_PLACEHOLDERS[name]}}`,
  );
}

type NameValues = { namespace: string; workload: string; kind: string; container: string; cluster: string };

// A template is split once into its text and placeholders: it is filled for every container of every flush.
const compiledTemplates = new Map<string, { texts: string[]; names: (keyof NameValues)[] }>();

function compiled(template: string): { texts: string[]; names: (keyof NameValues)[] } {
  let found = compiledTemplates.get(template);
  if (!found) {
    // split() with a capture group alternates text and placeholder names: text, name, text, ..., text.
    const parts = template.split(/\{(namespace|workload|kind|container|cluster)\}/);
    found = { texts: parts.filter((_, i) => i % 2 === 0), names: parts.filter((_, i) => i % 2 === 1) as (keyof NameValues)[] };
    if (compiledTemplates.size < 64) compiledTemplates.set(template, found);
  }
  return found;
}

/** Fills the deployment-name template. */
export function renderDeploymentName(template: string, values: NameValues): string {
  const { texts, names } = compiled(template);
  const parts = [texts[0]!];
  for (const [i, name] of names.entries()) parts.push(name === "kind" ? values.kind.toLowerCase() : values[name], texts[i + 1]!);
  // One flat string: the name is kept with its record (a concatenation would keep a tree of pieces).
  return parts.join("");
}

/** The identity of a record: environments plus deployment name (the service's uniqueness rule, within our cluster). */
export function recordKey(group: RecordGroup, deploymentName: string): string {
  // join() makes one flat string; a template literal keeps a tree of concatenations, which a key kept as long as its
  // record pays for.
  return [group.logicalEnvironment, group.physicalEnvironment ?? "", deploymentName].join("\u0000");
}

/** The containers of a pod spec that are tracked: regular containers and native sidecars. */
export function trackedContainers(spec: PodSpec | undefined): { container: Container; sidecar: boolean }[] {
  if (!spec) return [];
  const out = spec.containers.map((container) => ({ container, sidecar: false }));
  for (const init of spec.initContainers ?? []) if (init.restartPolicy === "Always") out.push({ container: init, sidecar: true });
  return out;
}

// Records of one environment pair share one group object (a cluster has a handful of pairs, 150,000 records).
const groups = new Map<string, RecordGroup>();
const MAX_SHARED_GROUPS = 1024;
let lastGroup: RecordGroup | undefined;

function sharedGroup(logicalEnvironment: string, physicalEnvironment: string | undefined): RecordGroup {
  // Almost every record is in the configured pair: the last group answers without building a key.
  const last = lastGroup;
  if (last?.logicalEnvironment === logicalEnvironment && last.physicalEnvironment === (physicalEnvironment || undefined)) return last;
  const key = `${logicalEnvironment}\u0000${physicalEnvironment ?? ""}`;
  let group = groups.get(key);
  if (!group) {
    const physical = physicalEnvironment !== undefined && physicalEnvironment !== "";
    group = Object.freeze(physical ? { logicalEnvironment, physicalEnvironment } : { logicalEnvironment });
    if (groups.size < MAX_SHARED_GROUPS) groups.set(key, group);
  }
  lastGroup = group;
  return group;
}

/** Environment group and deployment name of one container of a workload, from the merged annotations. */
export function placeRecord(
  workload: WorkloadRef,
  container: string,
  annotations: RecordAnnotations,
  options: MappingOptions,
): { group: RecordGroup; deploymentName: string } {
  const physical = annotations.physicalEnvironment ?? options.physicalEnvironment;
  const group = sharedGroup(annotations.logicalEnvironment ?? options.logicalEnvironment, physical);
  const deploymentName = renderDeploymentName(options.deploymentNameTemplate, {
    namespace: workload.namespace,
    workload: workload.name,
    kind: workload.kind,
    container,
    cluster: options.cluster,
  });
  return { group, deploymentName };
}

function imageForRecord(status: ContainerStatus, container: Container): ImageReference | string {
  // The status image goes with the status imageID (the spec may already name a newer image than the one running);
  // fall back to the spec when the runtime reports an image ID instead of a name.
  const fromStatus = status.image && !/^(sha256:|[a-z0-9]+:\/\/)/.test(status.image) ? parseImageReference(status.image) : undefined;
  if (fromStatus?.ok) return fromStatus.value;
  if (!container.image) return "container has no image";
  const fromSpec = parseImageReference(container.image);
  return fromSpec.ok ? fromSpec.value : fromSpec.reason;
}

// Versions repeat across a cluster's records ("1.0", "latest"): one copy each, kept with every record naming it.
const versions = new StringInterner(1 << 12);
// So do repositories a rule derives from an image name.
const repositoryNames = new StringInterner(1 << 12);

/** The candidate records of one pod whose workload is resolved and active. Pure. */
export function podRecords(
  pod: Pod,
  owner: ResolvedWorkload,
  options: MappingOptions,
): { records: CandidateRecord[]; skipped: SkippedItem[]; warnings: (AnnotationWarning & { subject: string })[] } {
  const records: CandidateRecord[] = [];
  const skipped: SkippedItem[] = [];
  const warnings: (AnnotationWarning & { subject: string })[] = [];
  if (pod.metadata.deletionTimestamp) return { records, skipped, warnings };
  if (pod.status?.phase !== "Running") return { records, skipped, warnings };
  const merged = mergeAnnotations(...owner.annotations, pod.metadata.annotations);
  if (readIgnore(merged).ignore) return { records, skipped, warnings };

  for (const { container, sidecar } of trackedContainers(pod.spec)) {
    const subject = `${pod.metadata.namespace ?? ""}/${pod.metadata.name}/${container.name}`;
    const statuses = sidecar ? pod.status?.initContainerStatuses : pod.status?.containerStatuses;
    const status = statuses?.find((s) => s.name === container.name);
    if (!status?.state?.running) continue; // not running: nothing to record from this container now
    const annotations = readRecordAnnotations(merged, container.name, { deploymentTracker: options.deploymentTrackerAnnotations === true });
    for (const w of annotations.warnings) warnings.push({ subject, ...w });

    const digest = runningDigest(status);
    if (!digest.ok) {
      skipped.push({ subject, reason: digest.reason });
      continue;
    }
    const image = imageForRecord(status, container);
    if (typeof image === "string") {
      skipped.push({ subject, reason: image });
      continue;
    }
    if (image.name.length > 256) {
      skipped.push({ subject, reason: `artifact name "${image.name}" is longer than 256 characters` });
      continue;
    }
    const { group, deploymentName } = placeRecord(owner.workload, container.name, annotations.value, options);
    if (deploymentName.length === 0 || deploymentName.length > 256) {
      skipped.push({ subject, reason: `deployment name "${deploymentName}" must be 1 to 256 characters` });
      continue;
    }
    const entry: ClusterDeploymentEntry = {
      name: image.name,
      digest: digest.value,
      status: "deployed",
      deployment_name: deploymentName,
    };
    if (image.tag !== undefined) {
      if (image.tag.length <= 100) entry.version = versions.intern(image.tag);
      else warnings.push({ subject, annotation: "image tag", reason: "tag longer than 100 characters is not sent as version" });
    }
    const linked = resolveRepository(
      {
        annotation: annotations.value.noRepository ? null : annotations.value.repository,
        namespace: options.repositories?.namespaceRepository?.(pod.metadata.namespace ?? ""),
        image: image.name,
      },
      options.repositories?.rules ?? ANNOTATION_ONLY,
    );
    if (linked) entry.github_repository = linked.source === "annotation" ? linked.repository : repositoryNames.intern(linked.repository);
    if (annotations.value.tags) entry.tags = annotations.value.tags;
    if (annotations.value.runtimeRisks) entry.runtime_risks = annotations.value.runtimeRisks;
    records.push({
      key: recordKey(group, deploymentName),
      group,
      entry,
      workload: owner.workload,
      pod: pod.metadata.name,
      ready: status.ready === true,
      revision: owner.revision,
      createdAt: pod.metadata.creationTimestamp ?? "",
    });
  }
  return { records, skipped, warnings };
}
