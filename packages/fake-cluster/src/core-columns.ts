// The columns of the other kinds that have printers: pods, config maps, leases, namespaces and nodes.
import type { Pod } from "./object-kinds.js";
import { age, name, orNone, type ColumnsByResource } from "./table-columns.js";

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

/** The columns of pods, config maps, leases, namespaces and nodes. */
export const CORE_COLUMNS: ColumnsByResource = {
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
