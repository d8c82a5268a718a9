// The Helm chart charts/shiplog-controller's RBAC and the objects it names (test/chart-setup.ts): cluster-wide or
// per-namespace read access for pods and workloads, the state Role in the release namespace, an existing Secret
// mounted as the token file, and the Lease and state ConfigMaps the controller is told to use.
import { loadConfig } from "@shiplog/controller";
import { MAX_NAMESPACED_WATCHES, slotNames } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import type { Manifest } from "./chart/helm.js";
import { authorizes, grants, ofKind, one } from "./chart/kube-manifests.js";
import {
  controllerContainer,
  envOf,
  expectedWatchGrants,
  NAMESPACE_GRANTS,
  FULLNAME,
  sortGrants,
  STATE_GRANTS,
  useChart,
  type Deployment,
} from "./chart-setup.js";

describe("Helm chart charts/shiplog-controller", () => {
  const { render, rendered } = useChart();

  it("default values: cluster-wide read access for pods and workloads, the state Role in the release namespace", () => {
    const manifests = rendered();
    expect(ofKind(manifests, "ClusterRole").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-watch`, `${FULLNAME}-namespaces`]);
    const account = { name: one<Deployment>(manifests, "Deployment").spec.template.spec.serviceAccountName, namespace: "shiplog" };
    expect(account.name).toBe(one(manifests, "ServiceAccount").metadata.name);
    const watchGrants = grants(manifests).filter((g) => g.scope === "*");
    expect(sortGrants(watchGrants)).toEqual(sortGrants([...expectedWatchGrants("*"), ...NAMESPACE_GRANTS]));
    expect(sortGrants(grants(manifests).filter((g) => g.scope !== "*"))).toEqual(sortGrants(STATE_GRANTS));
    expect(authorizes(manifests, account, { verb: "watch", group: "apps", resource: "deployments", namespace: "anywhere" })).toBe(true);
    expect(
      authorizes(manifests, account, { verb: "get", group: "", resource: "secrets", namespace: "shiplog", name: `${FULLNAME}-token` }),
    ).toBe(false);
    const secret = one<{ data: Record<string, string> }>(manifests, "Secret");
    expect(Buffer.from(secret.data.token!, "base64").toString()).toBe("shiplog-chart-test-token");
    expect(one<Deployment>(manifests, "Deployment").spec.template.metadata.annotations?.["checksum/token"]).toMatch(/^[a-f0-9]{64}$/);
  });

  it("namespaced mode: a Role and RoleBinding in each listed namespace; cluster-wide only reading namespaces", () => {
    const manifests = rendered({ files: ["namespaced.yaml"] });
    expect(ofKind(manifests, "ClusterRole").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-namespaces`]);
    expect(ofKind(manifests, "ClusterRoleBinding").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-namespaces`]);
    expect(
      ofKind(manifests, "Role")
        .map((r) => `${r.metadata.namespace}/${r.metadata.name}`)
        .sort(),
    ).toEqual([`shiplog/${FULLNAME}-state`, `team-a/${FULLNAME}-watch`, `team-b/${FULLNAME}-watch`]);
    expect(
      ofKind(manifests, "RoleBinding")
        .map((r) => `${r.metadata.namespace}/${r.metadata.name}`)
        .sort(),
    ).toEqual([`shiplog/${FULLNAME}-state`, `team-a/${FULLNAME}-watch`, `team-b/${FULLNAME}-watch`]);
    expect(sortGrants(grants(manifests).filter((g) => g.scope !== "shiplog"))).toEqual(
      sortGrants([...expectedWatchGrants("team-a"), ...expectedWatchGrants("team-b"), ...NAMESPACE_GRANTS]),
    );
    const account = { name: FULLNAME, namespace: "shiplog" };
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods", namespace: "team-b" })).toBe(true);
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods", namespace: "kube-system" })).toBe(false);
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods" })).toBe(false);
  });

  it("more namespaces than the controller watches one by one: the ClusterRole, as the controller then watches cluster-wide", () => {
    const named = (count: number) => ({ config: { namespaces: Array.from({ length: count }, (_, i) => `team-${i}`) } });
    const watchRoles = (manifests: Manifest[]) => ofKind(manifests, "Role").filter((r) => r.metadata.name.endsWith("-watch")).length;
    const atBound = rendered({ values: [named(MAX_NAMESPACED_WATCHES)] });
    expect(watchRoles(atBound)).toBe(MAX_NAMESPACED_WATCHES);
    expect(ofKind(atBound, "ClusterRole").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-namespaces`]);
    const above = rendered({ values: [named(MAX_NAMESPACED_WATCHES + 1)] });
    expect(watchRoles(above)).toBe(0);
    expect(ofKind(above, "ClusterRole").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-watch`, `${FULLNAME}-namespaces`]);
    expect(sortGrants(grants(above).filter((g) => g.scope === "*"))).toEqual(
      sortGrants([...expectedWatchGrants("*"), ...NAMESPACE_GRANTS]),
    );
    expect(render({ values: [named(MAX_NAMESPACED_WATCHES + 1)], notes: true }).stdout).toContain(
      `Watched namespaces: ${MAX_NAMESPACED_WATCHES + 1} named (more than ${MAX_NAMESPACED_WATCHES}: watched cluster-wide`,
    );
  });

  it("an existing Secret: the chart creates none and mounts the named key as the token file", () => {
    const manifests = rendered({ files: ["existing-secret.yaml"] });
    expect(ofKind(manifests, "Secret")).toEqual([]);
    const deployment = one<Deployment>(manifests, "Deployment");
    expect(deployment.spec.template.spec.volumes.find((v) => v.secret)!.secret).toMatchObject({
      secretName: "shiplog-api-token",
      items: [{ key: "api-token", path: "token" }],
    });
    expect(deployment.spec.template.metadata.annotations?.["checksum/token"]).toBeUndefined();
    const mount = controllerContainer(manifests).volumeMounts!.find((m) => m.name === "token")!;
    expect(mount.readOnly).toBe(true);
    expect(envOf(manifests).SHIPLOG_TOKEN_FILE).toBe(`${mount.mountPath}/token`);
    const notes = render({ files: ["existing-secret.yaml"], notes: true });
    expect(notes.stdout).toContain("kubectl -n shiplog create secret generic shiplog-api-token --from-file=api-token=./token");
  });

  it("the leader-election Lease and the state ConfigMap named in the env are the objects the state Role grants", () => {
    const manifests = rendered();
    const env = envOf(manifests);
    const state = grants(manifests).filter((g) => g.scope === "shiplog");
    expect(state.find((g) => g.resource === "leases" && g.verb === "update")!.resourceNames).toEqual([env.SHIPLOG_LEASE_NAME]);
    expect(state.find((g) => g.resource === "configmaps" && g.verb === "update")!.resourceNames).toEqual([env.SHIPLOG_STATE_CONFIGMAP]);
    // The shard slots the controller may write are those the Role names, for state.maxShards shards; then the witness.
    const updates = (manifests_: Manifest[]) => grants(manifests_).filter((g) => g.resource === "configmaps" && g.verb === "update");
    const slotGrants = (manifests_: Manifest[]) => updates(manifests_).at(-2)!.resourceNames;
    expect(updates(manifests).at(-1)!.resourceNames).toEqual([`${env.SHIPLOG_STATE_CONFIGMAP}-witness`]);
    expect(slotGrants(manifests)).toEqual(slotNames(env.SHIPLOG_STATE_CONFIGMAP!, Number(env.SHIPLOG_STATE_MAX_SHARDS)));
    const three = rendered({ values: [{ state: { maxShards: 3 } }] });
    expect(envOf(three).SHIPLOG_STATE_MAX_SHARDS).toBe("3");
    expect(slotGrants(three)).toEqual(slotNames(env.SHIPLOG_STATE_CONFIGMAP!, 3));
    expect(render({ values: [{ state: { maxShards: 65 } }] }).stderr).toContain("'/state/maxShards'");
    const downward = Object.fromEntries(
      (controllerContainer(manifests).env ?? [])
        .filter((e) => e.valueFrom?.fieldRef)
        .map((e) => [e.name, e.valueFrom!.fieldRef!.fieldPath]),
    );
    expect(downward).toEqual({ POD_NAME: "metadata.name", POD_NAMESPACE: "metadata.namespace" });

    // client-go's timings, from the chart's values (its defaults are the controller's own).
    expect([env.SHIPLOG_LEASE_DURATION, env.SHIPLOG_RENEW_DEADLINE, env.SHIPLOG_RETRY_PERIOD]).toEqual(["15s", "10s", "2s"]);
    // Any of the controller's duration units; the rendering check compares them as the controller will.
    const tuned = envOf(rendered({ values: [{ leaderElection: { leaseDuration: "1m", renewDeadline: "30000ms", retryPeriod: "5s" } }] }));
    const { SHIPLOG_TOKEN_FILE: _file, ...withoutFile } = tuned;
    const timing = loadConfig([], { ...withoutFile, SHIPLOG_TOKEN: "t" });
    expect(timing).toMatchObject({ leaseDurationMs: 60_000, renewDeadlineMs: 30_000, retryPeriodMs: 5000 });

    const single = rendered({ values: [{ replicaCount: 1, leaderElection: { enabled: false } }] });
    expect(ofKind(single, "PodDisruptionBudget")).toEqual([]);
    expect(grants(single).filter((g) => g.resource === "leases")).toEqual([]);
    expect(envOf(single).SHIPLOG_LEASE_NAME).toBeUndefined();
    expect(envOf(single).SHIPLOG_LEASE_DURATION).toBeUndefined();
  });
});
