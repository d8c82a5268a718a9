/** Resources the fake cluster serves (plural names, as in URLs). */
export const RESOURCE_NAMES = [
  "pods",
  "replicasets",
  "deployments",
  "statefulsets",
  "daemonsets",
  "jobs",
  "cronjobs",
  "leases",
  "configmaps",
  "namespaces",
  "nodes",
  "events",
] as const;

export type ResourceName = (typeof RESOURCE_NAMES)[number];

/** What the API server knows about one resource type. */
export interface ResourceKind {
  resource: ResourceName;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  hasStatus: boolean;
  /** Default DeleteOptions.propagationPolicy when the client gives none. */
  defaultPropagation: PropagationPolicy;
  /** kubectl's abbreviations (`kubectl get deploy`), as discovery lists them. */
  shortNames?: string[];
  /** Groupings such as `all` (`kubectl get all`). */
  categories?: string[];
  /** Whether the resource has the autoscaling/v1 `scale` subresource. */
  hasScale?: boolean;
  /** Field selectors the resource supports beyond metadata.name and metadata.namespace. */
  fieldLabels?: string[];
  /**
   * The field-label conversion the API server registers for the kind, whose words refuse any other field: "core"
   * (core/v1 Pods, Nodes, Namespaces, Events: `field label not supported: <f>`), "job" (`field label "<f>" not
   * supported for Job`); absent, the scheme's default, which knows metadata.name and metadata.namespace alone.
   */
  fieldLabelConversion?: "core" | "job";
  /**
   * Whether the registry keeps metadata.generation (set to 1 on create, bumped when the spec changes): pods and the
   * workloads do; Leases, Namespaces, Nodes and ConfigMaps have none, as their strategies never set it.
   */
  generation?: boolean;
  /** False when an update must carry metadata.resourceVersion (the strategy's AllowUnconditionalUpdate): Leases. */
  unconditionalUpdate?: boolean;
  /** Another API's view of `resource`'s objects, converted on the way in and out (events.k8s.io/v1 Events). */
  view?: boolean;
}

export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

const kinds: ResourceKind[] = [
  {
    resource: "pods",
    generation: true,
    group: "",
    version: "v1",
    kind: "Pod",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["po"],
    categories: ["all"],
    fieldLabelConversion: "core",
    fieldLabels: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.podIPs",
      "status.nominatedNodeName",
    ],
  },
  {
    resource: "configmaps",
    group: "",
    version: "v1",
    kind: "ConfigMap",
    namespaced: true,
    hasStatus: false,
    defaultPropagation: "Background",
    shortNames: ["cm"],
  },
  {
    resource: "namespaces",
    group: "",
    version: "v1",
    kind: "Namespace",
    namespaced: false,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["ns"],
    fieldLabelConversion: "core",
    fieldLabels: ["status.phase"],
  },
  {
    resource: "nodes",
    group: "",
    version: "v1",
    kind: "Node",
    namespaced: false,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["no"],
    fieldLabelConversion: "core",
    fieldLabels: ["spec.unschedulable"],
  },
  {
    resource: "replicasets",
    generation: true,
    group: "apps",
    version: "v1",
    kind: "ReplicaSet",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["rs"],
    categories: ["all"],
    hasScale: true,
    // apps/v1 registers no field-label conversion (v1.37): status.replicas is refused as any other field.
  },
  {
    resource: "deployments",
    generation: true,
    group: "apps",
    version: "v1",
    kind: "Deployment",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["deploy"],
    categories: ["all"],
    hasScale: true,
  },
  {
    resource: "statefulsets",
    generation: true,
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["sts"],
    categories: ["all"],
    hasScale: true,
  },
  {
    resource: "daemonsets",
    generation: true,
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["ds"],
    categories: ["all"],
  },
  // batch/v1 Jobs orphan their pods by default, as the real API server does (kubectl asks for Background).
  {
    resource: "jobs",
    generation: true,
    group: "batch",
    version: "v1",
    kind: "Job",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Orphan",
    categories: ["all"],
    fieldLabelConversion: "job",
    fieldLabels: ["status.successful"],
  },
  {
    resource: "cronjobs",
    generation: true,
    group: "batch",
    version: "v1",
    kind: "CronJob",
    namespaced: true,
    hasStatus: true,
    defaultPropagation: "Background",
    shortNames: ["cj"],
    categories: ["all"],
  },
  {
    resource: "leases",
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    namespaced: true,
    hasStatus: false,
    unconditionalUpdate: false,
    defaultPropagation: "Background",
  },
];

// Core v1 Events (kubectl get events, kubectl describe); events.k8s.io/v1 is not served.
kinds.push({
  resource: "events",
  group: "",
  version: "v1",
  kind: "Event",
  namespaced: true,
  hasStatus: false,
  defaultPropagation: "Background",
  shortNames: ["ev"],
  fieldLabelConversion: "core",
  fieldLabels: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
});

const byResource = new Map<string, ResourceKind>(kinds.map((k) => [k.resource, k]));
const byKind = new Map<string, ResourceKind>(kinds.map((k) => [k.kind, k]));

/** Looks up a resource by plural name. */
export function resourceKind(resource: string): ResourceKind | undefined {
  return byResource.get(resource);
}

/** Looks up a resource by its kind (e.g. "ReplicaSet"). */
export function resourceForKind(kind: string): ResourceKind | undefined {
  return byKind.get(kind);
}

/** apiVersion string ("v1", "apps/v1"). */
export function apiVersionOf(k: ResourceKind): string {
  return k.group ? `${k.group}/${k.version}` : k.version;
}

/** Qualified resource name used in error messages ("deployments.apps", "pods"). */
export function qualifiedResource(k: ResourceKind): string {
  return k.group ? `${k.resource}.${k.group}` : k.resource;
}

/** True when `resource` is one of ours. */
export function isResourceName(resource: string): resource is ResourceName {
  return byResource.has(resource);
}
