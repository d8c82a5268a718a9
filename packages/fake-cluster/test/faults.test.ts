import { ApiException, CoreV1Api, makeInformer } from "@kubernetes/client-node";
import type { V1Pod } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countingWaits } from "../../../test/kit/counted-clock.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { kubeConfigFor, rawWatch } from "./kube-clients.js";

describe("fault hooks", () => {
  let clock: VirtualClock;
  let counted: ReturnType<typeof countingWaits>;
  let cluster: FakeCluster;
  beforeEach(async () => {
    // The cluster's timers (watch timeouts, a list's wait, reopening) run on a virtual clock the tests move.
    clock = new VirtualClock();
    counted = countingWaits(clock);
    cluster = await startFakeCluster({ nodes: ["node-1"], clock: counted.clock });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  it("cutWatches destroys streams mid-stream: the client-node informer reports an error", async () => {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1Pod>(kc, "/api/v1/pods", () => core.listPodForAllNamespaces());
    const errored = new Promise<unknown>((resolve) => informer.on("error", resolve));
    await informer.start();
    await cluster.waitForWatches("pods");
    expect(cluster.faults.cutWatches({ resource: "pods" })).toBe(1);
    expect(await errored).toBeDefined();
    expect(cluster.watches("pods")).toBe(0);
  });

  it("refuseConnections closes the listener and drops connections; acceptConnections reopens the same port", async () => {
    const watch = await rawWatch(`${cluster.url}/api/v1/pods?watch=true`);
    await cluster.waitForWatches("pods");
    await cluster.faults.refuseConnections();
    expect(await watch.ended()).toBe(true);
    await expect(fetch(`${cluster.url}/api/v1/pods`)).rejects.toThrow();
    await cluster.faults.acceptConnections();
    expect((await fetch(`${cluster.url}/api/v1/pods`)).status).toBe(200);
  });

  it("refuseConnections({ forMs }) reopens by itself, on the cluster's clock", async () => {
    await cluster.faults.refuseConnections({ forMs: 50 });
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
    await clock.advance(50);
    expect((await fetch(`${cluster.url}/version`)).status).toBe(200);
  });

  it("failLists makes the next N lists fail with a 500 Status, then lists work again", async () => {
    const core = kubeConfigFor(cluster).makeApiClient(CoreV1Api);
    cluster.faults.failLists(2, { resource: "pods" });
    for (let i = 0; i < 2; i++) {
      const err = await core.listPodForAllNamespaces().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiException);
      expect((err as ApiException<string>).code).toBe(500);
      expect(JSON.parse((err as ApiException<string>).body)).toMatchObject({ kind: "Status", reason: "InternalError", code: 500 });
    }
    expect((await core.listNamespace()).items.length).toBeGreaterThan(0);
    expect((await core.listPodForAllNamespaces()).items).toEqual([]);
  });

  it("failWatches answers the next watch with an HTTP error", async () => {
    cluster.faults.failWatches(1, { code: 503 });
    const first = await fetch(`${cluster.url}/api/v1/pods?watch=true`);
    expect(first.status).toBe(503);
    expect(((await first.json()) as { reason: string }).reason).toBe("ServiceUnavailable");
    const second = await rawWatch(`${cluster.url}/api/v1/pods?watch=true`);
    expect(second.response.status).toBe(200);
    second.abort();
  });

  it("hangWatches: headers arrive, events do not; releaseWatches ends the stream", async () => {
    cluster.faults.hangWatches({ resource: "pods" });
    const rv = cluster.store.resourceVersion();
    const watch = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    expect(watch.response.status).toBe(200);
    await cluster.script.createPod({ name: "unseen", image: "busybox:1.36" });
    // A sentinel on another resource proves events are flowing elsewhere meanwhile.
    const other = await rawWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    await cluster.script.create("configmaps", { metadata: { name: "sentinel", namespace: "default" } });
    await other.until((e) => e.some((x) => x.object.metadata.name === "sentinel"));
    expect(watch.events).toEqual([]);
    expect(watch.isEnded()).toBe(false);
    cluster.faults.releaseWatches();
    expect(await watch.ended()).toBe(true);
    expect(watch.events).toEqual([]);
    other.abort();
  });

  it("compactHistory: a watch from an old resourceVersion gets 200 + ERROR 410 Expired, or HTTP 410 when selected", async () => {
    const old = cluster.store.resourceVersion();
    await cluster.script.createPod({ name: "p", image: "busybox:1.36" });
    const replay = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${old}`);
    await replay.until((e) => e.some((x) => x.type === "MODIFIED" && x.object.status?.phase === "Running"));
    replay.abort();

    cluster.faults.compactHistory();
    const expired = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${old}`);
    expect(expired.response.status).toBe(200);
    await expired.ended();
    expect(expired.events).toEqual([{ type: "ERROR", object: expect.objectContaining({ kind: "Status", code: 410, reason: "Expired" }) }]);

    cluster.faults.expiredResponse("http");
    const http = await fetch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${old}`);
    expect(http.status).toBe(410);
    expect(await http.json()).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });

    // The current resourceVersion is still fine.
    const fresh = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${cluster.store.resourceVersion()}`);
    expect(fresh.response.status).toBe(200);
    fresh.abort();
  });

  it("a watch ahead of the server is answered 200 and stays silent (no ERROR, no BOOKMARK) until its timeoutSeconds, as v1.37's", async () => {
    const current = Number(cluster.store.resourceVersion());
    const ahead = await rawWatch(
      `${cluster.url}/api/v1/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${current + 1000}`,
    );
    // A watch at a version the store reaches while it waits is served as usual, from that version on.
    const soon = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${current + 1}`);
    await cluster.script.createPod({ name: "p", image: "busybox:1.36" });
    await soon.until((e) => e.some((x) => x.type === "MODIFIED"));
    soon.abort();
    expect(soon.events[0]?.type).toBe("MODIFIED");
    expect(ahead.response.status).toBe(200);
    await clock.advance(1_000);
    expect(await ahead.ended()).toBe(true);
    expect(ahead.events).toEqual([]);
  });

  it('a list ahead of the server waits, then gets 504 Timeout "Too large resource version"', async () => {
    const current = Number(cluster.store.resourceVersion());
    // The server's wait starts once the request has arrived: the clock moves after it, not before.
    const started = counted.waits.reached(counted.waits.count + 1);
    const answering = fetch(`${cluster.url}/api/v1/pods?resourceVersion=${current + 1000}`);
    await started;
    await clock.advance(3_000);
    const answer = await answering;
    expect(answer.status).toBe(504);
    expect(await answer.json()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Timeout: Too large resource version: ${current + 1000}, current: ${current}`,
      reason: "Timeout",
      details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
      code: 504,
    });
  });

  it("restartHistory: resourceVersions restart lower, open watches end, and a watch resumed at an old one waits in silence", async () => {
    await cluster.script.createPod({ name: "p", image: "busybox:1.36" });
    const before = cluster.store.resourceVersion();
    const open = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${before}`);
    const restarted = cluster.faults.restartHistory(5);
    expect(restarted).toBe(5);
    expect(await open.ended()).toBe(true);
    expect(cluster.store.resourceVersion()).toBe("5");
    const list = (await (await fetch(`${cluster.url}/api/v1/pods`)).json()) as {
      metadata: { resourceVersion: string };
      items: { metadata: { resourceVersion: string } }[];
    };
    expect(list.metadata.resourceVersion).toBe("5");
    expect(list.items.map((p) => p.metadata.resourceVersion)).toEqual(["5"]);
    const resumed = await rawWatch(`${cluster.url}/api/v1/pods?watch=true&timeoutSeconds=1&resourceVersion=${before}`);
    // A change after the restart has a resourceVersion below the one asked for: the watch does not see it.
    await cluster.script.createPod({ name: "q", image: "busybox:1.36" });
    await clock.advance(1_000);
    expect(await resumed.ended()).toBe(true);
    expect(resumed.events).toEqual([]);
  });

  it("reset clears faults", async () => {
    cluster.faults.failLists(5);
    await cluster.faults.reset();
    expect((await fetch(`${cluster.url}/api/v1/pods`)).status).toBe(200);
  });
});
