// Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`): the columns kubectl shows for
// `kubectl get`, with the priority-1 columns `-o wide` adds, worded as the API server's printers fill them.
import type { KubeObject } from "./kube-object.js";
import type { CronJob, Job, ObjectOf, Pod, PodTemplate, Workload } from "./object-kinds.js";
import type { ResourceName } from "./resource-kinds.js";
import { formatLabelSelector as selectorText } from "./selectors.js";

interface Column<T extends KubeObject = KubeObject> {
  name: string;
  type: "string" | "integer" | "date";
  format?: "name";
  description: string;
  priority: number;
  cell: (obj: T, now: number) => string | number;
}

/** duration.HumanDuration: "45s", "3m20s", "12m", "5h30m", "3d4h", "2y". */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

const since = (time: string | undefined, now: number) => (time ? humanDuration(now - Date.parse(time)) : "<unknown>");
const orNone = (text: string | undefined) => (text ? text : "<none>");

const name: Column = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  priority: 0,
  cell: (o) => o.metadata.name!,
};
const age: Column = {
  name: "Age",
  type: "string",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  cell: (o, now) => since(o.metadata.creationTimestamp, now),
};

type TemplateOwner = Workload | Job | CronJob;

function templateOf(obj: TemplateOwner): PodTemplate | undefined {
  return obj.kind === "CronJob" ? (obj as CronJob).spec?.jobTemplate?.spec?.template : (obj as Workload | Job).spec?.template;
}

const wideTemplateColumns: Column<TemplateOwner>[] = [
  {
    name: "Containers",
    type: "string",
    description: "Names of each container in the template.",
    priority: 1,
    cell: (o) => (templateOf(o)?.spec?.containers ?? []).map((c) => c.name).join(","),
  },
  {
    name: "Images",
    type: "string",
    description: "Images referenced by each container in the template.",
    priority: 1,
    cell: (o) => (templateOf(o)?.spec?.containers ?? []).map((c) => c.image).join(","),
  },
];
const selectorColumn: Column<Workload | Job> = {
  name: "Selector",
  type: "string",
  description: "Label selector for the workload's pods.",
  priority: 1,
  cell: (o) => selectorText(o.spec?.selector),
};

/** The STATUS kubectl shows for a pod: Terminating, a container's waiting/terminated reason, or the phase. */
function podStatus(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return "Terminating";
  let reason: string = pod.status?.reason ?? pod.status?.phase ?? "Unknown";
  for (const s of pod.status?.containerStatuses ?? []) {
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (s.state?.terminated?.reason && pod.status?.phase !== "Running") reason = s.state.terminated.reason;
  }
  return reason;
}

