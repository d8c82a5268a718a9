// Large answers over real HTTP: a list bigger than one chunk goes out chunked and whole; a watch whose client stops
// reading is paced by the socket and later sends every event in order; one that falls behind the kept history is
// ended, and the client's re-watch from its last resourceVersion gets 410.
import { once } from "node:events";
import http from "node:http";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, describe, expect, it } from "vitest";
import { rawWatch, type WatchLine } from "./kube-clients.js";

const payload = "x".repeat(10_000);

/** A watch read by hand: paused until `resume()`, lines collected, `ended` once the server ends the stream. */
async function pausedWatch(url: string) {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(url, resolve).on("error", reject));
  res.pause();
  const lines: WatchLine[] = [];
  let buffer = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as WatchLine);
      buffer = buffer.slice(nl + 1);
    }
    res.emit("lines");
  });
  const ended = once(res, "end");
  /** Resolves once `count` lines have arrived. */
  const until = async (count: number) => {
    while (lines.length < count) await once(res, "lines");
  };
  return { lines, until, resume: () => res.resume(), ended, destroy: () => res.destroy() };
}

async function createConfigMaps(cluster: FakeCluster, count: number): Promise<void> {
  await cluster.script.ensureNamespace("big");
  for (let i = 0; i < count; i++) {
    const metadata = { name: `cm-${String(i).padStart(5, "0")}`, namespace: "big" };
    await cluster.script.create("configmaps", { metadata, data: { payload } }, { wait: false });
  }
}

describe("streamed lists and watches", () => {
  let cluster: FakeCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it("a list larger than one chunk is sent chunked, every item in key order", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    await createConfigMaps(cluster, 300);
    const response = await fetch(`${cluster.url}/api/v1/namespaces/big/configmaps`);
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    type List = { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    const list = (await response.json()) as List;
    expect(list.kind).toBe("ConfigMapList");
    expect(list.metadata.resourceVersion).toBe(cluster.store.resourceVersion());
    const cms = Array.from({ length: 300 }, (_, i) => `cm-${String(i).padStart(5, "0")}`);
    // The namespace's kube-root-ca.crt, after them in key order.
    expect(list.items.map((i) => i.metadata.name)).toEqual([...cms, "kube-root-ca.crt"]);
  });

  it("a watch whose client stops reading sends every event, in order, once it reads again", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    const from = cluster.store.resourceVersion();
    const watch = await pausedWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${from}`);
    // About 20 MB of events: more than the socket buffers and the watcher's own 1 MB allowance hold.
    await createConfigMaps(cluster, 2000);
    watch.resume();
    const check = await rawWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${from}`);
    // Every event: the new namespace's kube-root-ca.crt, then the 2,000 ConfigMaps.
    await check.until((events) => events.length === 2001);
    check.abort();
    await watch.until(2001);
    expect(watch.lines.map((l) => l.object.metadata.name)).toEqual(check.events.map((e) => e.object.metadata.name));
    expect(watch.lines.every((l) => l.type === "ADDED")).toBe(true);
    const rvs = watch.lines.map((l) => Number(l.object.metadata.resourceVersion));
    expect(rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]!)).toBe(true);
    watch.destroy();
  });

  it("a watcher left behind the kept history is ended; the re-watch from its last resourceVersion gets 410", async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"], historyLimit: 500 });
    const from = cluster.store.resourceVersion();
    const watch = await pausedWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${from}`);
    await createConfigMaps(cluster, 3000);
    watch.resume();
    await watch.ended;
    expect(watch.lines.length).toBeGreaterThan(0);
    expect(watch.lines.length).toBeLessThan(3000);
    // The new namespace's kube-root-ca.crt comes first, then the ConfigMaps in the order they were made.
    const [rootCa, ...names] = watch.lines.map((l) => l.object.metadata.name);
    expect(rootCa).toBe("kube-root-ca.crt");
    expect(names).toEqual(names.map((_, i) => `cm-${String(i).padStart(5, "0")}`));
    const last = watch.lines.at(-1)!.object.metadata.resourceVersion;
    const again = await rawWatch(`${cluster.url}/api/v1/configmaps?watch=true&resourceVersion=${last}`);
    await again.ended();
    expect(again.events).toEqual([{ type: "ERROR", object: expect.objectContaining({ kind: "Status", code: 410, reason: "Expired" }) }]);
  });
});
