// The chart through real Helm into a real API server (test/kit/control-plane.ts): `helm lint --strict`, `helm install`
// into a namespace that enforces the restricted pod security profile, and the controller run as a process with a
// token of the chart's own ServiceAccount, so every call it makes passes the chart's RBAC. A copy of the chart with
// one verb taken out shows that a missing grant fails the controller, by the API server's own answer.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CHART_DIR, REPO_ROOT, runHelm, type Manifest } from "./chart/helm.js";
import { containerEnvironment } from "./chart/kube-manifests.js";
import { CONTROLLER_MAIN, startControllerCommand, type ControllerProcess } from "./kit/controller-process.js";
import { startControlPlane, type ControlPlane } from "./kit/control-plane.js";
import { tempDir } from "./kit/temp-dir.js";

const REQUIRED = join(REPO_ROOT, "test/chart/values/required.yaml");
const DIGEST = `sha256:${"ab".repeat(32)}`;
const WAIT = { timeout: 60_000, interval: 200 };

type Live = Manifest & { spec: { template: { spec: { serviceAccountName: string } } } };

describe("the chart installed by Helm into a real API server", () => {
  let plane: ControlPlane;
  let emulator: Emulator;
  beforeAll(async () => {
    [plane, emulator] = await Promise.all([startControlPlane({ nodes: 2 }), startEmulator({ port: 0 })]);
  }, 180_000);
  afterAll(async () => {
    await emulator?.stop();
    await plane?.stop();
  });

  const kubectl = (args: string[], input?: string) => plane.kubectlOut(args, input);
  const getJson = async <T>(args: string[]) => JSON.parse(await kubectl([...args, "-o", "json"])) as T;

  /** Installs `chart` as `release` into a new namespace that enforces the restricted profile; the values file used. */
  async function install(release: string, chart: string, cluster: string) {
    await kubectl(["create", "namespace", release]);
    await kubectl(["label", "namespace", release, "pod-security.kubernetes.io/enforce=restricted"]);
    const values = join(tempDir("shiplog-values-"), "values.yaml");
    writeFileSync(
      values,
      JSON.stringify({
        config: { apiUrl: emulator.url, cluster, flushMaxWait: "200ms", logLevel: "info" },
        token: { value: emulator.tokens.admin },
        image: { repository: "registry.example.com/shiplog-controller", tag: "test" },
      }),
    );
    const helm = await plane.helm([
      "install",
      release,
      chart,
      "--namespace",
      release,
      "-f",
      REQUIRED,
      "-f",
      values,
      "--wait",
      "--timeout",
      "120s",
    ]);
    return helm;
  }

  /** The controller as the chart's pod would run it: its environment and Secret files, and the ServiceAccount's token. */
  async function runAsChartPod(release: string): Promise<ControllerProcess> {
    const fullname = `${release}-shiplog-controller`;
    const deployment = await getJson<Live>(["--namespace", release, "get", "deployment", fullname]);
    const secrets = (await getJson<{ items: Manifest[] }>(["--namespace", release, "get", "secrets"])).items;
    const root = tempDir("shiplog-kubelet-");
    const { env } = containerEnvironment(deployment, secrets, root);
    const token = await plane.serviceAccountToken(release, deployment.spec.template.spec.serviceAccountName);
    return startControllerCommand([process.execPath, CONTROLLER_MAIN], {
      ...env,
      KUBECONFIG: plane.tokenKubeconfig(token),
      SHIPLOG_HTTP_HOST: "127.0.0.1",
      SHIPLOG_HTTP_PORT: "0",
    });
  }

  it("passes `helm lint --strict`", () => {
    const lint = runHelm(["lint", "--strict", CHART_DIR, "-f", REQUIRED]);
    expect(lint.stdout + lint.stderr).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(lint.status).toBe(0);
  });

  it("installs into a restricted namespace, and the controller under the chart's RBAC records what runs and decommissions what stops", async () => {
    const helm = await install("shiplog", CHART_DIR, "real-chart");
    expect(helm.code, helm.stderr).toBe(0);
    // PodSecurity is enforced there (so the chart's pods passed it): a pod with the defaults is refused.
    const plain = await plane.kubectl(["--namespace", "shiplog", "run", "plain", "--image=busybox"]);
    expect(plain.stderr).toMatch(/violates PodSecurity "restricted:latest"/);
    const ready = await getJson<{ status: { readyReplicas?: number; replicas: number } }>([
      "--namespace",
      "shiplog",
      "get",
      "deployment",
      "shiplog-shiplog-controller",
    ]);
    expect(ready.status.readyReplicas).toBe(ready.status.replicas);

    await kubectl(["create", "namespace", "team-a"]);
    await kubectl(
      ["create", "-f", "-"],
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "team-a", annotations: { "shiplog.dev/repository": "web" } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "nginx", image: `registry.example.com/acme/web@${DIGEST}` }] },
          },
        },
      }),
    );
    const controller = await runAsChartPod("shiplog");
    try {
      const records = () => emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "real-chart" });
      await vi.waitFor(
        () => expect(records().map((r) => [r.deployment_name, r.digest, r.status])).toEqual([["team-a-web-nginx", DIGEST, "deployed"]]),
        WAIT,
      );
      await vi.waitFor(async () => expect((await controller.get("/readyz")).status).toBe(200), WAIT);

      await kubectl(["--namespace", "team-a", "delete", "deployment", "web", "--cascade=foreground", "--wait=true"]);
      await vi.waitFor(() => expect(records().map((r) => r.status)).toEqual(["decommissioned"]), WAIT);
      // The leader's Lease and the state live on real objects.
      const lease = await getJson<{ spec: { holderIdentity?: string } }>([
        "--namespace",
        "shiplog",
        "get",
        "lease",
        "shiplog-shiplog-controller",
      ]);
      expect(lease.spec.holderIdentity).toBeTruthy();
      await kubectl(["--namespace", "shiplog", "get", "configmap", "shiplog-shiplog-controller-state"]);
      expect(controller.output()).not.toMatch(/forbidden/i);
    } finally {
      expect(await controller.stop(), controller.output()).toBe(0);
    }
  });

  it("a chart whose RBAC lacks one verb the controller needs (watch on pods) leaves it unready, by the API server's 403", async () => {
    const chart = join(tempDir("shiplog-chart-copy-"), "shiplog-controller");
    cpSync(CHART_DIR, chart, { recursive: true });
    const rbac = join(chart, "templates/_helpers.tpl");
    const before = readFileSync(rbac, "utf8");
    const after = before.replace('resources: ["pods"]\n  verbs: ["list", "watch"]', 'resources: ["pods"]\n  verbs: ["list"]');
    expect(after, "the pods grant in _helpers.tpl has the shape this test edits").not.toBe(before);
    writeFileSync(rbac, after);
    const helm = await install("missing-verb", chart, "real-missing-verb");
    expect(helm.code, helm.stderr).toBe(0);
    const controller = await runAsChartPod("missing-verb");
    try {
      await vi.waitFor(async () => {
        const ready = await controller.get("/readyz");
        expect(ready.status).toBe(503);
        expect(ready.body).toMatch(/list\/watch of Pod failed \d+ times in a row \(.*403.*\)/);
      }, WAIT);
    } finally {
      await controller.stop();
    }
  });
});
