// The real controller run with the environment the Helm chart charts/shiplog-controller gives it (test/chart-setup.ts),
// cluster-wide and namespaced: the endpoints its probes and ServiceMonitor name answer, and every Kubernetes call it
// makes, recorded through a proxy, is one the rendered RBAC grants, and every grant is used.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { authorizes, containerEnvironment, grants, ofKind, one, resourceRequest } from "./chart/kube-manifests.js";
import {
  controllerContainer,
  expectedWatchGrants,
  NAMESPACE_GRANTS,
  RELEASE,
  STATE_GRANTS,
  stateLine,
  useChart,
  type Deployment,
} from "./chart-setup.js";
import { CONTROLLER_TEST_ENTRY, startControllerCommand } from "./kit/controller-process.js";
import { startProxy } from "./kit/proxy.js";
import { tempDir } from "./kit/temp-dir.js";

describe("Helm chart charts/shiplog-controller", () => {
  const { rendered } = useChart();

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
        const controller = startControllerCommand([process.execPath, ...CONTROLLER_TEST_ENTRY], {
          ...env,
          KUBECONFIG: join(root, "kubeconfig"),
          SHIPLOG_HTTP_HOST: "127.0.0.1",
          SHIPLOG_HTTP_PORT: "0",
          // Tiny state limits (read by the test entry, CONTROLLER_TEST_ENTRY): a few records compact into shard slots, so the
          // slots' grants are exercised too.
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
            timeout: 20_000,
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
          expect(watchGrants.length).toBe(expectedWatchGrants("*").length * Math.max(1, files.length && 2) + NAMESPACE_GRANTS.length);
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
