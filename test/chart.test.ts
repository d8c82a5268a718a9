// The Helm chart charts/shiplog-controller, rendered like `helm template` by a Go text/template + sprig renderer
// built from Debian packages (no helm binary exists for our machines). Every rendered manifest is validated against
// the Kubernetes schemas; the invariants are checked against the real controller: the configuration it reads from
// the chart's environment, the endpoints its health server answers, and the Kubernetes calls it makes, recorded
// through a proxy and checked against the rendered RBAC.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONTROLLER_VERSION, loadConfig } from "@shiplog/controller";
import { SETTINGS, slotNames, WATCHED_KINDS } from "@shiplog/controller/internal";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import {
  buildRenderer,
  CHART_DIR,
  findToolchain,
  REPO_ROOT,
  renderChart,
  type Manifest,
  type RenderOptions,
} from "./chart/helm-renderer.js";
import {
  authorizes,
  containerEnvironment,
  grants,
  ofKind,
  one,
  resourceRequest,
  selects,
  validateManifest,
  type Container,
} from "./chart/kube-manifests.js";
import { startControllerCommand } from "./kit/controller-process.js";
import { startProxy } from "./kit/proxy.js";
import { tempDir } from "./kit/temp-dir.js";

const VALUES = join(REPO_ROOT, "test/chart/values");
const REQUIRED = join(VALUES, "required.yaml");
const RELEASE = { releaseName: "shiplog", namespace: "shiplog" } as const;
const FULLNAME = "shiplog-shiplog-controller";
/** The state's shard slots with the default state.maxShards (16): two fixed names per shard. */
const SHARD_SLOTS = slotNames(`${FULLNAME}-state`, 16);
/**
 * The controller's own objects in the release namespace (leader election, and the acknowledged state: the head,
 * patched with journal segments, and its shard slots), by design.
 */
const STATE_GRANTS = [
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "create" },
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "get", resourceNames: [FULLNAME] },
  { scope: "shiplog", group: "coordination.k8s.io", resource: "leases", verb: "update", resourceNames: [FULLNAME] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "create" },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "get", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "update", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "patch", resourceNames: [`${FULLNAME}-state`] },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "get", resourceNames: SHARD_SLOTS },
  { scope: "shiplog", group: "", resource: "configmaps", verb: "update", resourceNames: SHARD_SLOTS },
];
/** A grant or a recorded call as one line; any shard slot is written `<slot>`. */
const stateLine = (g: { group: string; resource: string; verb: string }, name: string | undefined) =>
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

const toolchain = findToolchain();
const inCI = process.env.CI === "true";
if (!toolchain.ok && !inCI) {
  const bar = "!".repeat(100);
  console.warn(
    `\n${bar}\n!! SKIPPED: the Helm chart tests (test/chart.test.ts) need Go and three Debian Go libraries to build the chart renderer.\n` +
      `!! ${toolchain.reason}\n!! CI installs them (.ci/run) and fails instead of skipping.\n${bar}\n`,
  );
}

