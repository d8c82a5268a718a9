import { AppsV1Api, Watch } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

interface Logged {
  resource: string;
  type: string;
  name: string;
  rv: number;
  deletionTimestamp: string | undefined;
  finalizers: string[];
}

describe("garbage collection and deletion order", () => {
  let cluster: FakeCluster;
  beforeEach(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  /** Watches deployments, replicasets and pods of a namespace with client-node's Watch; events sorted by RV. */
  async function watchAll(namespace: string) {
    const kc = kubeConfigFor(cluster);
    const log: Logged[] = [];
    const aborts: AbortController[] = [];
    // Awaited conditions on the log, checked as each event arrives: a test waits on the events, not on a poll.
    let waiters: { holds: () => boolean; resolve: () => void }[] = [];
    const check = () => {
      waiters = waiters.filter((w) => {
        if (!w.holds()) return true;
        w.resolve();
        return false;
      });
    };
    const until = (holds: () => boolean) =>
      new Promise<void>((resolve) => {
        waiters.push({ holds, resolve });
        check();
      });
    const rv = cluster.store.resourceVersion();
    for (const [resource, path] of [
      ["deployments", `/apis/apps/v1/namespaces/${namespace}/deployments`],
      ["replicasets", `/apis/apps/v1/namespaces/${namespace}/replicasets`],
      ["pods", `/api/v1/namespaces/${namespace}/pods`],
    ] as const) {
      aborts.push(
        await new Watch(kc).watch(
          path,
          { resourceVersion: rv },
          (type, obj) => {
            log.push({
              resource,
              type,
              name: obj.metadata.name,
              rv: Number(obj.metadata.resourceVersion),
              deletionTimestamp: obj.metadata.deletionTimestamp,
              finalizers: obj.metadata.finalizers ?? [],
            });
            check();
          },
          () => undefined,
        ),
      );
    }
    await cluster.waitForWatches(undefined, 3);
    return {
      sorted: () => [...log].sort((a, b) => a.rv - b.rv),
      /** Resolves once every predicate matches some event (streams deliver independently). */
      untilAll: (...ps: ((l: Logged) => boolean)[]) => until(() => ps.every((p) => log.some(p))),
      untilLog: (p: (log: Logged[]) => boolean) => until(() => p(log)),
      stop: () => {
        for (const a of aborts) a.abort();
      },
    };
  }

  it("Foreground: the owner shows deletionTimestamp + foregroundDeletion first and goes after its dependents", async () => {
    await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2 });
    const w = await watchAll("shop");
    const apps = kubeConfigFor(cluster).makeApiClient(AppsV1Api);
    await apps.deleteNamespacedDeployment({ namespace: "shop", name: "web", propagationPolicy: "Foreground" });
    // Right after the call the Deployment is still readable, marked for deletion.
    const marked = await apps.readNamespacedDeployment({ namespace: "shop", name: "web" }).catch(() => undefined);
    if (marked) {
      expect(marked.metadata?.deletionTimestamp).toBeDefined();
      expect(marked.metadata?.finalizers).toContain("foregroundDeletion");
    }
    await w.untilAll(
      (l) => l.resource === "deployments" && l.type === "DELETED",
      (l) => l.resource === "replicasets" && l.type === "DELETED",
      (l) => l.resource === "pods" && l.type === "DELETED",
    );
    await w.untilLog((log) => log.filter((l) => l.resource === "pods" && l.type === "DELETED").length === 2);
    const events = w.sorted();
    const at = (p: (l: Logged) => boolean) => events.findIndex(p);
    const ownerMarked = at(
      (l) => l.resource === "deployments" && l.type === "MODIFIED" && !!l.deletionTimestamp && l.finalizers.includes("foregroundDeletion"),
    );
    const rsMarked = at((l) => l.resource === "replicasets" && l.type === "MODIFIED" && !!l.deletionTimestamp);
    const podsDeleted = events.map((l, i) => (l.resource === "pods" && l.type === "DELETED" ? i : -1)).filter((i) => i >= 0);
    const rsDeleted = at((l) => l.resource === "replicasets" && l.type === "DELETED");
    const ownerDeleted = at((l) => l.resource === "deployments" && l.type === "DELETED");
    expect(ownerMarked).toBeGreaterThanOrEqual(0);
    expect(podsDeleted).toHaveLength(2);
    expect(ownerMarked).toBeLessThan(rsMarked);
    expect(Math.max(...podsDeleted)).toBeLessThan(rsDeleted);
    expect(rsDeleted).toBeLessThan(ownerDeleted);
    expect(cluster.store.count("pods")).toBe(0);
    w.stop();
  });

  it("Background: the owner goes first, then its dependents", async () => {
    await cluster.script.createDeployment({ namespace: "shop", name: "api", image: "nginx:1.25", replicas: 1 });
    const w = await watchAll("shop");
    await cluster.script.delete("deployments", "shop", "api", { propagationPolicy: "Background" });
    await w.untilAll(
      (l) => l.resource === "deployments" && l.type === "DELETED",
      (l) => l.resource === "replicasets" && l.type === "DELETED",
      (l) => l.resource === "pods" && l.type === "DELETED",
    );
    const events = w.sorted();
    const ownerDeleted = events.findIndex((l) => l.resource === "deployments" && l.type === "DELETED");
    const rsDeleted = events.findIndex((l) => l.resource === "replicasets" && l.type === "DELETED");
    const podDeleted = events.findIndex((l) => l.resource === "pods" && l.type === "DELETED");
    expect(events.some((l) => l.resource === "deployments" && l.deletionTimestamp && l.type === "MODIFIED")).toBe(false);
    expect(ownerDeleted).toBeLessThan(rsDeleted);
    expect(rsDeleted).toBeLessThan(podDeleted);
    w.stop();
  });

  it("Orphan: dependents stay, without the owner reference", async () => {
    await cluster.script.createDeployment({ namespace: "shop", name: "keep", image: "nginx:1.25", replicas: 1 });
    await cluster.script.delete("deployments", "shop", "keep", { propagationPolicy: "Orphan" });
    expect(cluster.store.get("deployments", "shop", "keep")).toBeUndefined();
    const [rs] = cluster.store.list("replicasets", { namespace: "shop" });
    expect(rs?.metadata.ownerReferences ?? []).toEqual([]);
    const pods = cluster.store.list("pods", { namespace: "shop" });
    expect(pods).toHaveLength(1);
    expect(pods[0]!.status!.phase).toBe("Running");
  });

  it("keeps an object with finalizers (deletionTimestamp set) until they are removed", async () => {
    await cluster.script.create("configmaps", {
      metadata: { name: "held", namespace: "default", finalizers: ["example.com/hold"] },
      data: {},
    });
    const marked = await cluster.script.delete("configmaps", "default", "held");
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(cluster.store.get("configmaps", "default", "held")).toBeDefined();
    await cluster.script.removeFinalizers("configmaps", "default", "held");
    expect(cluster.store.get("configmaps", "default", "held")).toBeUndefined();
  });

  it("deleting a namespace removes its content, then the namespace", async () => {
    await cluster.script.createDeployment({ namespace: "temp", name: "x", image: "nginx:1.25" });
    await cluster.script.delete("namespaces", undefined, "temp");
    expect(cluster.store.list("pods", { namespace: "temp" })).toEqual([]);
    expect(cluster.store.list("deployments", { namespace: "temp" })).toEqual([]);
    expect(cluster.store.get("namespaces", undefined, "temp")).toBeUndefined();
  });
});
