import { CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { kubeConfigFor, rawWatch } from "./kube-clients.js";

describe("HTTP API details", () => {
  let cluster: FakeCluster;
  let core: CoreV1Api;
  // Watch timeouts run on it: a test moves it rather than waiting.
  const clock = new VirtualClock();
  beforeAll(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"], bookmarkIntervalMs: 3_600_000, clock });
    core = kubeConfigFor(cluster).makeApiClient(CoreV1Api);
    for (const name of ["a", "b", "c", "d", "e"])
      await cluster.script.create("configmaps", {
        metadata: { name, namespace: "pages", labels: { set: name < "c" ? "low" : "high" } },
        data: {},
      });
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("pages lists with limit/continue as one snapshot at the first page's resourceVersion", async () => {
    const cm = (name: string) => ({ metadata: { name, namespace: "paging", labels: { v: "1" } }, data: { v: "1" } });
    for (const name of ["a", "b", "c", "d", "e"]) await cluster.script.create("configmaps", cm(name));
    const first = await core.listNamespacedConfigMap({ namespace: "paging", limit: 2 });
    expect(first.items.map((i) => i.metadata?.name)).toEqual(["a", "b"]);
    // c, d, e and the namespace's kube-root-ca.crt.
    expect(first.metadata?.remainingItemCount).toBe(4);
    // Changes after the first page: none of them may show on the later pages.
    await core.patchNamespacedConfigMap(
      { namespace: "paging", name: "c", body: { data: { v: "2" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ namespace: "paging", name: "d" });
    await core.createNamespacedConfigMap({ namespace: "paging", body: cm("bb") });
    await core.createNamespacedConfigMap({ namespace: "paging", body: cm("f") });
    await core.patchNamespacedConfigMap(
      { namespace: "paging", name: "e", body: { metadata: { labels: { v: "2" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const second = await core.listNamespacedConfigMap({ namespace: "paging", limit: 2, _continue: first.metadata!._continue! });
    expect(second.items.map((i) => [i.metadata?.name, i.data?.v])).toEqual([
      ["c", "1"],
      ["d", "1"],
    ]);
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.metadata?.remainingItemCount).toBe(2);
    const third = await core.listNamespacedConfigMap({
      namespace: "paging",
      limit: 2,
      labelSelector: "v=1",
      _continue: second.metadata!._continue!,
    });
    // e is selected by the label it had then (it carries v=2 now), in its version of then.
    expect(third.items.map((i) => [i.metadata?.name, i.metadata?.labels?.v])).toEqual([["e", "1"]]);
    expect(Number(third.items[0]!.metadata!.resourceVersion)).toBeLessThanOrEqual(Number(first.metadata!.resourceVersion));
    expect(third.metadata?._continue).toBeUndefined();
    // A fresh list sees the changes.
    expect((await core.listNamespacedConfigMap({ namespace: "paging" })).items.map((i) => i.metadata?.name)).toEqual([
      "a",
      "b",
      "bb",
      "c",
      "e",
      "f",
      "kube-root-ca.crt",
    ]);
  });

  it("a continue token whose resourceVersion is compacted: 410 Expired with a token to go on from the current state", async () => {
    const first = await core.listNamespacedConfigMap({ namespace: "paging", limit: 3 });
    expect(first.items.map((i) => i.metadata?.name)).toEqual(["a", "b", "bb"]);
    await core.deleteNamespacedConfigMap({ namespace: "paging", name: "e" });
    cluster.faults.compactHistory();
    const stale = await fetch(`${cluster.url}/api/v1/namespaces/paging/configmaps?limit=3&continue=${first.metadata!._continue!}`);
    expect(stale.status).toBe(410);
    const status = (await stale.json()) as { reason: string; message: string; metadata: { continue?: string } };
    expect(status).toMatchObject({ kind: "Status", reason: "Expired", code: 410 });
    expect(status.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(status.metadata.continue).toEqual(expect.any(String));
    const rest = await core.listNamespacedConfigMap({ namespace: "paging", limit: 3, _continue: status.metadata.continue! });
    expect(rest.items.map((i) => i.metadata?.name)).toEqual(["c", "f", "kube-root-ca.crt"]);
    expect(Number(rest.metadata?.resourceVersion)).toBeGreaterThan(Number(first.metadata?.resourceVersion));
  });

  it("filters lists by set-based label selectors and field selectors", async () => {
    expect(
      (await core.listNamespacedConfigMap({ namespace: "pages", labelSelector: "set in (low),set!=high" })).items.map(
        (i) => i.metadata?.name,
      ),
    ).toEqual(["a", "b"]);
    expect(
      (await core.listConfigMapForAllNamespaces({ fieldSelector: "metadata.name=d,metadata.namespace=pages" })).items.map(
        (i) => i.metadata?.name,
      ),
    ).toEqual(["d"]);
    const bad = await fetch(`${cluster.url}/api/v1/configmaps?labelSelector=${encodeURIComponent("a in b")}`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ kind: "Status", reason: "BadRequest" });
  });

  it("watch without resourceVersion starts with ADDED for existing objects", async () => {
    const w = await rawWatch(`${cluster.url}/api/v1/namespaces/pages/configmaps?watch=true&labelSelector=set%3Dlow`);
    await w.until((e) => e.length >= 2);
    expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["ADDED", "a"],
      ["ADDED", "b"],
    ]);
    w.abort();
  });

  it("turns label transitions into ADDED/DELETED on a selector watch", async () => {
    const rv = cluster.store.resourceVersion();
    const w = await rawWatch(`${cluster.url}/api/v1/namespaces/pages/configmaps?watch=true&resourceVersion=${rv}&labelSelector=set%3Dlow`);
    await core.patchNamespacedConfigMap(
      { namespace: "pages", name: "c", body: { metadata: { labels: { set: "low" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { namespace: "pages", name: "c", body: { metadata: { labels: { set: "high" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    await w.until((e) => e.length >= 2);
    expect(w.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels.set])).toEqual([
      ["ADDED", "c", "low"],
      ["DELETED", "c", "high"],
    ]);
    w.abort();
  });

  it("ends a watch after timeoutSeconds with a final BOOKMARK when bookmarks are allowed", async () => {
    const rv = cluster.store.resourceVersion();
    const w = await rawWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1&allowWatchBookmarks=true`);
    expect(w.response.headers.get("content-type")).toBe("application/json");
    await clock.advance(1_000);
    expect(await w.ended()).toBe(true);
    expect(w.events).toEqual([
      { type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: cluster.store.resourceVersion() } } },
    ]);
  });

  it("sends BOOKMARKs on demand only to watches that allow them", async () => {
    const rv = cluster.store.resourceVersion();
    const withBookmarks = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const without = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${rv}`);
    await cluster.waitForWatches("pods", 2);
    cluster.sendBookmarks();
    await cluster.script.createPod({ name: "marker", image: "busybox:1.36" });
    await without.until((e) => e.some((x) => x.object.metadata.name === "marker"));
    await withBookmarks.until((e) => e.some((x) => x.object.metadata?.name === "marker"));
    expect(withBookmarks.events[0]!.type).toBe("BOOKMARK");
    expect(without.events.some((e) => e.type === "BOOKMARK")).toBe(false);
    withBookmarks.abort();
    without.abort();
  });

  it("keeps status on a main-resource PUT and updates it via the status subresource", async () => {
    await cluster.script.createPod({ name: "stat", image: "busybox:1.36" });
    const pod = await core.readNamespacedPod({ namespace: "default", name: "stat" });
    pod.metadata!.labels = { changed: "yes" };
    pod.status = { phase: "Failed" };
    const updated = await core.replaceNamespacedPod({ namespace: "default", name: "stat", body: pod });
    expect(updated.status?.phase).toBe("Running");
    expect(updated.metadata?.labels).toEqual({ changed: "yes" });
    updated.status = { ...updated.status, message: "hello" };
    const viaStatus = await core.replaceNamespacedPodStatus({ namespace: "default", name: "stat", body: updated });
    expect(viaStatus.status?.message).toBe("hello");
  });

  it("applies JSON patches and answers 422 when a test op fails", async () => {
    // `data: {}` is not stored (omitempty, as the API server), so the patch adds the whole map.
    await core.patchNamespacedConfigMap(
      { namespace: "pages", name: "a", body: [{ op: "add", path: "/data", value: { k: "v" } }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    expect(cluster.store.get("configmaps", "pages", "a")!.data).toEqual({ k: "v" });
    const failed = await fetch(`${cluster.url}/api/v1/namespaces/pages/configmaps/a`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json-patch+json" },
      body: JSON.stringify([{ op: "test", path: "/data/k", value: "other" }]),
    });
    expect(failed.status).toBe(422);
  });

  it("deletes a collection by label selector and returns Status bodies for unknown paths", async () => {
    await core.deleteCollectionNamespacedConfigMap({ namespace: "pages", labelSelector: "set=high" });
    // c, d, e carry set=high (c was relabelled above).
    expect(cluster.store.list("configmaps", { namespace: "pages" }).map((c) => c.metadata.name)).toEqual(["a", "b", "kube-root-ca.crt"]);
    const missing = await fetch(`${cluster.url}/apis/apps/v1/widgets`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: "Status", code: 404 });
  });

  it("serves discovery and a kubeconfig with insecure-skip-tls-verify", async () => {
    const resources = (await (await fetch(`${cluster.url}/apis/apps/v1`)).json()) as { resources: { name: string }[] };
    expect(resources.resources.map((r) => r.name)).toContain("deployments");
    expect(cluster.kubeconfigObject.clusters[0]!.cluster["insecure-skip-tls-verify"]).toBe(true);
    expect(kubeConfigFor(cluster).getCurrentCluster()?.server).toBe(cluster.url);
  });
});
