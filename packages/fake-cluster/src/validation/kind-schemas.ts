// The wire shape of every kind the fake serves (k8s.io/api 1.32 field names and types), for the decoder in
// schema.ts. Subtrees the fake never reads are `any`: present so they are kept, not checked.
import type { ResourceName } from "../resource-kinds.js";
import type { Schema } from "./schema.js";
import { any, bool, bytes, dict, int32, int64, intOrString, list, str, struct } from "./schema.js";

const time = str;

const ownerReference = struct("OwnerReference", {
  apiVersion: str,
  kind: str,
  name: str,
  uid: str,
  controller: bool,
  blockOwnerDeletion: bool,
});

const objectMeta = struct("ObjectMeta", {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: str,
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: dict(str),
  annotations: dict(str),
  ownerReferences: list(ownerReference),
  finalizers: list(str),
  managedFields: any,
});

const labelSelector = struct("LabelSelector", {
  matchLabels: dict(str),
  matchExpressions: list(struct("LabelSelectorRequirement", { key: str, operator: str, values: list(str) })),
});

const containerFields = {
  name: str,
  image: str,
  command: list(str),
  args: list(str),
  workingDir: str,
  ports: list(struct("ContainerPort", { name: str, hostPort: int32, containerPort: int32, protocol: str, hostIP: str })),
  envFrom: any,
  env: list(struct("EnvVar", { name: str, value: str, valueFrom: any })),
  resources: any,
  resizePolicy: any,
  restartPolicy: str,
  volumeMounts: any,
  volumeDevices: any,
  livenessProbe: any,
  readinessProbe: any,
  startupProbe: any,
  lifecycle: any,
  terminationMessagePath: str,
  terminationMessagePolicy: str,
  imagePullPolicy: str,
  securityContext: any,
  stdin: bool,
  stdinOnce: bool,
  tty: bool,
};
const container = struct("Container", containerFields);
const ephemeralContainer = struct("EphemeralContainer", { ...containerFields, targetContainerName: str });

const podSpec = struct("PodSpec", {
  volumes: any,
  initContainers: list(container),
  containers: list(container),
  ephemeralContainers: list(ephemeralContainer),
  restartPolicy: str,
  terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64,
  dnsPolicy: str,
  nodeSelector: dict(str),
  serviceAccountName: str,
  serviceAccount: str,
  automountServiceAccountToken: bool,
  nodeName: str,
  hostNetwork: bool,
  hostPID: bool,
  hostIPC: bool,
  shareProcessNamespace: bool,
  securityContext: any,
  imagePullSecrets: any,
  hostname: str,
  subdomain: str,
  affinity: any,
  schedulerName: str,
  tolerations: any,
  hostAliases: any,
  priorityClassName: str,
  priority: int32,
  dnsConfig: any,
  readinessGates: any,
  runtimeClassName: str,
  enableServiceLinks: bool,
  preemptionPolicy: str,
  overhead: any,
  topologySpreadConstraints: any,
  setHostnameAsFQDN: bool,
  os: any,
  hostUsers: bool,
  schedulingGates: any,
  resourceClaims: any,
  resources: any,
});

const podTemplate = struct("PodTemplateSpec", { metadata: objectMeta, spec: podSpec });

const jobSpec = struct("JobSpec", {
  parallelism: int32,
  completions: int32,
  activeDeadlineSeconds: int64,
  podFailurePolicy: any,
  successPolicy: any,
  backoffLimit: int32,
  backoffLimitPerIndex: int32,
  maxFailedIndexes: int32,
  selector: labelSelector,
  manualSelector: bool,
  template: podTemplate,
  ttlSecondsAfterFinished: int32,
  completionMode: str,
  suspend: bool,
  podReplacementPolicy: str,
  managedBy: str,
});

const top = (kind: string, fields: Record<string, Schema>): Schema =>
  struct(kind, { apiVersion: str, kind: str, metadata: objectMeta, ...fields });

const specs: Record<ResourceName, Schema> = {
  pods: top("Pod", { spec: podSpec, status: any }),
  configmaps: top("ConfigMap", { data: dict(str), binaryData: dict(bytes), immutable: bool }),
  namespaces: top("Namespace", { spec: struct("NamespaceSpec", { finalizers: list(str) }), status: any }),
  nodes: top("Node", { spec: any, status: any }),
  replicasets: top("ReplicaSet", {
    spec: struct("ReplicaSetSpec", { replicas: int32, minReadySeconds: int32, selector: labelSelector, template: podTemplate }),
    status: any,
  }),
  deployments: top("Deployment", {
    spec: struct("DeploymentSpec", {
      replicas: int32,
      selector: labelSelector,
      template: podTemplate,
      strategy: struct("DeploymentStrategy", {
        type: str,
        rollingUpdate: struct("RollingUpdateDeployment", { maxUnavailable: intOrString, maxSurge: intOrString }),
      }),
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      paused: bool,
      progressDeadlineSeconds: int32,
    }),
    status: any,
  }),
  statefulsets: top("StatefulSet", {
    spec: struct("StatefulSetSpec", {
      replicas: int32,
      selector: labelSelector,
      template: podTemplate,
      volumeClaimTemplates: any,
      serviceName: str,
      podManagementPolicy: str,
      updateStrategy: any,
      revisionHistoryLimit: int32,
      minReadySeconds: int32,
      persistentVolumeClaimRetentionPolicy: any,
      ordinals: any,
    }),
    status: any,
  }),
  daemonsets: top("DaemonSet", {
    spec: struct("DaemonSetSpec", {
      selector: labelSelector,
      template: podTemplate,
      updateStrategy: any,
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
    }),
    status: any,
  }),
  jobs: top("Job", { spec: jobSpec, status: any }),
  cronjobs: top("CronJob", {
    spec: struct("CronJobSpec", {
      schedule: str,
      timeZone: str,
      startingDeadlineSeconds: int64,
      concurrencyPolicy: str,
      suspend: bool,
      jobTemplate: struct("JobTemplateSpec", { metadata: objectMeta, spec: jobSpec }),
      successfulJobsHistoryLimit: int32,
      failedJobsHistoryLimit: int32,
    }),
    status: any,
  }),
  events: top("Event", {
    involvedObject: any,
    reason: str,
    message: str,
    source: any,
    firstTimestamp: time,
    lastTimestamp: time,
    count: int32,
    type: str,
    eventTime: str,
    series: any,
    action: str,
    related: any,
    reportingComponent: str,
    reportingInstance: str,
  }),
  leases: top("Lease", {
    spec: struct("LeaseSpec", {
      holderIdentity: str,
      leaseDurationSeconds: int32,
      acquireTime: time,
      renewTime: time,
      leaseTransitions: int32,
      strategy: str,
      preferredHolder: str,
    }),
  }),
};

/** The decoder schema of a resource's objects. */
export function schemaOf(resource: ResourceName): Schema {
  return specs[resource];
}

/** autoscaling/v1 Scale, the scale subresource's body. */
export const scaleSchema: Schema = top("Scale", { spec: struct("ScaleSpec", { replicas: int32 }), status: any });