type Deployment = Manifest & {
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

describe.skipIf(!toolchain.ok && !inCI)("Helm chart charts/shiplog-controller", () => {
  let renderer: string;
  const render = (options: RenderOptions & { files?: string[] } = {}) =>
    renderChart(renderer, { ...RELEASE, ...options, valueFiles: [REQUIRED, ...(options.files ?? []).map((f) => join(VALUES, f))] });
  const rendered = (options: RenderOptions & { files?: string[] } = {}) => {
    const result = render(options);
    if (!result.ok) throw new Error(result.stderr);
    return result.manifests;
  };
  const controllerContainer = (manifests: Manifest[]) => one<Deployment>(manifests, "Deployment").spec.template.spec.containers[0]!;
  const envOf = (manifests: Manifest[]) =>
    Object.fromEntries((controllerContainer(manifests).env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));

  beforeAll(() => {
    if (!toolchain.ok) throw new Error(`CI=true, so the chart tests must run, but the renderer cannot be built: ${toolchain.reason}`);
    renderer = buildRenderer(toolchain.go);
  });

  describe.each([
    ["default values", [] as string[]],
    ["namespaced mode", ["namespaced.yaml"]],
    ["an existing Secret", ["existing-secret.yaml"]],
  ])("%s", (_name, files) => {
    it("renders only manifests that pass the Kubernetes schemas, each with the chart's labels", () => {
      const manifests = rendered({ files });
      expect(manifests.length).toBeGreaterThan(5);
      for (const manifest of manifests) {
        validateManifest(manifest);
        expect(manifest.metadata.labels, manifest.source).toMatchObject({
          "app.kubernetes.io/name": "shiplog-controller",
          "app.kubernetes.io/instance": "shiplog",
          "app.kubernetes.io/managed-by": "Helm",
          "helm.sh/chart": `shiplog-controller-${CONTROLLER_VERSION}`,
        });
      }
    });

    it("selectors of the Deployment, Service, PDB and spread constraints match the pod labels", () => {
      const manifests = rendered({ files });
      const deployment = one<Deployment>(manifests, "Deployment");
      const podLabels = deployment.spec.template.metadata.labels;
      expect(selects(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
      // The selector must not carry labels that change between versions (a Deployment's selector is immutable).
      expect(Object.keys(deployment.spec.selector.matchLabels).sort()).toEqual(["app.kubernetes.io/instance", "app.kubernetes.io/name"]);
      expect(selects(one<{ spec: { selector: Record<string, string> } }>(manifests, "Service").spec.selector, podLabels)).toBe(true);
      expect(
        selects(
          one<{ spec: { selector: { matchLabels: Record<string, string> } } }>(manifests, "PodDisruptionBudget").spec.selector.matchLabels,
          podLabels,
        ),
      ).toBe(true);
      for (const constraint of deployment.spec.template.spec.topologySpreadConstraints ?? [])
        expect(selects(constraint.labelSelector.matchLabels, podLabels)).toBe(true);
      expect(deployment.spec.replicas).toBe(2);
      expect(one<{ spec: { minAvailable: number } }>(manifests, "PodDisruptionBudget").spec.minAvailable).toBe(1);
    });

    it("the pod passes the restricted Pod Security Standard", () => {
      const manifests = rendered({ files });
      const pod = one<Deployment>(manifests, "Deployment").spec.template.spec;
      const container = pod.containers[0]!;
      const effective = (key: string) => container.securityContext?.[key] ?? pod.securityContext[key];
      expect(effective("runAsNonRoot")).toBe(true);
      expect(effective("runAsUser")).not.toBe(0);
      expect(effective("seccompProfile")).toEqual({ type: "RuntimeDefault" });
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      expect(container.securityContext?.privileged).not.toBe(true);
      expect((container.securityContext?.capabilities as { add?: string[] } | undefined)?.add ?? []).toEqual([]);
      // The restricted standard allows only these volume types.
      for (const volume of pod.volumes)
        expect(Object.keys(volume).filter((k) => k !== "name")).toSatisfy((types: string[]) =>
          types.every((t) =>
            ["secret", "emptyDir", "configMap", "projected", "persistentVolumeClaim", "ephemeral", "csi", "downwardAPI"].includes(t),
          ),
        );
    });

    it("every SHIPLOG_* variable is a controller setting, and the controller accepts the configuration", () => {
      const manifests = rendered({ files });
      const known = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
      // Every variable but Node's own is a controller setting (POD_NAME and POD_NAMESPACE included).
      const names = (controllerContainer(manifests).env ?? []).map((e) => e.name).filter((n) => n !== "NODE_OPTIONS");
      expect(names.filter((n) => !known.has(n))).toEqual([]);
      const root = tempDir("shiplog-kubelet-");
      try {
        const { env, mountPath } = containerEnvironment(one(manifests, "Deployment"), ofKind(manifests, "Secret"), root);
        const secretVolume = one<Deployment>(manifests, "Deployment").spec.template.spec.volumes.find((v) => v.secret)!;
        if (secretVolume.secret!.secretName === "shiplog-api-token")
          writeFileSync(mountPath("/var/run/secrets/shiplog/token"), "token-from-an-existing-secret\n");
        const config = loadConfig([], env);
        expect(config).toMatchObject({
          org: "acme",
          cluster: "prod-eu-1",
          logicalEnvironment: "production",
          batchSize: 1000,
          httpPort: 8080,
        });
        expect(config.token).toBe(
          secretVolume.secret!.secretName === "shiplog-api-token" ? "token-from-an-existing-secret" : "shiplog-chart-test-token",
        );
        expect(config.namespaces).toEqual(files.includes("namespaced.yaml") ? ["team-a", "team-b"] : []);
        // The chart's documented defaults are the controller's own: rendering them changes nothing.
        // Leader election and the state ConfigMap in the release namespace, with the pod's name as identity.
        expect(config).toMatchObject({
          leaseName: FULLNAME,
          stateConfigMap: `${FULLNAME}-state`,
          podNamespace: "shiplog",
          podName: env.POD_NAME,
        });
        const identity = {
          SHIPLOG_LEASE_NAME: env.SHIPLOG_LEASE_NAME!,
          SHIPLOG_STATE_CONFIGMAP: env.SHIPLOG_STATE_CONFIGMAP!,
          POD_NAME: env.POD_NAME!,
          POD_NAMESPACE: env.POD_NAMESPACE!,
        };
        const plain = loadConfig([], {
          SHIPLOG_ORG: "acme",
          SHIPLOG_CLUSTER: "prod-eu-1",
          SHIPLOG_LOGICAL_ENVIRONMENT: "production",
          SHIPLOG_TOKEN: config.token,
          SHIPLOG_NAMESPACES: config.namespaces.join(","),
          ...identity,
        });
        // The chart mounts the token as a file, which the controller reads again when the kubelet updates it.
        expect(config.tokenFile).toBe(mountPath("/var/run/secrets/shiplog/token"));
        expect({ ...config, tokenFile: undefined }).toEqual(plain);
        // The heap cap: half the default memory limit (512Mi).
        expect(env.NODE_OPTIONS).toBe("--max-old-space-size=256");
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    it("probes use the controller's port and endpoints; the token never appears in plain text", () => {
      const result = render({ files });
      const container = controllerContainer(result.manifests);
      const http = container.ports!.find((p) => p.name === "http")!;
      expect(http.containerPort).toBe(Number(envOf(result.manifests).SHIPLOG_HTTP_PORT));
      expect(container.livenessProbe!.httpGet).toEqual({ path: "/healthz", port: "http" });
      expect(container.readinessProbe!.httpGet).toEqual({ path: "/readyz", port: "http" });
      expect(result.stdout).not.toContain("shiplog-chart-test-token");
      expect(container.env!.some((e) => e.name === "SHIPLOG_TOKEN")).toBe(false);
    });
  });

  it("default values: cluster-wide read access for pods and workloads, the state Role in the release namespace", () => {
    const manifests = rendered();
    expect(ofKind(manifests, "ClusterRole").map((r) => r.metadata.name)).toEqual([`${FULLNAME}-watch`]);
    const account = { name: one<Deployment>(manifests, "Deployment").spec.template.spec.serviceAccountName, namespace: "shiplog" };
    expect(account.name).toBe(one(manifests, "ServiceAccount").metadata.name);
    const watchGrants = grants(manifests).filter((g) => g.scope === "*");
    expect(sortGrants(watchGrants)).toEqual(sortGrants(expectedWatchGrants("*")));
    expect(sortGrants(grants(manifests).filter((g) => g.scope !== "*"))).toEqual(sortGrants(STATE_GRANTS));
    expect(authorizes(manifests, account, { verb: "watch", group: "apps", resource: "deployments", namespace: "anywhere" })).toBe(true);
    expect(
      authorizes(manifests, account, { verb: "get", group: "", resource: "secrets", namespace: "shiplog", name: `${FULLNAME}-token` }),
    ).toBe(false);
    const secret = one<{ data: Record<string, string> }>(manifests, "Secret");
    expect(Buffer.from(secret.data.token!, "base64").toString()).toBe("shiplog-chart-test-token");
    expect(one<Deployment>(manifests, "Deployment").spec.template.metadata.annotations?.["checksum/token"]).toMatch(/^[a-f0-9]{64}$/);
  });

  it("namespaced mode: a Role and RoleBinding in each listed namespace, no ClusterRole", () => {
    const manifests = rendered({ files: ["namespaced.yaml"] });
    expect(ofKind(manifests, "ClusterRole")).toEqual([]);
    expect(ofKind(manifests, "ClusterRoleBinding")).toEqual([]);
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
      sortGrants([...expectedWatchGrants("team-a"), ...expectedWatchGrants("team-b")]),
    );
    const account = { name: FULLNAME, namespace: "shiplog" };
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods", namespace: "team-b" })).toBe(true);
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods", namespace: "kube-system" })).toBe(false);
    expect(authorizes(manifests, account, { verb: "list", group: "", resource: "pods" })).toBe(false);
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
    // The shard slots the controller may write are those the Role names, for state.maxShards shards.
    const slotGrants = (manifests_: Manifest[]) =>
      grants(manifests_)
        .filter((g) => g.resource === "configmaps" && g.verb === "update")
        .at(-1)!.resourceNames;
    expect(slotGrants(manifests)).toEqual(slotNames(env.SHIPLOG_STATE_CONFIGMAP!, Number(env.SHIPLOG_STATE_MAX_SHARDS)));
    const three = rendered({ values: [{ state: { maxShards: 3 } }] });
    expect(envOf(three).SHIPLOG_STATE_MAX_SHARDS).toBe("3");
    expect(slotGrants(three)).toEqual(slotNames(env.SHIPLOG_STATE_CONFIGMAP!, 3));
    expect(render({ values: [{ state: { maxShards: 65 } }] }).stderr).toContain("state.maxShards");
    const downward = Object.fromEntries(
      (controllerContainer(manifests).env ?? [])
        .filter((e) => e.valueFrom?.fieldRef)
        .map((e) => [e.name, e.valueFrom!.fieldRef!.fieldPath]),
    );
    expect(downward).toEqual({ POD_NAME: "metadata.name", POD_NAMESPACE: "metadata.namespace" });

    // client-go's timings, from the chart's values (its defaults are the controller's own).
    expect([env.SHIPLOG_LEASE_DURATION, env.SHIPLOG_RENEW_DEADLINE, env.SHIPLOG_RETRY_PERIOD]).toEqual(["15s", "10s", "2s"]);
    // Any of the controller's duration units; the rendering check compares them as the controller will.
    const tuned = envOf(rendered({ values: [{ leaderElection: { leaseDuration: "1m", renewDeadline: "30000ms", retryPeriod: "5" } }] }));
    const { SHIPLOG_TOKEN_FILE: _file, ...withoutFile } = tuned;
    const timing = loadConfig([], { ...withoutFile, SHIPLOG_TOKEN: "t" });
    expect(timing).toMatchObject({ leaseDurationMs: 60_000, renewDeadlineMs: 30_000, retryPeriodMs: 5000 });

    const single = rendered({ values: [{ replicaCount: 1, leaderElection: { enabled: false } }] });
    expect(ofKind(single, "PodDisruptionBudget")).toEqual([]);
    expect(grants(single).filter((g) => g.resource === "leases")).toEqual([]);
    expect(envOf(single).SHIPLOG_LEASE_NAME).toBeUndefined();
    expect(envOf(single).SHIPLOG_LEASE_DURATION).toBeUndefined();
  });

  it("the ServiceMonitor selects the Service and scrapes its metrics port; it needs the operator's API", () => {
    const missing = render({ values: [{ serviceMonitor: { enabled: true } }] });
    expect(missing.ok).toBe(false);
    expect(missing.stderr).toContain("serviceMonitor.enabled: the cluster does not serve monitoring.coreos.com/v1");
    const manifests = rendered({
      values: [{ serviceMonitor: { enabled: true, labels: { release: "prometheus" } } }],
      apiVersions: ["monitoring.coreos.com/v1"],
    });
    const monitor = one<{
      spec: {
        selector: { matchLabels: Record<string, string> };
        namespaceSelector: { matchNames: string[] };
        endpoints: { port: string; path: string }[];
      };
    }>(manifests, "ServiceMonitor");
    validateManifest(monitor);
    const service = one<{ spec: { ports: { name: string; targetPort: string }[] } }>(manifests, "Service");
    expect(monitor.metadata.labels?.release).toBe("prometheus");
    expect(selects(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    expect(monitor.spec.namespaceSelector.matchNames).toEqual(["shiplog"]);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: "http", path: "/metrics" })]);
    expect(service.spec.ports.map((p) => [p.name, p.targetPort])).toEqual([["http", "http"]]);
  });

  it("a values file that breaks the schema fails with Helm's message naming each field", () => {
    const result = render({ files: ["invalid-batch-size.yaml"] });
    expect(result.ok).toBe(false);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "Error: values don't meet the specifications of the schema(s) in the following chart(s):\nshiplog-controller:\n",
    );
    expect(result.stderr).toContain("- config.batchSize: Must be less than or equal to 1000");
    expect(result.stderr).toContain("- replicaCount: Invalid type. Expected: integer, given: string");
  });

  it.each([
    [{ confg: { org: "x" } }, "- (root): Additional property confg is not allowed"],
    [{ config: { org: "-acme" } }, "- config.org: Does not match pattern"],
    [{ config: { cluster: "prod eu" } }, "- config.cluster: Does not match pattern"],
    [{ config: { namespaces: ["Team_A"] } }, "- config.namespaces.0: Does not match pattern"],
    [{ config: { flushWindow: "soon" } }, "- config.flushWindow: Does not match pattern"],
    [{ config: { concurrency: 0 } }, "- config.concurrency: Must be greater than or equal to 1"],
    [{ image: { digest: "sha256:abc" } }, "- image.digest: Does not match pattern"],
    [{ token: { value: "" } }, "token: set token.existingSecret (the name of a Secret holding the API token) or token.value"],
    [{ token: { existingSecret: "mine" } }, "token: set either token.existingSecret or token.value, not both"],
    [{ leaderElection: { enabled: false } }, "replicaCount: more than one replica needs leaderElection.enabled=true"],
    [
      { config: { deploymentNameTemplate: "{namespace}-{workload}" } },
      "config.deploymentNameTemplate: must contain {workload} and {container}",
    ],
    [{ config: { namespaces: ["a"], excludeNamespaces: ["b"] } }, "config.excludeNamespaces: only applies when config.namespaces is empty"],
    [{ leaderElection: { renewDeadline: "15s" } }, "leaderElection.renewDeadline: must be shorter than leaderElection.leaseDuration"],
    [
      { leaderElection: { leaseDuration: "20s", renewDeadline: "0.5m" } },
      "leaderElection.renewDeadline: must be shorter than leaderElection.leaseDuration",
    ],
    [{ leaderElection: { retryPeriod: "9s" } }, "leaderElection.renewDeadline: must be longer than 1.2 x leaderElection.retryPeriod"],
    [
      { leaderElection: { leaseDuration: "900ms", renewDeadline: "500ms", retryPeriod: "100ms" } },
      "leaderElection.leaseDuration: must be at least 1s",
    ],
    [{ leaderElection: { leaseDuration: "soon" } }, "- leaderElection.leaseDuration: Does not match pattern"],
  ])("refuses %j: %s", (values, message) => {
    const result = render({ values: [values] });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain(message);
  });

  it("without the required values, the message names org, cluster and logicalEnvironment", () => {
    const result = renderChart(renderer, { ...RELEASE, values: [{ token: { value: "t" } }] });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("- config.org: ");
    expect(result.stderr).toContain("- config.cluster: ");
    expect(result.stderr).toContain("- config.logicalEnvironment: String length must be greater than or equal to 1");
  });

  it("values.yaml documents every key the schema knows, and the schema closes every object it describes", () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, "values.schema.json"), "utf8")) as {
      $schema: string;
      additionalProperties: boolean;
      properties: Record<string, { additionalProperties?: unknown; type: string; properties?: object }>;
    };
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
    for (const [key, property] of Object.entries(schema.properties)) {
      if (property.type === "object" && property.properties) expect(property.additionalProperties, key).toBe(false);
    }
    const valuesText = readFileSync(join(CHART_DIR, "values.yaml"), "utf8");
    for (const key of Object.keys(schema.properties)) expect(valuesText, key).toMatch(new RegExp(`^${key}:`, "m"));
  });

  describe("the controller run with the chart's environment", () => {
    let cluster: FakeCluster;
    let emulator: Emulator;
    /** State requests of both runs (they share the release namespace, so the second finds what the first created). */
    const stateUsed = new Set<string>();
    beforeAll(async () => {
      cluster = await startFakeCluster({ nodes: ["node-1"] });
      emulator = await startEmulator({ port: 0 });
      await cluster.script.ensureNamespace(RELEASE.namespace);
      for (const namespace of ["team-a", "team-b", "other"]) {
        // The repository annotation ties the image to a repository of the organization (the service refuses it otherwise).
        await cluster.script.createDeployment({
          namespace,
          name: "web",
          image: "nginx:1.25",
          replicas: 1,
          annotations: { "shiplog.dev/repository": "web" },
        });
      }
      await cluster.settle();
    });
    afterAll(async () => {
      await emulator?.stop();
      await cluster?.stop();
    });

    it.each([
      ["cluster-wide", [] as string[], ["other-web-nginx", "team-a-web-nginx", "team-b-web-nginx"]],
      ["namespaced", ["namespaced.yaml"], ["team-a-web-nginx", "team-b-web-nginx"]],
    ])(
      "%s: probe and metrics paths answer, and every Kubernetes call is one the RBAC grants, and all grants are used",
      async (_mode, files, expectedRecords) => {
        const cluster_ = `chart-${files.length === 0 ? "wide" : "ns"}`;
        const manifests = rendered({
          files,
          values: [
            {
              config: { apiUrl: emulator.url, cluster: cluster_, flushMaxWait: "200ms", logLevel: "info" },
              token: { value: emulator.tokens.admin! },
              serviceMonitor: { enabled: true },
            },
          ],
          apiVersions: ["monitoring.coreos.com/v1"],
        });
        const proxy = await startProxy(cluster.url);
        const kubeRequests = () => proxy.requests.flatMap((r) => resourceRequest(r.method, r.url) ?? []);
        const root = tempDir("shiplog-kubelet-");
        const kubeconfig = structuredClone(cluster.kubeconfigObject) as unknown as { clusters: { cluster: { server: string } }[] };
        for (const entry of kubeconfig.clusters) entry.cluster.server = proxy.url;
        writeFileSync(join(root, "kubeconfig"), stringify(kubeconfig));
        const { env } = containerEnvironment(one(manifests, "Deployment"), ofKind(manifests, "Secret"), root);
        // What stands in for the cluster here: a kubeconfig instead of the in-cluster one, loopback, any free port.
        const controller = startControllerCommand([process.execPath, join(REPO_ROOT, "packages/controller/dist/main.js")], {
          ...env,
          KUBECONFIG: join(root, "kubeconfig"),
          SHIPLOG_HTTP_HOST: "127.0.0.1",
          SHIPLOG_HTTP_PORT: "0",
          // Tiny state limits: a few records compact into shard slots, so the slots' grants are exercised too.
          SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=400",
        });
        try {
          const base = await controller.url();
          const container = controllerContainer(manifests);
          await vi.waitFor(async () => expect((await fetch(`${base}${container.readinessProbe!.httpGet!.path}`)).status).toBe(200), {
            timeout: 20_000,
            interval: 100,
          });
          await vi.waitFor(async () => expect((await fetch(`${base}${container.livenessProbe!.httpGet!.path}`)).status).toBe(200), {
            timeout: 1000,
            interval: 100,
          });
          const monitorPath = one<{ spec: { endpoints: { path: string }[] } }>(manifests, "ServiceMonitor").spec.endpoints[0]!.path;
          const metrics = await fetch(`${base}${monitorPath}`);
          expect(metrics.status).toBe(200);
          expect(await metrics.text()).toContain("shiplog_controller_requests_total");

          const records = emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: cluster_ }).map((r) => r.deployment_name);
          expect(records.sort(), controller.output()).toEqual(expectedRecords);

          const account = { name: one<Deployment>(manifests, "Deployment").spec.template.spec.serviceAccountName, namespace: "shiplog" };
          expect(kubeRequests().length).toBeGreaterThan(0);
          const denied = kubeRequests().filter((r) => !authorizes(manifests, account, r));
          expect(denied).toEqual([]);
          // Exactly: every pod/workload grant is used; the state grants over both runs (last test).
          const used = new Set(kubeRequests().map((r) => `${r.namespace ?? "*"} ${r.group} ${r.resource} ${r.verb}`));
          const watchGrants = grants(manifests).filter((g) => !STATE_GRANTS.some((s) => s.resource === g.resource));
          expect(watchGrants.map((g) => `${g.scope} ${g.group} ${g.resource} ${g.verb}`).filter((g) => !used.has(g))).toEqual([]);
          expect(watchGrants.length).toBe(expectedWatchGrants("*").length * Math.max(1, files.length && 2));
        } finally {
          const code = await controller.stop();
          // After the stop: SIGTERM writes the state and releases the Lease (updates by name).
          for (const r of kubeRequests()) if (r.resource === "leases" || r.resource === "configmaps") stateUsed.add(stateLine(r, r.name));
          await proxy.close();
          rmSync(root, { recursive: true, force: true });
          expect(code, controller.output()).toBe(0);
        }
      },
    );

    it("over both runs every state grant is used: the Lease and the ConfigMaps created, read, updated and patched by name", () => {
      expect([...stateUsed].sort()).toEqual([...new Set(STATE_GRANTS.map((g) => stateLine(g, g.resourceNames?.[0])))].sort());
    });
  });
});

function expectedWatchGrants(scope: string): { scope: string; group: string; resource: string; verb: string }[] {
  return WATCHED_KINDS.flatMap((kind) =>
    ["list", "watch"].map((verb) => ({ scope, group: GROUP_OF_KIND[kind]!, resource: `${kind.toLowerCase()}s`, verb })),
  );
}

function sortGrants<T extends { scope: string; group: string; resource: string; verb: string }>(list: T[]): T[] {
  return [...list].sort((a, b) =>
    `${a.scope} ${a.group} ${a.resource} ${a.verb}`.localeCompare(`${b.scope} ${b.group} ${b.resource} ${b.verb}`),
  );
}
