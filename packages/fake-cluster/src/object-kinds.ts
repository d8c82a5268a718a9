// The shapes of the kinds the fake cluster reads: only the fields the code reads, each interface carrying the rest
// through its index signature. Specs are as decoded (validation/schema.ts has checked each field's JSON type before
// anything is stored); statuses are as the fake cluster's controllers and kubelet write them (status is kept as given).
import type { JsonObject, KubeObject, ObjectMeta } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";

/** metav1.LabelSelector as written in a spec. */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
  [key: string]: unknown;
}

/** A condition of a pod, workload, Job or node. */
export interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  [key: string]: unknown;
}

/** core/v1 Container (also an init or ephemeral container). */
export interface Container {
  name: string;
  /** Required by validation: every stored container has one. */
  image: string;
  imagePullPolicy?: string;
  restartPolicy?: string;
  resources?: JsonObject;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  ports?: { containerPort?: number; protocol?: string; [key: string]: unknown }[];
  env?: { name?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

/** core/v1 PodSpec. */
export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  nodeName?: string;
  hostname?: string;
  subdomain?: string;
  nodeSelector?: Record<string, string>;
  readinessGates?: { conditionType: string }[];
  restartPolicy?: string;
  dnsPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  serviceAccountName?: string;
  [key: string]: unknown;
}

/** core/v1 PodTemplateSpec. */
export interface PodTemplate {
  metadata?: Partial<ObjectMeta>;
  spec?: PodSpec;
  [key: string]: unknown;
}

/** core/v1 ContainerState. */
export interface ContainerState {
  running?: { startedAt?: string; [key: string]: unknown };
  waiting?: { reason?: string; [key: string]: unknown };
  terminated?: { reason?: string; exitCode?: number; startedAt?: string; [key: string]: unknown };
}

/** core/v1 ContainerStatus. */
export interface ContainerStatus {
  name: string;
  image?: string;
  imageID?: string;
  containerID?: string;
  ready?: boolean;
  restartCount: number;
  state?: ContainerState;
  [key: string]: unknown;
}

/** core/v1 PodStatus. */
export interface PodStatus {
  phase?: string;
  reason?: string;
  qosClass?: string;
  podIP?: string;
  nominatedNodeName?: string;
  conditions?: Condition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  [key: string]: unknown;
}

/** core/v1 Pod. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** The spec fields apps/v1 workloads share. */
export interface WorkloadSpec {
  replicas?: number;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector?: LabelSelectorSpec;
  template?: PodTemplate;
  updateStrategy?: { type?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** The status fields apps/v1 workloads report. */
export interface WorkloadStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  conditions?: Condition[];
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
  [key: string]: unknown;
}

/** apps/v1 DeploymentSpec. */
export interface DeploymentSpec extends WorkloadSpec {
  paused?: boolean;
  progressDeadlineSeconds?: number;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
}

/** apps/v1 StatefulSetSpec. */
export interface StatefulSetSpec extends WorkloadSpec {
  serviceName?: string;
  podManagementPolicy?: string;
}

/** A Deployment, ReplicaSet, StatefulSet or DaemonSet. */
export interface Workload<Spec extends WorkloadSpec = WorkloadSpec> extends KubeObject {
  spec?: Spec;
  status?: WorkloadStatus;
}

/** apps/v1 Deployment. */
export type Deployment = Workload<DeploymentSpec>;
/** apps/v1 ReplicaSet. */
export type ReplicaSet = Workload;
/** apps/v1 StatefulSet. */
export type StatefulSet = Workload<StatefulSetSpec>;
/** apps/v1 DaemonSet. */
export type DaemonSet = Workload;

/** batch/v1 JobSpec. */
export interface JobSpec {
  parallelism?: number;
  completions?: number;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  completionMode?: string;
  suspend?: boolean;
  selector?: LabelSelectorSpec;
  template?: PodTemplate;
  [key: string]: unknown;
}

/** batch/v1 Job. */
export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: {
    active?: number;
    succeeded?: number;
    startTime?: string;
    completionTime?: string;
    conditions?: Condition[];
    [key: string]: unknown;
  };
}

/** batch/v1 CronJobSpec. */
export interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  suspend?: boolean;
  concurrencyPolicy?: string;
  startingDeadlineSeconds?: number;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate?: { metadata?: Partial<ObjectMeta>; spec?: JobSpec; [key: string]: unknown };
  [key: string]: unknown;
}

/** batch/v1 CronJob. */
export interface CronJob extends KubeObject {
  spec?: CronJobSpec;
  status?: { active?: JsonObject[]; lastScheduleTime?: string; [key: string]: unknown };
}

/** core/v1 Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[]; [key: string]: unknown };
  status?: { phase?: string; [key: string]: unknown };
}

/** core/v1 Node. */
export interface Node extends KubeObject {
  status?: {
    conditions?: Condition[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

/** coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    strategy?: string;
    [key: string]: unknown;
  };
}

/** The typed shape of each resource the code reads; other resources are plain KubeObjects. */
interface ResourceObjects {
  pods: Pod;
  deployments: Deployment;
  replicasets: ReplicaSet;
  statefulsets: StatefulSet;
  daemonsets: DaemonSet;
  jobs: Job;
  cronjobs: CronJob;
  namespaces: Namespace;
  nodes: Node;
  leases: Lease;
}

/** The object type stored under resource `R`. */
export type ObjectOf<R extends ResourceName> = R extends keyof ResourceObjects ? ResourceObjects[R] : KubeObject;
