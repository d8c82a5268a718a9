import { AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, recordOf, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("controller scenarios: workloads", () => {
  it("rollout: the old digest is replaced in place, not decommissioned", async () => {
    h = await startHarness();
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2, annotations: REPO });
    await converged(h);
    const before = recordOf(h.emulator, "shop-web-nginx")!;
    expect(before).toMatchObject({ name: "docker.io/library/nginx", version: "1.25", status: "deployed", repository: "web" });

    await h.cluster.script.setImage("shop", "web", "nginx:1.26");
    await converged(h);
    const after = recordOf(h.emulator, "shop-web-nginx")!;
    expect(after).toMatchObject({
      id: before.id,
      version: "1.26",
      status: "deployed",
      digest: h.cluster.imageIdFor("nginx:1.26").split("@")[1],
    });
    expect(after.digest).not.toBe(before.digest);
    // Never decommissioned on the way, even for a moment.
    const sent = await h.controller.metrics.recordsAccepted.get();
    expect(sent.values.filter((v) => v.labels.status === "decommissioned")).toEqual([]);
  });

  it("scale to zero decommissions; scaling back up redeploys", async () => {
    h = await startHarness();
    await h.cluster.script.createDeployment({
      namespace: "shop",
      name: "api",
      image: "ghcr.io/acme/api:2.0",
      replicas: 2,
      annotations: REPO,
    });
    await converged(h);
    await h.cluster.script.scale("deployments", "shop", "api", 0);
    await converged(h, { allowEmpty: true });
    expect(recordOf(h.emulator, "shop-api-api")).toMatchObject({ status: "decommissioned", name: "ghcr.io/acme/api" });
    await h.cluster.script.scale("deployments", "shop", "api", 1);
    await converged(h);
    expect(recordOf(h.emulator, "shop-api-api")!.status).toBe("deployed");
  });

  it.each(["Background", "Foreground"] as const)("delete with %s propagation decommissions", async (propagationPolicy) => {
    h = await startHarness();
    await h.cluster.script.createDeployment({ namespace: "shop", name: "cart", image: "nginx:1.25", annotations: REPO });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "keep", image: "redis:7", annotations: REPO });
    await converged(h);
    await h.cluster.script.delete("deployments", "shop", "cart", { propagationPolicy, wait: false });
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-cart-nginx")!.status).toBe("decommissioned"), WAIT);
    await h.cluster.settle();
    await converged(h);
    expect(recordOf(h.emulator, "shop-keep-redis")!.status).toBe("deployed");
  });

  it("foreground delete held up by a pod's finalizer: decommissioned while the Deployment still exists", async () => {
    h = await startHarness();
    await h.cluster.script.createDeployment({ namespace: "shop", name: "cart", image: "nginx:1.25", replicas: 2, annotations: REPO });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "keep", image: "redis:7", annotations: REPO });
    await converged(h);
    // One pod of the Deployment carries a finalizer: foreground deletion waits for it.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(h.cluster.kubeconfig);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const held = h.cluster.store.list("pods", { namespace: "shop", labelSelector: "app=cart" })[0]!;
    const pod = await core.readNamespacedPod({ name: held.metadata.name!, namespace: "shop" });
    pod.metadata!.finalizers = ["example.com/hold"];
    await core.replaceNamespacedPod({ name: pod.metadata!.name!, namespace: "shop", body: pod });

    await h.cluster.script.delete("deployments", "shop", "cart", { propagationPolicy: "Foreground" });
    const deployment = h.cluster.store.get("deployments", "shop", "cart")!;
    expect(deployment.metadata.deletionTimestamp).toBeDefined();
    expect(deployment.metadata.finalizers).toContain("foregroundDeletion");
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-cart-nginx")!.status).toBe("decommissioned"), WAIT);
    // Still there, held by the pod's finalizer, when the record went.
    expect(h.cluster.store.get("deployments", "shop", "cart")?.metadata.deletionTimestamp).toBeDefined();
    expect(h.cluster.store.get("pods", "shop", held.metadata.name!)?.metadata.deletionTimestamp).toBeDefined();

    await h.cluster.script.removeFinalizers("pods", "shop", held.metadata.name!);
    await h.cluster.settle();
    expect(h.cluster.store.get("deployments", "shop", "cart")).toBeUndefined();
    await converged(h);
    expect(recordOf(h.emulator, "shop-cart-nginx")!.status).toBe("decommissioned");
    expect(recordOf(h.emulator, "shop-keep-redis")!.status).toBe("deployed");
  });

  it("StatefulSet and DaemonSet, with a native sidecar and a plain init container", async () => {
    h = await startHarness();
    await h.cluster.script.createStatefulSet({
      namespace: "data",
      name: "db",
      replicas: 2,
      containers: [{ name: "postgres", image: "postgres:16" }],
      initContainers: [
        { name: "init-perms", image: "busybox:1.36" },
        { name: "metrics", image: "prom/postgres-exporter:0.15", restartPolicy: "Always" },
      ],
      annotations: REPO,
    });
    await h.cluster.script.createDaemonSet({ namespace: "infra", name: "agent", image: "fluent/fluent-bit:3.0", annotations: REPO });
    const expected = await converged(h);
    expect([...expected.keys()].sort()).toEqual(["data-db-metrics", "data-db-postgres", "infra-agent-fluent-bit"]);
    await h.cluster.script.setWorkloadImage("statefulsets", "data", "db", { postgres: "postgres:16.4" });
    await converged(h);
    expect(recordOf(h.emulator, "data-db-postgres")!.version).toBe("16.4");
    await h.cluster.script.delete("daemonsets", "infra", "agent");
    await converged(h);
    expect(recordOf(h.emulator, "infra-agent-fluent-bit")!.status).toBe("decommissioned");
  });

  it.each(["Background", "Foreground"] as const)(
    "CronJob through its Jobs: recorded under the CronJob's name, kept between runs, decommissioned on delete (%s)",
    async (propagationPolicy) => {
      h = await startHarness();
      await h.cluster.script.createCronJob({ namespace: "batch", name: "report", image: "ghcr.io/acme/report:1.0", annotations: REPO });
      const job = await h.cluster.script.triggerCronJob("batch", "report");
      await converged(h);
      expect(recordOf(h.emulator, "batch-report-report")).toMatchObject({ status: "deployed", version: "1.0" });
      const pods = h.cluster.store
        .list("pods", { namespace: "batch" })
        .filter((p) => (p.metadata.ownerReferences as { name: string }[] | undefined)?.[0]?.name === job.metadata.name);
      for (const p of pods) await h.cluster.script.completePod("batch", p.metadata.name!);
      await h.controller.flush();
      expect(recordOf(h.emulator, "batch-report-report")!.status).toBe("deployed");
      // A second run is in progress when the CronJob is deleted. With Foreground its Job (and pod) go first, and a
      // finalizer on the pod keeps the CronJob there, being deleted: it must not hold its name meanwhile.
      const second = await h.cluster.script.triggerCronJob("batch", "report");
      await converged(h);
      const running = h.cluster.store
        .list("pods", { namespace: "batch" })
        .find((p) => (p.metadata.ownerReferences as { name: string }[] | undefined)?.[0]?.name === second.metadata.name)!;
      if (propagationPolicy === "Foreground") {
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromString(h.cluster.kubeconfig);
        const core = kubeConfig.makeApiClient(CoreV1Api);
        const pod = await core.readNamespacedPod({ name: running.metadata.name!, namespace: "batch" });
        pod.metadata!.finalizers = ["example.com/hold"];
        await core.replaceNamespacedPod({ name: pod.metadata!.name!, namespace: "batch", body: pod });
      }
      await h.cluster.script.delete("cronjobs", "batch", "report", { propagationPolicy });
      await vi.waitFor(() => expect(recordOf(h!.emulator, "batch-report-report")!.status).toBe("decommissioned"), WAIT);
      if (propagationPolicy === "Foreground") {
        expect(h.cluster.store.get("cronjobs", "batch", "report")?.metadata.deletionTimestamp).toBeDefined();
        await h.cluster.script.removeFinalizers("pods", "batch", running.metadata.name!);
      }
      await h.cluster.settle();
      expect(h.cluster.store.get("cronjobs", "batch", "report")).toBeUndefined();
      expect(h.cluster.store.list("jobs", { namespace: "batch" })).toEqual([]);
      await h.controller.flush();
      expect(recordOf(h.emulator, "batch-report-report")!.status).toBe("decommissioned");
    },
  );

  it("a bare pod, and an image digest change in place", async () => {
    h = await startHarness();
    await h.cluster.script.createPod({ namespace: "tools", name: "toolbox", image: "alpine:3.20", annotations: REPO });
    await converged(h);
    const first = recordOf(h.emulator, "tools-toolbox-alpine")!;
    h.cluster.script.setImageDigest("alpine:3.20", `sha256:${"7".repeat(64)}`);
    await h.cluster.script.repullImage("tools", "toolbox");
    await converged(h);
    expect(recordOf(h.emulator, "tools-toolbox-alpine")).toMatchObject({
      id: first.id,
      digest: `sha256:${"7".repeat(64)}`,
      status: "deployed",
    });
    await h.cluster.script.delete("pods", "tools", "toolbox");
    await converged(h, { allowEmpty: true });
    expect(recordOf(h.emulator, "tools-toolbox-alpine")!.status).toBe("decommissioned");
  });
});

