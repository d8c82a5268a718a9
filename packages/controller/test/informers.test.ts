// The informers against the real fake cluster over HTTP: lists paged as client-go pages them, a continue token that
// expires between pages, relists that report only what changed in them, and updates that change nothing the mapping
// reads, not reported.
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  ClusterInformers,
  LIST_PAGE_SIZE,
  MAX_NAMESPACED_WATCHES,
  type Pod,
  type RestartReason,
  type WatchedKind,
} from "@shiplog/controller/internal";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import type { Clock } from "@shiplog/controller";
import { afterEach, describe, expect, it } from "vitest";
import { CountedClock } from "../../../test/kit/counted-clock.js";
import { Changes } from "../../../test/kit/events.js";
import { startProxy, type TestProxy } from "../../../test/kit/proxy.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

let cluster: FakeCluster | undefined;
let proxy: TestProxy | undefined;
let informers: ClusterInformers | undefined;
afterEach(async () => {
  await informers?.stop();
  await proxy?.close();
  await cluster?.stop();
  informers = proxy = cluster = undefined;
});

function kubeConfigOf(kubeconfig: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfig);
  return kubeConfig;
}

const IDLE_MS = 60_000;
const REQUEST_MS = 5_000;

function start(
  kubeconfig: string,
  changes: string[],
  restarts: RestartReason[] = [],
  namespaces: string[] = [],
  clock?: Clock,
): ClusterInformers {
  const kubeConfig = kubeConfigOf(kubeconfig);
  const started = new ClusterInformers({
    kubeConfig,
    namespaces,
    watchTimeoutSeconds: 30,
    watchIdleTimeoutMs: IDLE_MS,
    requestTimeoutMs: REQUEST_MS,
    restartMinDelayMs: 50,
    restartMaxDelayMs: 400,
    logger: pino({ level: "silent" }),
    clock,
    onChange: (kind: WatchedKind, namespace: string, name: string) => changes.push(`${kind} ${namespace}/${name}`),
    onRestart: (_kind, reason) => restarts.push(reason),
  });
  started.start();
  return started;
}

/** Bare pods (e.g. more than one page of them). */
async function podsOverOnePage(c: FakeCluster, count: number, prefix = "p"): Promise<void> {
  for (let i = 0; i < count; i++) {
    const spec = { containers: [{ name: "app", image: "nginx:1.25" }] };
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: `${prefix}-${i}`, namespace: "shop" }, spec };
    await c.script.create("pods", pod, { wait: false });
  }
  await c.settle();
}

/** What a list request reads (its path without the query): one per reflector, however often it is asked. */
const listedPath = (request: { url: string }): string => request.url.split("?")[0]!;

