// The setup the chart tests of charts/shiplog-controller share: the chart rendered by real Helm with the required
// values and the test values files, and the grants the RBAC is expected to hold.
import { join } from "node:path";
import { slotNames, WATCHED_KINDS } from "@shiplog/controller/internal";
import { REPO_ROOT, renderChart, type Manifest, type RenderOptions } from "./chart/helm.js";
import { one, type Container } from "./chart/kube-manifests.js";

const VALUES = join(REPO_ROOT, "test/chart/values");
const REQUIRED = join(VALUES, "required.yaml");
export const RELEASE = { releaseName: "shiplog", namespace: "shiplog" } as const;
export const FULLNAME = "shiplog-shiplog-controller";
/** The state's shard slots with the default state.maxShards (16): two fixed names per shard. */
const SHARD_SLOTS = slotNames(`${FULLNAME}-state`, 16);
/**
 * The controller's own objects in the release namespace (leader election, and the acknowledged state: the head,
 * patched with journal segments, and its shard slots), by design.
 */
export const STATE_GRANTS = [
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "create" },
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "get", resourceNames: [FULLNAME] },
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "update", resourceNames: [FULLNAME] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "create" },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "get", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "update", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "patch", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "get", resourceNames: SHARD_SLOTS },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "update", resourceNames: SHARD_SLOTS },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "get", resourceNames: [`${FULLNAME}-state-witness`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "update", resourceNames: [`${FULLNAME}-state-witness`] },
];
/** A grant or a recorded call as one line; any shard slot is written `<slot>`. */
export const stateLine = (g: { group: string; resource: string; verb: string }, name: string | undefined) =>
  `${g.group} ${g.resource} ${g.verb} ${name !== undefined && SHARD_SLOTS.includes(name) ? "<slot>" : (name ?? "")}`;
const GROUP_OF_KIND: Record<string, string> = {
  Pod: "",
  ReplicaSet: "apps",
  Deployment: "apps",
  StatefulSet: "apps",
  DaemonSet: "apps",
  Job: "batch",
  CronJob: "batch",
};

export type Deployment = Manifest & {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        securityContext: Record<string, unknown>;
        containers: Container[];
        volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
        topologySpreadConstraints?: { labelSelector: { matchLabels: Record<string, string> } }[];
        serviceAccountName: string;
        automountServiceAccountToken?: boolean;
      };
    };
  };
};

/** The chart rendered by real Helm. */
export interface Chart {
  /** Renders with the required values, then the named test values files, then `options.values`. */
  render(options?: RenderOptions & { files?: string[] }): ReturnType<typeof renderChart>;
  /** The manifests of `render`; throws Helm's message when it fails. */
  rendered(options?: RenderOptions & { files?: string[] }): Manifest[];
}

/** Renders the chart with the required values and the named test values files. */
export function useChart(): Chart {
  const render = (options: RenderOptions & { files?: string[] } = {}) =>
    renderChart({ ...RELEASE, ...options, valueFiles: [REQUIRED, ...(options.files ?? []).map((f) => join(VALUES, f))] });
  const rendered = (options: RenderOptions & { files?: string[] } = {}) => {
    const result = render(options);
    if (!result.ok) throw new Error(result.stderr);
    return result.manifests;
  };
  return { render, rendered };
}

/** The controller's container in the rendered Deployment. */
export const controllerContainer = (manifests: Manifest[]) => one<Deployment>(manifests, "Deployment").spec.template.spec.containers[0]!;

/** The controller's environment variables that have a plain value. */
export const envOf = (manifests: Manifest[]) =>
  Object.fromEntries((controllerContainer(manifests).env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));

/** The list and watch grants of every watched kind in `scope` (a namespace, or `*` cluster-wide). */
export function expectedWatchGrants(scope: string): { scope: string; group: string; resource: string; verb: string }[] {
  return WATCHED_KINDS.flatMap((kind) =>
    ["list", "watch"].map((verb) => ({ scope, group: GROUP_OF_KIND[kind]!, resource: `${kind.toLowerCase()}s`, verb })),
  );
}

/** Reading namespaces cluster-wide, in either mode: their repository label or annotation (the ClusterRole `-namespaces`). */
export const NAMESPACE_GRANTS = ["list", "watch"].map((verb) => ({ scope: "*", group: "", resource: "namespaces", verb }));

/** Grants in one order, to compare lists. */
export function sortGrants<T extends { scope: string; group: string; resource: string; verb: string }>(list: T[]): T[] {
  return [...list].sort((a, b) =>
    `${a.scope} ${a.group} ${a.resource} ${a.verb}`.localeCompare(`${b.scope} ${b.group} ${b.resource} ${b.verb}`),
  );
}
