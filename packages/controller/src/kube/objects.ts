// The slice of Kubernetes objects the controller reads, as plain JSON (what list and watch bodies carry). The
// informer caches keep only these fields (kube/object-projection.ts).
import { DEPLOYMENT_TRACKER_PREFIX } from "../mapping/annotations.js";

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

/** Pod status fields the controller uses. */
export interface PodStatus {
  phase?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
}

/** A pod. */
export interface Pod {
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
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
}

/** A Job. */
export interface Job {
  kind?: string;
  metadata: ObjectMeta;
  spec?: { template?: PodTemplate };
  status?: { conditions?: { type: string; status: string }[] };
}

/** A CronJob. */
export interface CronJob {
  kind?: string;
  metadata: ObjectMeta;
  spec?: { jobTemplate?: { spec?: { template?: PodTemplate } } };
}

/** The kinds the controller watches. */
export type WatchedKind = "Pod" | "ReplicaSet" | "Deployment" | "StatefulSet" | "DaemonSet" | "Job" | "CronJob";

/**
 * The kinds a reflector can cache: the watched ones, and namespaces (cluster-scoped; cached as their name and the
 * repository they name, see namespaceProjection).
 */
export type ReflectedKind = WatchedKind | "Namespace";

/**
 * Annotation keys kept in the caches: ours, deployment-tracker's (for its migration option; only where a cluster
 * still carries them), plus, on ReplicaSets only, the Deployment revision used to rank them (a Deployment's own
 * changes with every rollout and is read by nobody).
 */
export function isKeptAnnotation(key: string, kind: WatchedKind): boolean {
  if (key === "deployment.kubernetes.io/revision") return kind === "ReplicaSet";
  return key.includes("shiplog.dev/") || key.startsWith(DEPLOYMENT_TRACKER_PREFIX);
}