describe("informers", () => {
  it("more namespaces than one watch each allows: one cluster-wide list-watch per kind, keeping only theirs", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    const bare = (namespace: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace },
      spec: { containers: [{ name: "app", image: "nginx:1.25" }] },
    });
    for (const ns of ["team-0", "team-7", "other"]) await cluster.script.create("pods", bare(ns), { wait: false });
    await cluster.settle();
    proxy = await startProxy(cluster.url);
    const names = Array.from({ length: MAX_NAMESPACED_WATCHES + 1 }, (_, i) => `team-${i}`);
    informers = start(proxy.kubeconfigFor(cluster.kubeconfig, cluster.url), [], [], names);
    const cached = new Changes();
    informers.addEventHandler({ onChange: () => cached.changed() });
    await informers.waitForSync();
    expect([...informers.pods()].map((p) => p.metadata.namespace).sort()).toEqual(["team-0", "team-7"]);
    // One list per kind, cluster-wide: no request names a namespace. Lists are counted by what they read, not by
    // request: on a loaded machine a list that outlives its timeout is asked again, and that is no second reflector.
    const lists = proxy.requests.filter((r) => !r.url.includes("watch=true"));
    expect(new Set(lists.map(listedPath)).size).toBe(7);
    expect(lists.filter((r) => r.url.includes("/namespaces/"))).toEqual([]);
    // A pod created later in another namespace is not kept either; one in a named namespace is.
    await cluster.script.create("pods", { ...bare("elsewhere"), metadata: { name: "q", namespace: "elsewhere" } }, { wait: false });
    await cluster.script.create("pods", { ...bare("team-3"), metadata: { name: "q", namespace: "team-3" } }, { wait: false });
    // One watch brings both, in order: once the second is cached, the first was seen (and left out, or kept).
    await cached.until(() => informers!.object("Pod", "team-3", "q") !== undefined);
    expect([...informers.pods()].map((p) => p.metadata.namespace).sort()).toEqual(["team-0", "team-3", "team-7"]);

    // At the bound, one list-watch per kind and namespace, as before.
    await informers.stop();
    const atBound = await startProxy(cluster.url);
    informers = start(atBound.kubeconfigFor(cluster.kubeconfig, cluster.url), [], [], names.slice(0, MAX_NAMESPACED_WATCHES));
    await informers.waitForSync();
    const boundLists = atBound.requests.filter((r) => !r.url.includes("watch=true"));
    expect(new Set(boundLists.map(listedPath)).size).toBe(7 * MAX_NAMESPACED_WATCHES);
    expect(boundLists.filter((r) => !r.url.includes("/namespaces/"))).toEqual([]);
    await atBound.close();
  });

  it("list in pages of 500 with continue tokens, as client-go's pager", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    await podsOverOnePage(cluster, LIST_PAGE_SIZE + 1);
    const podLists: URL[] = [];
    proxy = await startProxy(cluster.url, {
      onRequest: (url) => {
        if (url.pathname === "/api/v1/pods" && url.searchParams.get("watch") !== "true") podLists.push(url);
      },
    });
    const changes: string[] = [];
    informers = start(proxy.kubeconfigFor(cluster.kubeconfig, cluster.url), changes);
    await informers.waitForSync();
    expect(LIST_PAGE_SIZE).toBe(500);
    expect(podLists.map((u) => u.searchParams.get("limit"))).toEqual(["500", "500"]);
    expect(podLists[0]!.searchParams.has("continue")).toBe(false);
    expect(podLists[1]!.searchParams.get("continue")).toBeTruthy();
    expect([...informers.pods()]).toHaveLength(LIST_PAGE_SIZE + 1);
    expect(changes.filter((c) => c.startsWith("Pod "))).toHaveLength(LIST_PAGE_SIZE + 1);
  });

  it("a continue token expired between pages (410): the list starts again from its first page", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    await podsOverOnePage(cluster, LIST_PAGE_SIZE + 1);
    const podLists: URL[] = [];
    let compacted = false;
    proxy = await startProxy(cluster.url, {
      onRequest: async (url) => {
        if (url.pathname !== "/api/v1/pods" || url.searchParams.get("watch") === "true") return;
        podLists.push(url);
        if (url.searchParams.has("continue") && !compacted) {
          // Between the pages a pod is added and the first page's resourceVersion leaves etcd's history.
          compacted = true;
          await podsOverOnePage(cluster!, 1, "late");
          cluster!.faults.compactHistory();
        }
      },
    });
    const restarts: RestartReason[] = [];
    informers = start(proxy.kubeconfigFor(cluster.kubeconfig, cluster.url), [], restarts);
    await informers.waitForSync();
    expect(podLists.map((u) => (u.searchParams.has("continue") ? "next" : "first"))).toEqual(["first", "next", "first", "next"]);
    expect(restarts).toContain("relist");
    expect([...informers.pods()]).toHaveLength(LIST_PAGE_SIZE + 2);
  });

  it("a relist reports only what changed while the watch was away", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
    await cluster.script.createDeployments(
      Array.from({ length: 10 }, (_, i) => ({ namespace: "shop", name: `svc-${i}`, image: `nginx:1.${i}`, replicas: 2 })),
    );
    const changes: string[] = [];
    // Time stands still but when the test moves it (the reflectors' sleeps before they try again); the timers pending
    // say when every reflector is watching (its idle watchdog armed, no request unanswered), or asleep (neither).
    const clock = new VirtualClock();
    const observed = new Changes();
    const counted = new CountedClock(clock, () => observed.changed());
    informers = start(cluster.kubeconfig, changes, [], [], counted);
    informers.addEventHandler({ onChange: () => observed.changed() });
    await informers.waitForSync();
    const reflectors = informers.status().length;
    await observed.until(() => counted.pending(IDLE_MS) === reflectors && counted.pending(REQUEST_MS) === 0);
    const listsBefore = cluster.stats().lists.pods ?? 0;
    const of = (resource: "replicasets" | "pods", kind: string) =>
      cluster!.store
        .list(resource)
        .filter((o) => (o.metadata.name ?? "").startsWith("svc-3-"))
        .map((o) => `${kind} shop/${o.metadata.name}`);
    const gone = ["Deployment shop/svc-3", ...of("replicasets", "ReplicaSet"), ...of("pods", "Pod")].sort();
    expect(gone).toHaveLength(4);
    changes.length = 0;
    await cluster.faults.refuseConnections();
    // Every watch was cut: each reflector sleeps (on the virtual clock) before it tries again.
    await observed.until(() => counted.pending(IDLE_MS) === 0 && counted.pending(REQUEST_MS) === 0);
    await cluster.script.delete("deployments", "shop", "svc-3");
    cluster.faults.compactHistory();
    await cluster.faults.acceptConnections();
    // Past the sleeps (at most 400 ms): the watches come back at a compacted resourceVersion: 410, relist. Only
    // svc-3's objects are reported (gone); the nine other Deployments, their ReplicaSets and 18 pods are listed again
    // unchanged, and not reported. A relist reports what it removed after all it listed: once svc-3's last object
    // is reported gone, the relists of the kinds it had were all reported.
    await clock.advance(1_000);
    await observed.until(() => gone.every((c) => changes.includes(c)));
    expect([...new Set(changes)].sort()).toEqual(gone);
    expect(cluster.stats().lists.pods ?? 0).toBeGreaterThan(listsBefore);
    expect(changes).toHaveLength(gone.length);
    expect([...informers.pods()]).toHaveLength(18);
  });

  it("an update that changes nothing the mapping reads is not reported; one that does is", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    await cluster.script.createDeployments([{ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2 }]);
    const changes: string[] = [];
    informers = start(cluster.kubeconfig, changes);
    const observed = new Changes();
    informers.addEventHandler({ onChange: () => observed.changed() });
    await informers.waitForSync();
    await cluster.waitForWatches("pods");
    const [quiet, loud] = cluster.store.list("pods", { namespace: "shop" });
    changes.length = 0;
    const cachedQuiet = informers.object("Pod", "shop", quiet!.metadata.name!);
    // A label and a condition: read by nothing the desired state uses. Then a container no longer ready.
    const core = kubeConfigOf(cluster.kubeconfig).makeApiClient(CoreV1Api);
    const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
    const named = (pod: typeof quiet) => ({ namespace: "shop", name: pod!.metadata.name! });
    await core.patchNamespacedPod({ ...named(quiet), body: { metadata: { labels: { touched: "yes" } } } }, merge);
    const conditions = [{ type: "Ready", status: "True", lastTransitionTime: new Date() }];
    await core.patchNamespacedPodStatus({ ...named(quiet), body: { status: { conditions } } }, merge);
    const statuses = (loud!.status as { containerStatuses: object[] }).containerStatuses.map((c) => ({ ...c, ready: false }));
    await core.patchNamespacedPodStatus({ ...named(loud), body: { status: { containerStatuses: statuses } } }, merge);
    // Events arrive in order: once the last is reported, the first two were seen, and the cache kept its copy.
    await observed.until(() => changes.length > 0);
    expect(changes).toEqual([`Pod shop/${loud!.metadata.name}`]);
    expect(informers.object("Pod", "shop", quiet!.metadata.name!)).toBe(cachedQuiet);
    expect((informers.object("Pod", "shop", loud!.metadata.name!) as Pod).status?.containerStatuses?.[0]?.ready).toBe(false);
  });
});
