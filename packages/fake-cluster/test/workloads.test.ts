import { createHash } from "node:crypto";
import { AppsV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster, KubeObject } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

/** The pod fields the image checks read. */
type PodView = KubeObject & { status?: { containerStatuses?: { imageID?: string }[] } };
const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const imageIds = (pods: PodView[]) => pods.flatMap((p) => p.status!.containerStatuses!.map((s) => s.imageID));

describe("simulated controllers and kubelet", () => {
  let cluster: FakeCluster;
  beforeEach(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  it("creates a Deployment's ReplicaSet and Running pods with predictable imageIDs", async () => {
    const d = await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 3 });
    expect(d.status!.availableReplicas).toBe(3);
    const [rs] = cluster.store.list("replicasets", { namespace: "shop" });
    const hash = rs!.metadata.labels!["pod-template-hash"]!;
    expect(rs!.metadata.name).toBe(`web-${hash}`);
    expect(rs!.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Deployment", name: "web", uid: d.metadata.uid, controller: true }),
    ]);
    const pods = cluster.store.list("pods", { namespace: "shop" });
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", name: rs!.metadata.name, controller: true });
      expect(pod.status!.phase).toBe("Running");
      expect(pod.status!.conditions).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
      expect(pod.status!.containerStatuses![0]).toMatchObject({
        name: "nginx",
        image: "docker.io/library/nginx:1.25",
        ready: true,
        restartCount: 0,
      });
    }
    expect(new Set(imageIds(pods))).toEqual(new Set([`docker.io/library/nginx@${sha("docker.io/library/nginx:1.25")}`]));
    expect(cluster.imageIdFor("nginx:1.25")).toBe(`docker.io/library/nginx@${sha("docker.io/library/nginx:1.25")}`);
  });

  it("rolls out a new image (patched through the API): new ReplicaSet, new pods, old ReplicaSet scaled to 0", async () => {
    await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2 });
    const [oldRs] = cluster.store.list("replicasets", { namespace: "shop" });
    const apps = kubeConfigFor(cluster).makeApiClient(AppsV1Api);
    await apps.patchNamespacedDeployment(
      {
        namespace: "shop",
        name: "web",
        body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "ghcr.io/acme/web:2.0" }],
      },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    await cluster.settle();
    const sets = cluster.store.list("replicasets", { namespace: "shop" });
    expect(sets).toHaveLength(2);
    const newRs = sets.find((r) => r.metadata.name !== oldRs!.metadata.name)!;
    expect(cluster.store.get("replicasets", "shop", oldRs!.metadata.name!)!.spec!.replicas).toBe(0);
    expect(newRs.spec!.replicas).toBe(2);
    expect(newRs.metadata.annotations!["deployment.kubernetes.io/revision"]).toBe("2");
    const pods = cluster.store.list("pods", { namespace: "shop" });
    expect(pods.map((p) => p.metadata.ownerReferences![0]!.name)).toEqual([newRs.metadata.name, newRs.metadata.name]);
    expect(new Set(imageIds(pods))).toEqual(new Set([`ghcr.io/acme/web@${sha("ghcr.io/acme/web:2.0")}`]));
    const d = cluster.store.get("deployments", "shop", "web")!;
    expect(d.status).toMatchObject({ replicas: 2, updatedReplicas: 2, availableReplicas: 2, observedGeneration: d.metadata.generation });
  });

  it("scales a Deployment up and down", async () => {
    await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 1 });
    await cluster.script.scale("deployments", "shop", "web", 4);
    expect(cluster.store.list("pods", { namespace: "shop", fieldSelector: "status.phase=Running" })).toHaveLength(4);
    await cluster.script.scale("deployments", "shop", "web", 2);
    expect(cluster.store.list("pods", { namespace: "shop" })).toHaveLength(2);
    expect(cluster.store.get("deployments", "shop", "web")!.status!.readyReplicas).toBe(2);
  });

  it("reports an explicit digest, and changes a running pod's imageID in place on re-pull", async () => {
    const pinned = `sha256:${"a".repeat(64)}`;
    cluster.script.setImageDigest("nginx:1.25", pinned);
    await cluster.script.createPod({ name: "solo", image: "nginx:1.25" });
    expect(cluster.store.get("pods", "default", "solo")!.status!.containerStatuses![0]!.imageID).toBe(`docker.io/library/nginx@${pinned}`);
    const moved = `sha256:${"b".repeat(64)}`;
    cluster.script.setImageDigest("nginx:1.25", moved);
    const pod = await cluster.script.repullImage("default", "solo", "nginx");
    expect(pod.status!.containerStatuses![0]).toMatchObject({ imageID: `docker.io/library/nginx@${moved}`, restartCount: 1 });
    const direct = await cluster.script.setContainerImageId("default", "solo", "nginx", `docker.io/library/nginx@sha256:${"c".repeat(64)}`);
    expect(direct.status!.containerStatuses![0]!.imageID).toMatch(/c{64}$/);
    expect(() => cluster.script.setImageDigest("nginx", "sha256:short")).toThrow(/digest/);
  });

  it("represents init containers, sidecars and ephemeral containers", async () => {
    await cluster.script.createPod({
      name: "rich",
      containers: [{ name: "app", image: "ghcr.io/acme/app:1" }],
      initContainers: [
        { name: "migrate", image: "ghcr.io/acme/migrate:1" },
        { name: "proxy", image: "envoyproxy/envoy:v1.30", restartPolicy: "Always" },
      ],
    });
    let pod = cluster.store.get("pods", "default", "rich")!;
    const init = Object.fromEntries(pod.status!.initContainerStatuses!.map((s) => [s.name, s]));
    expect(init.migrate!.state!.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(init.proxy!.state!.running).toBeDefined();
    expect(init.proxy!.imageID).toBe(cluster.imageIdFor("envoyproxy/envoy:v1.30"));
    expect(init.proxy!.imageID).toMatch(/^docker\.io\/envoyproxy\/envoy@sha256:[0-9a-f]{64}$/);
    pod = await cluster.script.addEphemeralContainer("default", "rich", { name: "debug", image: "busybox:1.36" });
    expect(pod.status!.ephemeralContainerStatuses).toEqual([
      expect.objectContaining({ name: "debug", imageID: cluster.imageIdFor("busybox:1.36") }),
    ]);
  });

  it("runs StatefulSet pods <name>-0..n-1 and updates them to a new image", async () => {
    await cluster.script.createStatefulSet({ namespace: "db", name: "pg", image: "postgres:16", replicas: 3 });
    expect(cluster.store.list("pods", { namespace: "db" }).map((p) => p.metadata.name)).toEqual(["pg-0", "pg-1", "pg-2"]);
    await cluster.script.setWorkloadImage("statefulsets", "db", "pg", "postgres:17");
    const pods = cluster.store.list("pods", { namespace: "db" });
    expect(pods.map((p) => p.metadata.name)).toEqual(["pg-0", "pg-1", "pg-2"]);
    expect(new Set(imageIds(pods))).toEqual(new Set([cluster.imageIdFor("postgres:17")]));
    expect(cluster.store.get("statefulsets", "db", "pg")!.status).toMatchObject({ readyReplicas: 3, updatedReplicas: 3 });
  });

  it("runs one DaemonSet pod per node", async () => {
    await cluster.script.createDaemonSet({ namespace: "kube-system", name: "agent", image: "ghcr.io/acme/agent:1" });
    const pods = cluster.store.list("pods", { namespace: "kube-system" });
    expect(pods.map((p) => p.spec!.nodeName).sort()).toEqual(["node-1", "node-2"]);
    expect(cluster.store.list("pods", { fieldSelector: "spec.nodeName=node-2" })).toHaveLength(1);
  });

  it("runs CronJob -> Job -> pod with owner references, and completes the Job", async () => {
    await cluster.script.createCronJob({ namespace: "batch", name: "report", image: "ghcr.io/acme/report:1" });
    const job = await cluster.script.triggerCronJob("batch", "report");
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", name: "report" });
    const [pod] = cluster.store.list("pods", { namespace: "batch" });
    expect(pod!.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Job", name: job.metadata.name });
    expect(pod!.status!.phase).toBe("Running");
    expect(cluster.store.get("cronjobs", "batch", "report")!.status!.active).toEqual([
      expect.objectContaining({ name: job.metadata.name }),
    ]);
    await cluster.script.completePod("batch", pod!.metadata.name!);
    const done = cluster.store.get("jobs", "batch", job.metadata.name!)!;
    expect(done.status!.conditions).toContainEqual(expect.objectContaining({ type: "Complete", status: "True" }));
    expect(cluster.store.get("cronjobs", "batch", "report")!.status!.active).toBeUndefined();
  });

  it("keeps new pods Pending while the kubelet is paused", async () => {
    cluster.script.pauseKubelet();
    await cluster.script.createPod({ name: "waiting", image: "nginx:1.25" });
    const pending = cluster.store.get("pods", "default", "waiting")!;
    expect(pending.status!.phase).toBe("Pending");
    expect(pending.spec!.nodeName).toBeDefined();
    await cluster.script.resumeKubelet();
    expect(cluster.store.get("pods", "default", "waiting")!.status!.phase).toBe("Running");
  });

  it("creates thousands of pods through the bulk path", async () => {
    const specs = Array.from({ length: 500 }, (_, i) => ({
      namespace: `team-${i % 5}`,
      name: `svc-${i}`,
      image: `ghcr.io/acme/svc-${i % 7}:1`,
      replicas: 2,
    }));
    await cluster.script.createDeployments(specs, { wait: false });
    await cluster.settle();
    expect(cluster.store.count("pods")).toBe(1000);
    expect(cluster.store.list("pods", { fieldSelector: "status.phase=Running" })).toHaveLength(1000);
    const response = await fetch(`${cluster.url}/api/v1/pods`);
    const list = (await response.json()) as { items: unknown[]; metadata: { resourceVersion: string } };
    expect(list.items).toHaveLength(1000);
    expect(list.metadata.resourceVersion).toBe(cluster.store.resourceVersion());
  });
});