function jobStatus(job: Job): string {
  const has = (type: string) => (job.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
  if (has("Complete")) return "Complete";
  if (has("Failed")) return "Failed";
  if (job.metadata.deletionTimestamp) return "Terminating";
  if (has("Suspended")) return "Suspended";
  return "Running";
}

const COLUMNS: { [R in ResourceName]?: Column<ObjectOf<R>>[] } = {
  pods: [
    name,
    {
      name: "Ready",
      type: "string",
      description: "The aggregate readiness state of this pod for accepting traffic.",
      priority: 0,
      cell: (o) => `${(o.status?.containerStatuses ?? []).filter((s) => s.ready).length}/${(o.spec?.containers ?? []).length}`,
    },
    { name: "Status", type: "string", description: "The aggregate status of the containers in this pod.", priority: 0, cell: podStatus },
    {
      name: "Restarts",
      type: "string",
      description: "The number of times the containers in this pod have been restarted.",
      priority: 0,
      cell: (o) => String((o.status?.containerStatuses ?? []).reduce((n, s) => n + (s.restartCount ?? 0), 0)),
    },
    age,
    { name: "IP", type: "string", description: "IP address allocated to the pod.", priority: 1, cell: (o) => orNone(o.status?.podIP) },
    {
      name: "Node",
      type: "string",
      description: "Name of the Node this pod is assigned to.",
      priority: 1,
      cell: (o) => orNone(o.spec?.nodeName),
    },
    {
      name: "Nominated Node",
      type: "string",
      description: "Name of the node nominated for this pod.",
      priority: 1,
      cell: (o) => orNone(o.status?.nominatedNodeName),
    },
    {
      name: "Readiness Gates",
      type: "string",
      description: "Pod readiness gates.",
      priority: 1,
      cell: (o) => orNone((o.spec?.readinessGates ?? []).map((g) => g.conditionType).join(",")),
    },
  ],
  deployments: [
    name,
    {
      name: "Ready",
      type: "string",
      description: "Number of the pod with ready state",
      priority: 0,
      cell: (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`,
    },
    {
      name: "Up-to-date",
      type: "integer",
      description: "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      priority: 0,
      cell: (o) => o.status?.updatedReplicas ?? 0,
    },
    {
      name: "Available",
      type: "integer",
      description: "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
      priority: 0,
      cell: (o) => o.status?.availableReplicas ?? 0,
    },
    age,
    ...wideTemplateColumns,
    selectorColumn,
  ],
  replicasets: [
    name,
    {
      name: "Desired",
      type: "integer",
      description: "Replicas is the number of desired replicas.",
      priority: 0,
      cell: (o) => o.spec?.replicas ?? 0,
    },
    {
      name: "Current",
      type: "integer",
      description: "Replicas is the most recently observed number of replicas.",
      priority: 0,
      cell: (o) => o.status?.replicas ?? 0,
    },
    {
      name: "Ready",
      type: "integer",
      description: "The number of ready replicas for this replica set.",
      priority: 0,
      cell: (o) => o.status?.readyReplicas ?? 0,
    },
    age,
    ...wideTemplateColumns,
    selectorColumn,
  ],
  statefulsets: [
    name,
    {
      name: "Ready",
      type: "string",
      description: "Number of the pod with ready state",
      priority: 0,
      cell: (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`,
    },
    age,
    ...wideTemplateColumns,
  ],
  daemonsets: [
    name,
    {
      name: "Desired",
      type: "integer",
      description: "The total number of nodes that should be running the daemon pod.",
      priority: 0,
      cell: (o) => o.status?.desiredNumberScheduled ?? 0,
    },
    {
      name: "Current",
      type: "integer",
      description: "The number of nodes that are running at least 1 daemon pod.",
      priority: 0,
      cell: (o) => o.status?.currentNumberScheduled ?? 0,
    },
    {
      name: "Ready",
      type: "integer",
      description: "The number of nodes running the daemon pod with a Ready condition.",
      priority: 0,
      cell: (o) => o.status?.numberReady ?? 0,
    },
    {
      name: "Up-to-date",
      type: "integer",
      description: "The total number of nodes that are running updated daemon pod",
      priority: 0,
      cell: (o) => o.status?.updatedNumberScheduled ?? 0,
    },
    {
      name: "Available",
      type: "integer",
      description: "The number of nodes running the daemon pod available for at least minReadySeconds.",
      priority: 0,
      cell: (o) => o.status?.numberAvailable ?? 0,
    },
    {
      name: "Node Selector",
      type: "string",
      description: "NodeSelector is a selector which must be true for the pod to fit on a node.",
      priority: 0,
      cell: (o) =>
        orNone(
          Object.entries(o.spec?.template?.spec?.nodeSelector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(","),
        ),
    },
    age,
    ...wideTemplateColumns,
    selectorColumn,
  ],
  jobs: [
    name,
    { name: "Status", type: "string", description: "Status of the job.", priority: 0, cell: jobStatus },
    {
      name: "Completions",
      type: "string",
      description: "The desired number of successfully finished pods the job should be run with.",
      priority: 0,
      cell: (o) => `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}`,
    },
    {
      name: "Duration",
      type: "string",
      description: "Time required to complete the job.",
      priority: 0,
      cell: (o, now) =>
        o.status?.startTime
          ? humanDuration((o.status?.completionTime ? Date.parse(o.status.completionTime) : now) - Date.parse(o.status.startTime))
          : "",
    },
    age,
    ...wideTemplateColumns,
    selectorColumn,
  ],
  cronjobs: [
    name,
    { name: "Schedule", type: "string", description: "The schedule in Cron format.", priority: 0, cell: (o) => o.spec?.schedule ?? "" },
    {
      name: "Timezone",
      type: "string",
      description: "The time zone name for the given schedule.",
      priority: 0,
      cell: (o) => orNone(o.spec?.timeZone),
    },
    {
      name: "Suspend",
      type: "string",
      description: "Whether the controller suspends subsequent executions.",
      priority: 0,
      cell: (o) => (o.spec?.suspend ? "True" : "False"),
    },
    {
      name: "Active",
      type: "integer",
      description: "A list of pointers to currently running jobs.",
      priority: 0,
      cell: (o) => (o.status?.active ?? []).length,
    },
    {
      name: "Last Schedule",
      type: "string",
      description: "Information when was the last time the job was successfully scheduled.",
      priority: 0,
      cell: (o, now) => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime, now) : "<none>"),
    },
    age,
    ...wideTemplateColumns,
    { ...selectorColumn, cell: (o) => selectorText(o.spec?.jobTemplate?.spec?.selector) },
  ],
  configmaps: [
    name,
    {
      name: "Data",
      type: "integer",
      description: "Data contains the configuration data.",
      priority: 0,
      cell: (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length,
    },
    age,
  ],
  leases: [
    name,
    { name: "Holder", type: "string", description: "The holder of the lease.", priority: 0, cell: (o) => o.spec?.holderIdentity ?? "" },
    age,
  ],
  namespaces: [
    name,
    { name: "Status", type: "string", description: "The status of the namespace", priority: 0, cell: (o) => o.status?.phase ?? "" },
    age,
  ],
  nodes: [
    name,
    {
      name: "Status",
      type: "string",
      description: "The status of the node",
      priority: 0,
      cell: (o) => ((o.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True") ? "Ready" : "NotReady"),
    },
    { name: "Roles", type: "string", description: "The roles of the node", priority: 0, cell: () => "<none>" },
    age,
    {
      name: "Version",
      type: "string",
      description: "Kubelet Version reported by the node.",
      priority: 0,
      cell: (o) => o.status?.nodeInfo?.kubeletVersion ?? "",
    },
    {
      name: "Internal-IP",
      type: "string",
      description: "List of internal IPs.",
      priority: 1,
      cell: (o) => orNone((o.status?.addresses ?? []).find((a) => a.type === "InternalIP")?.address),
    },
  ],
};

/** True when the Accept header asks for a Table (kubectl get). */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

/** A meta.k8s.io/v1 Table of `items`; rows carry the object's metadata (or the object with includeObject=Object). */
export function toTable(
  resource: ResourceName,
  items: KubeObject[],
  listMeta: Record<string, unknown>,
  includeObject: string | undefined,
  now: number,
): unknown {
  // The items are objects of `resource`, as its columns read them.
  const columns = (COLUMNS[resource] ?? [name, age]) as Column[];
  const rowObject = (o: KubeObject) =>
    includeObject === "Object"
      ? o
      : includeObject === "None"
        ? undefined
        : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata };
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: columns.map(({ cell: _cell, ...definition }) => ({ format: "", ...definition })),
    rows: items.map((o) => ({ cells: columns.map((c) => c.cell(o, now)), object: rowObject(o) })),
  };
}
