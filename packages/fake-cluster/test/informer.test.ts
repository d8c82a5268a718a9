import { CoreV1Api, makeInformer } from "@kubernetes/client-node";
import type { V1Pod } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

/** What the informer reported: a pod event, or an error (kept, never waited for). */
type PodEvent = { type: "add" | "update" | "delete"; name: string | undefined; obj: V1Pod };
type Seen = PodEvent | { type: "error"; name: undefined; obj: unknown };

describe("informer (real @kubernetes/client-node 1.4) against the fake cluster", () => {
  let cluster: FakeCluster;
  beforeEach(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  function podInformer(path = "/api/v1/pods") {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1Pod>(kc, path, () => core.listPodForAllNamespaces());
    const seen: Seen[] = [];
    // Awaited events: each is checked as the informer reports, so a test waits on the event itself, not on a poll.
    let waiters: { predicate: (s: PodEvent) => boolean; resolve: (s: PodEvent) => void }[] = [];
    const record = (type: PodEvent["type"]) => (obj: V1Pod) => {
      const event: PodEvent = { type, name: obj.metadata?.name, obj };
      seen.push(event);
      waiters = waiters.filter((w) => {
        if (!w.predicate(event)) return true;
        w.resolve(event);
        return false;
      });
    };
    informer.on("add", record("add"));
    informer.on("update", record("update"));
    informer.on("delete", record("delete"));
    informer.on("error", (error: unknown) => {
      seen.push({ type: "error", name: undefined, obj: error });
    });
    /** Resolves with the first reported event that matches, already seen or yet to come. */
    const waitFor = (predicate: (s: PodEvent) => boolean) =>
      new Promise<PodEvent>((resolve) => {
        const found = seen.find((s): s is PodEvent => s.type !== "error" && predicate(s));
        if (found) resolve(found);
        else waiters.push({ predicate, resolve });
      });
    return { informer, seen, waitFor };
  }

  it("lists, then sees adds, updates and deletes through the watch", async () => {
    await cluster.script.createPod({ name: "before", image: "busybox:1.36" });
    const { informer, waitFor } = podInformer();
    await informer.start();
    await waitFor((s) => s.type === "add" && s.name === "before");
    await cluster.waitForWatches("pods");

    await cluster.script.createPod({ name: "after", image: "busybox:1.36" });
    await waitFor((s) => s.type === "add" && s.name === "after");
    const running = await waitFor((s) => s.type === "update" && s.name === "after" && s.obj.status?.phase === "Running");
    expect(running.obj.status?.containerStatuses?.[0]?.imageID).toBe(cluster.imageIdFor("busybox:1.36"));

    await cluster.script.delete("pods", "default", "after");
    const deleted = await waitFor((s) => s.type === "delete" && s.name === "after");
    expect(Number(deleted.obj.metadata?.resourceVersion)).toBeGreaterThan(Number(running.obj.metadata?.resourceVersion));
    expect(informer.list().map((p) => p.metadata?.name)).toEqual(["before"]);
    await informer.stop();
  });

  it("relists after 410 Expired (in-stream ERROR event) and reports objects deleted meanwhile", async () => {
    await cluster.script.createPod({ name: "gone-later", image: "busybox:1.36" });
    const { informer, waitFor } = podInformer();
    await informer.start();
    await waitFor((s) => s.type === "add" && s.name === "gone-later");
    await cluster.waitForWatches("pods");
    expect(cluster.stats().lists.pods).toBe(1);

    // While the watch is hung, the pod goes and the history is compacted: the re-watch gets 410.
    cluster.faults.hangWatches({ resource: "pods" });
    await cluster.script.delete("pods", "default", "gone-later", { gracePeriodSeconds: 0 });
    cluster.faults.compactHistory();
    cluster.faults.releaseWatches();

    const deleted = await waitFor((s) => s.type === "delete" && s.name === "gone-later");
    expect(deleted.obj.metadata?.name).toBe("gone-later");
    expect(cluster.stats().lists.pods).toBe(2);
    expect(informer.list()).toEqual([]);
    await informer.stop();
  });

  it("relists after a plain HTTP 410 too", async () => {
    cluster.faults.expiredResponse("http");
    const { informer, waitFor } = podInformer();
    await informer.start();
    await cluster.waitForWatches("pods");
    cluster.faults.hangWatches({ resource: "pods" });
    await cluster.script.createPod({ name: "missed", image: "busybox:1.36" });
    cluster.faults.compactHistory();
    cluster.faults.releaseWatches();
    await waitFor((s) => s.type === "add" && s.name === "missed");
    expect(cluster.stats().lists.pods).toBe(2);
    await informer.stop();
  });

  it("re-watches without relisting when the server ends a watch cleanly", async () => {
    const { informer, waitFor } = podInformer();
    await informer.start();
    await cluster.waitForWatches("pods");
    const watchesBefore = cluster.stats().watches.pods ?? 0;
    expect(cluster.faults.cutWatches({ resource: "pods", mode: "end" })).toBe(1);
    await cluster.waitForWatches("pods");
    await cluster.script.createPod({ name: "seen-on-new-watch", image: "busybox:1.36" });
    await waitFor((s) => s.type === "add" && s.name === "seen-on-new-watch");
    expect(cluster.stats().lists.pods).toBe(1);
    expect(cluster.stats().watches.pods).toBe(watchesBefore + 1);
    await informer.stop();
  });

  it("honours label and field selectors written into the watch path", async () => {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1Pod>(
      kc,
      "/api/v1/namespaces/default/pods",
      () => core.listNamespacedPod({ namespace: "default", labelSelector: "tier=web" }),
      "tier=web",
    );
    const names: string[] = [];
    let webAdded = (): void => {};
    const webSeen = new Promise<void>((resolve) => (webAdded = resolve));
    informer.on("add", (p) => {
      names.push(p.metadata!.name!);
      if (p.metadata?.name === "web") webAdded();
    });
    await informer.start();
    await cluster.waitForWatches("pods");
    await cluster.script.createPod({ name: "db", image: "postgres:16", labels: { tier: "db" } });
    await cluster.script.createPod({ name: "web", image: "nginx:1.25", labels: { tier: "web" } });
    await webSeen;
    expect(names).toEqual(["web"]);
    await informer.stop();
  });
});
