import { fileURLToPath } from "node:url";
import { AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { runProcess, startProcess } from "../../../test/kit/process.js";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function kubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

describe("shiplog-fake-cluster CLI", () => {
  it("starts with --seed, serves the demo workloads, and stops on SIGTERM", async () => {
    const child = startProcess(process.execPath, [cli, "--port", "0", "--seed"]);
    const started = JSON.parse(await child.line(/^\{/)) as { url: string; pods: number };
    expect(started.pods).toBeGreaterThan(0);
    const pods = await kubeConfig(started.url).makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "shop" });
    expect(pods.items.length).toBeGreaterThan(0);
    expect(pods.items.every((p) => p.status?.phase === "Running")).toBe(true);
    expect(await child.stop()).toBe(0);
  });

  it("builds a fleet from --workloads, prints where it and its admin endpoint are, and takes the benchmark's changes", async () => {
    const args = [cli, "--workloads", "6", "--annotation", "shiplog.dev/repository=web,api"];
    const child = startProcess(process.execPath, args);
    try {
      const started = JSON.parse(await child.line(/^\{/)) as { url: string; admin: string; pid: number; workloads: number; pods: number };
      expect(started).toMatchObject({ pid: child.child.pid, workloads: 6, pods: 18, containers: 36, deploymentNames: 12 });
      const core = kubeConfig(started.url).makeApiClient(CoreV1Api);
      const apps = kubeConfig(started.url).makeApiClient(AppsV1Api);
      const running = (await core.listPodForAllNamespaces()).items.filter((p) => p.status?.phase === "Running");
      expect(running).toHaveLength(18);
      const svc1Deployment = await apps.readNamespacedDeployment({ namespace: "team-1", name: "svc-1" });
      expect(svc1Deployment.metadata?.annotations).toMatchObject({ "shiplog.dev/repository": "api" });
      const post = (path: string, body: unknown) =>
        fetch(`${started.admin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

      type Rolled = { workloads: { namespace: string; name: string; containers: { image: string; imageID: string }[] }[] };
      const rolled = (await (await post("/fleet/rollout", { percent: 50 })).json()) as Rolled;
      expect(rolled.workloads.map((w) => w.name)).toEqual(["svc-0", "svc-1", "svc-2"]);
      const svc1 = rolled.workloads[1]!;
      expect(svc1.containers.map((c) => c.image)).toEqual(["ghcr.io/acme/svc-1-c0:2.0", "ghcr.io/acme/svc-1-c1:2.0"]);
      const svc1Pods = (await core.listNamespacedPod({ namespace: "team-1", labelSelector: "app=svc-1" })).items;
      expect(svc1Pods).toHaveLength(3);
      const imageIDs = svc1.containers.map((c) => c.imageID);
      for (const pod of svc1Pods) expect(pod.status?.containerStatuses?.map((s) => s.imageID)).toEqual(imageIDs);

      expect((await post("/fleet/scale", { count: 1, replicas: 0 })).status).toBe(200);
      expect((await core.listNamespacedPod({ namespace: "team-0", labelSelector: "app=svc-0" })).items).toHaveLength(0);
      const deleted = (await (await post("/fleet/delete", { count: 1 })).json()) as { workloads: { name: string }[] };
      expect(deleted.workloads.map((w) => w.name)).toEqual(["svc-5"]);
      expect((await core.listNamespacedPod({ namespace: "team-5" })).items).toHaveLength(0);
      type Status = { fleet: { workloads: number; pods: number }; memory: { rss: number } };
      const status = (await (await fetch(`${started.admin}/status`)).json()) as Status;
      expect(status.fleet).toMatchObject({ workloads: 5, pods: 12 });
      expect(status.memory.rss).toBeGreaterThan(0);

      // Any scripting call, arguments as a JSON array; the API's errors come back as its Status.
      expect((await post("/script/createDeployment", [{ namespace: "solo", name: "one", image: "nginx:1.25" }])).status).toBe(200);
      expect((await core.listNamespacedPod({ namespace: "solo" })).items.map((p) => p.status?.phase)).toEqual(["Running"]);
      const missing = await post("/script/delete", ["pods", "solo", "nope"]);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ kind: "Status", reason: "NotFound" });
      const bad = await post("/fleet/rollout", { percent: 10, count: 1 });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ message: "count: give exactly one of count and percent" });
      expect((await post("/script/bogus", [])).status).toBe(404);
    } finally {
      void child.stop();
    }
    expect(await child.exited).toBe(0);
  });

  it("refuses --workloads with --pods, and a bad --annotation, with exit code 2 (bad usage, as every shiplog program) naming the flag", async () => {
    for (const [args, flag] of [
      [["--workloads", "1", "--pods", "3"], "--workloads, --pods"],
      [["--annotation", "novalue"], "--annotation"],
    ] as const) {
      const { code, stderr } = await runProcess(process.execPath, [cli, ...args]);
      expect(code).toBe(2);
      expect(stderr.split("\n")[0]).toContain(flag);
    }
  });

  it("refuses a bad --port with exit code 2 and names the flag", async () => {
    const { code, stderr } = await runProcess(process.execPath, [cli, "--port", "nope"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--port");
  });
});
