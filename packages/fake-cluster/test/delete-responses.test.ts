// DELETE answers as the real API server gives them (apiserver's delete handler and generic registry): 200 with the
// object while its deletion is pending, 200 with a Success Status (pods: the deleted pod) when it is gone at once,
// 202 only for a pending deletion asked with the deprecated orphanDependents=false.
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

let cluster: FakeCluster;
let core: CoreV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  cluster = await startFakeCluster({ nodes: ["node-1"], bookmarkIntervalMs: 3_600_000 });
  core = kubeConfigFor(cluster).makeApiClient(CoreV1Api);
  apps = kubeConfigFor(cluster).makeApiClient(AppsV1Api);
});
afterAll(async () => {
  await cluster.stop();
});

const configMap = (name: string, finalizers?: string[]) => ({
  metadata: { name, namespace: "del", ...(finalizers && { finalizers }) },
  data: {},
});
const deployment = (name: string) => ({
  metadata: { name, namespace: "del" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "nginx:1.25" }] } },
  },
});
const rawDelete = async (path: string, body?: unknown) => {
  const response = await fetch(`${cluster.url}${path}`, {
    method: "DELETE",
    ...(body !== undefined && { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
};

describe("DELETE", () => {
  it("deleted at once: 200 and a Success Status naming the resource and uid, without a code", async () => {
    const created = await cluster.script.create("configmaps", configMap("plain"));
    const answer = await core.deleteNamespacedConfigMapWithHttpInfo({ namespace: "del", name: "plain" });
    expect(answer.httpStatusCode).toBe(200);
    expect(answer.data.status).toBe("Success");
    expect(answer.data.details).toMatchObject({ name: "plain", kind: "configmaps", uid: created.metadata.uid });

    await cluster.script.create("configmaps", configMap("raw"));
    const raw = await rawDelete("/api/v1/namespaces/del/configmaps/raw");
    expect(raw).toEqual({
      status: 200,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name: "raw", kind: "configmaps", uid: expect.any(String) },
      },
    });
    // A named group is given.
    await cluster.script.create("deployments", deployment("gone"));
    const gone = await apps.deleteNamespacedDeploymentWithHttpInfo({ namespace: "del", name: "gone", propagationPolicy: "Background" });
    expect(gone.httpStatusCode).toBe(200);
    expect(gone.data.details).toMatchObject({ name: "gone", group: "apps", kind: "deployments" });
  });

  it("pending on finalizers: 200 and the object with its deletionTimestamp", async () => {
    await cluster.script.create("configmaps", configMap("held", ["example.com/hold"]));
    const raw = await rawDelete("/api/v1/namespaces/del/configmaps/held");
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "held", finalizers: ["example.com/hold"], deletionTimestamp: expect.any(String) },
    });
    const again = await core.deleteNamespacedConfigMapWithHttpInfo({ namespace: "del", name: "held" });
    expect(again.httpStatusCode).toBe(200);
    await cluster.script.removeFinalizers("configmaps", "del", "held");
  });

  it("Foreground: 200 and the owner with deletionTimestamp and the foregroundDeletion finalizer", async () => {
    await cluster.script.create("deployments", deployment("fg"));
    const answer = await apps.deleteNamespacedDeploymentWithHttpInfo({ namespace: "del", name: "fg", propagationPolicy: "Foreground" });
    expect(answer.httpStatusCode).toBe(200);
    await cluster.script.create("deployments", deployment("fg-raw"));
    const raw = await rawDelete("/apis/apps/v1/namespaces/del/deployments/fg-raw", { propagationPolicy: "Foreground" });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      kind: "Deployment",
      metadata: { name: "fg-raw", deletionTimestamp: expect.any(String), finalizers: ["foregroundDeletion"] },
    });
  });

  it("pods: the pod comes back, terminating (200) or deleted (200)", async () => {
    await cluster.script.create("pods", {
      metadata: { name: "running", namespace: "del" },
      spec: { containers: [{ name: "main", image: "busybox:1.36" }] },
    });
    const graceful = await core.deleteNamespacedPodWithHttpInfo({ namespace: "del", name: "running" });
    expect(graceful.httpStatusCode).toBe(200);
    expect(graceful.data.metadata?.deletionTimestamp).toBeDefined();
    expect(graceful.data.metadata?.deletionGracePeriodSeconds).toBe(30);
    await cluster.script.create("pods", {
      metadata: { name: "forced", namespace: "del" },
      spec: { containers: [{ name: "main", image: "busybox:1.36" }] },
    });
    const forced = await core.deleteNamespacedPodWithHttpInfo({ namespace: "del", name: "forced", gracePeriodSeconds: 0 });
    expect(forced.httpStatusCode).toBe(200);
    expect(forced.data.kind).toBe("Pod");
    expect(forced.data.metadata?.name).toBe("forced");
    expect(cluster.store.get("pods", "del", "forced")).toBeUndefined();
  });

  it("orphanDependents=false: 202 while the deletion is pending, 200 when the object went at once", async () => {
    await cluster.script.create("configmaps", configMap("cascade", ["example.com/hold"]));
    const pending = await core.deleteNamespacedConfigMapWithHttpInfo({ namespace: "del", name: "cascade", orphanDependents: false });
    expect(pending.httpStatusCode).toBe(202);
    await cluster.script.removeFinalizers("configmaps", "del", "cascade");
    await cluster.script.create("configmaps", configMap("cascade-now"));
    const now = await core.deleteNamespacedConfigMapWithHttpInfo({ namespace: "del", name: "cascade-now", orphanDependents: false });
    expect(now.httpStatusCode).toBe(200);
    expect(now.data.status).toBe("Success");
  });

  it("orphanDependents with propagationPolicy is refused (422)", async () => {
    await cluster.script.create("configmaps", configMap("both"));
    const raw = await rawDelete("/api/v1/namespaces/del/configmaps/both", { orphanDependents: true, propagationPolicy: "Background" });
    expect(raw.status).toBe(422);
    expect(raw.body).toMatchObject({
      kind: "Status",
      reason: "Invalid",
      message: expect.stringContaining("orphanDependents and deletionPropagation cannot be both set"),
    });
    expect(cluster.store.get("configmaps", "del", "both")).toBeDefined();
  });
});
