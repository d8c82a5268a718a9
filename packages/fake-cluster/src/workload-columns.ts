// The columns of the workload kinds' printers (deployments, replica sets, stateful sets, daemon sets, jobs, cron jobs),
// with the template and selector columns `-o wide` adds.
import type { CronJob, Job, PodTemplate, Workload } from "./object-kinds.js";
import { formatLabelSelector as selectorText } from "./selectors.js";
import { age, humanDuration, name, orNone, since, type Column, type ColumnsByResource } from "./table-columns.js";

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

function jobStatus(job: Job): string {
  const has = (type: string) => (job.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
  if (has("Complete")) return "Complete";
  if (has("Failed")) return "Failed";
  if (job.metadata.deletionTimestamp) return "Terminating";
  if (has("Suspended")) return "Suspended";
  return "Running";
}

/** The columns of the workload kinds. */
export const WORKLOAD_COLUMNS: ColumnsByResource = {
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
};