describe("controller scenarios: names and modes", () => {
  it("a Deployment and a StatefulSet both called web: reported, never merged", async () => {
    h = await startHarness();
    await h.cluster.script.createDeployment({
      namespace: "shop",
      name: "web",
      containers: [{ name: "app", image: "nginx:1.25" }],
      annotations: REPO,
    });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "other", image: "redis:7", annotations: REPO });
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-web-app")?.status).toBe("deployed"), WAIT);
    const deploymentDigest = recordOf(h.emulator, "shop-web-app")!.digest;
    await h.cluster.script.createStatefulSet({
      namespace: "shop",
      name: "web",
      containers: [{ name: "app", image: "postgres:16" }],
      annotations: REPO,
    });
    await vi.waitFor(
      () => expect(h!.controller.status().conflicts.map((c) => c.workloads.map((w) => w.kind))).toEqual([["Deployment", "StatefulSet"]]),
      WAIT,
    );
    await h.controller.flush();
    // Held as it was: not overwritten by the StatefulSet's digest, not decommissioned.
    expect(recordOf(h.emulator, "shop-web-app")).toMatchObject({ status: "deployed", digest: deploymentDigest });
    await h.cluster.script.delete("statefulsets", "shop", "web");
    await vi.waitFor(() => expect(h!.controller.status().conflicts).toEqual([]), WAIT);
    await converged(h);
  });

  it("dry run sends nothing", async () => {
    h = await startHarness({ flags: ["--dry-run"] });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await vi.waitFor(() => expect(h!.controller.status().acknowledged).toBe(1), WAIT);
    expect(h.emulator.requests.list().filter((r) => r.method === "POST")).toEqual([]);
  });

  it("the label selector applies to workloads: a Deployment relabelled out of it is decommissioned, and cannot conflict", async () => {
    h = await startHarness({ flags: ["--label-selector", "tier!=internal"] });
    await h.cluster.script.createDeployment({
      namespace: "shop",
      name: "web",
      containers: [{ name: "app", image: "nginx:1.25" }],
      annotations: REPO,
    });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "keep", image: "redis:7", annotations: REPO });
    await converged(h);
    // The template gains tier=internal: the rollout's pods are outside the selector, the old ones go.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(h.cluster.kubeconfig);
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const web = await apps.readNamespacedDeployment({ name: "web", namespace: "shop" });
    web.spec!.template.metadata = { ...web.spec!.template.metadata, labels: { ...web.spec!.template.metadata?.labels, tier: "internal" } };
    await apps.replaceNamespacedDeployment({ name: "web", namespace: "shop", body: web });
    await h.cluster.settle();
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-web-app")!.status).toBe("decommissioned"), WAIT);
    expect(h.cluster.store.get("deployments", "shop", "web")).toBeDefined();
    // A selected StatefulSet of the same name is recorded, not held in a conflict with the excluded Deployment.
    await h.cluster.script.createStatefulSet({
      namespace: "shop",
      name: "web",
      containers: [{ name: "app", image: "postgres:16" }],
      annotations: REPO,
    });
    await vi.waitFor(
      () => expect(recordOf(h!.emulator, "shop-web-app")).toMatchObject({ status: "deployed", name: "docker.io/library/postgres" }),
      WAIT,
    );
    expect(h.controller.status().conflicts).toEqual([]);
    expect(recordOf(h.emulator, "shop-keep-redis")!.status).toBe("deployed");
  });

  it("namespace filters and the label selector limit what is recorded", async () => {
    h = await startHarness({ flags: ["--exclude-namespaces", "kube-system", "--label-selector", "tier!=internal"] });
    await h.cluster.script.createDeployment({ namespace: "kube-system", name: "dns", image: "coredns/coredns:1.11", annotations: REPO });
    await h.cluster.script.createDeployment({
      namespace: "shop",
      name: "hidden",
      image: "redis:7",
      labels: { app: "hidden", tier: "internal" },
      annotations: REPO,
    });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-web-nginx")?.status).toBe("deployed"), WAIT);
    await h.controller.flush();
    expect(h.emulator.state.artifacts.deploymentRecords({}).map((r) => r.deployment_name)).toEqual(["shop-web-nginx"]);
  });
});
