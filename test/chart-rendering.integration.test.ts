// The Helm chart charts/shiplog-controller rendered (test/chart-setup.ts) with default values, in namespaced mode and
// with an existing Secret: every manifest validated against the Kubernetes schemas, selectors, the restricted Pod
// Security Standard, the configuration the controller reads from the chart's environment, probes; the ServiceMonitor.
import { rmSync, writeFileSync } from "node:fs";
import { CONTROLLER_VERSION, loadConfig } from "@shiplog/controller";
import { SETTINGS } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { containerEnvironment, ofKind, one, selects, validateManifest } from "./chart/kube-manifests.js";
import { controllerContainer, envOf, FULLNAME, useChart, type Deployment } from "./chart-setup.js";
import { tempDir } from "./kit/temp-dir.js";

describe("Helm chart charts/shiplog-controller", () => {
  const { render, rendered } = useChart();

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
        expect(env.NODE_OPTIONS).toBe("--max-old-space-size=256 --max-semi-space-size=8");
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
});
