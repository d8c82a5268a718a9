// The fake cluster on an injected clock (startFakeCluster({ clock })): its timestamps, a Table's ages, a watch's
// timeoutSeconds and BOOKMARKs, a list's wait for a future resourceVersion and the connection gate's reopening all
// follow the test's virtual clock, seen through the fake's HTTP API. Nothing here waits in real time: the clock moves
// only when a test moves it, and every wait is on an event (a watch line, an HTTP answer).
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countingWaits } from "../../../test/kit/counted-clock.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { rawWatch } from "./kube-clients.js";

const START = Date.parse("2026-01-01T00:00:00Z");
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[] }[];
}

describe("the fake cluster on an injected clock", () => {
  let clock: VirtualClock;
  let counted: ReturnType<typeof countingWaits>;
  let cluster: FakeCluster;
  beforeEach(async () => {
    clock = new VirtualClock(START);
    counted = countingWaits(clock);
    cluster = await startFakeCluster({ nodes: ["node-1"], clock: counted.clock });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  const configMaps = () => `${cluster.url}/api/v1/namespaces/default/configmaps`;

  async function createConfigMap(name: string): Promise<{ metadata: { creationTimestamp: string; managedFields: { time: string }[] } }> {
    const res = await fetch(`${configMaps()}?fieldManager=clock-test`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } }),
    });
    expect(res.status).toBe(201);
    return res.json() as Promise<{ metadata: { creationTimestamp: string; managedFields: { time: string }[] } }>;
  }

  /** The Age cell of each row of a Table, by the column's name. */
  function ages(table: Table): unknown[] {
    const column = table.columnDefinitions.findIndex((c) => c.name === "Age");
    expect(column).toBeGreaterThanOrEqual(0);
    return table.rows.map((r) => r.cells[column]);
  }

  it("stamps creationTimestamp and managedFields with the clock's time, to the second", async () => {
    expect((await createConfigMap("first")).metadata).toMatchObject({
      creationTimestamp: "2026-01-01T00:00:00Z",
      managedFields: [{ time: "2026-01-01T00:00:00Z" }],
    });
    await clock.advance(90_500);
    expect((await createConfigMap("second")).metadata).toMatchObject({
      creationTimestamp: "2026-01-01T00:01:30Z",
      managedFields: [{ time: "2026-01-01T00:01:30Z" }],
    });
    // The namespaces made at start carry the clock's start too.
    expect(cluster.store.get("namespaces", undefined, "default")!.metadata.creationTimestamp).toBe("2026-01-01T00:00:00Z");
  });

  it("dates a Table's Age on the clock: a list, one object, and a watch's rows", async () => {
    await createConfigMap("aged");
    const rv = cluster.store.resourceVersion();
    await clock.advance(90_000);
    const list = (await (
      await fetch(`${configMaps()}?fieldSelector=metadata.name%3Daged`, { headers: { Accept: TABLE } })
    ).json()) as Table;
    expect(list.kind).toBe("Table");
    expect(ages(list)).toEqual(["90s"]);

    await clock.advance(3 * 24 * 3600_000 - 90_000);
    const one = (await (await fetch(`${configMaps()}/aged`, { headers: { Accept: TABLE } })).json()) as Table;
    expect(ages(one)).toEqual(["3d"]);

    // A watch of Tables (kubectl get -w) from before the object: its ADDED row is dated now, on the clock.
    const watch = await rawWatch(`${configMaps()}?watch=true&resourceVersion=${Number(rv) - 1}`, { Accept: TABLE });
    const [added] = await watch.until((events) => events.length > 0);
    expect(ages(added!.object as unknown as Table)).toEqual(["3d"]);
    watch.abort();
  });

  it("ends a watch with timeoutSeconds=300 when the clock has moved 300 s, and not before", async () => {
    const watch = await rawWatch(`${configMaps()}?watch=true&timeoutSeconds=300&resourceVersion=${cluster.store.resourceVersion()}`);
    await cluster.waitForWatches("configmaps");
    await clock.advance(299_999);
    // The stream still carries events at 299.999 s: had it ended, this one would never be written.
    await cluster.script.create("configmaps", { metadata: { name: "late", namespace: "default" }, data: {} });
    await watch.until((events) => events.some((e) => e.type === "ADDED" && e.object.metadata.name === "late"));
    expect(watch.isEnded()).toBe(false);
    await clock.advance(1);
    expect(await watch.ended()).toBe(true);
    expect(cluster.watches("configmaps")).toBe(0);
  });

  it("sends BOOKMARKs every bookmarkIntervalMs of the clock, and one at the deadline", async () => {
    const rv = cluster.store.resourceVersion();
    const watch = await rawWatch(`${configMaps()}?watch=true&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion=${rv}`);
    await cluster.waitForWatches("configmaps");
    await clock.advance(59_999);
    // Nothing yet: an object created now arrives with no BOOKMARK before it (the stream is in order).
    await cluster.script.create("configmaps", { metadata: { name: "marker", namespace: "default" }, data: {} });
    await watch.until((events) => events.some((e) => e.type === "ADDED"));
    expect(watch.events.map((e) => e.type)).toEqual(["ADDED"]);
    await clock.advance(1);
    await watch.until((events) => events.some((e) => e.type === "BOOKMARK"));
    await clock.advance(60_000);
    await watch.until((events) => events.filter((e) => e.type === "BOOKMARK").length === 2);
    await clock.advance(30_000);
    expect(await watch.ended()).toBe(true);
    expect(watch.events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK", "BOOKMARK", "BOOKMARK"]);
    expect(watch.events.at(-1)!.object.metadata.resourceVersion).toBe(cluster.store.resourceVersion());
  });

  it("answers a list at a future resourceVersion 504 after 3 s of the clock, 200 if the store gets there sooner", async () => {
    const ahead = Number(cluster.store.resourceVersion()) + 1;
    // The server's wait starts once the request has arrived: the clock moves after it, not before.
    let started = counted.waits.reached(counted.waits.count + 1);
    const reached = fetch(`${configMaps()}?resourceVersion=${ahead}&resourceVersionMatch=NotOlderThan`);
    await started;
    await clock.advance(2_999);
    // Still waiting at 2.999 s: the write that reaches the resourceVersion gets it a 200, not the 504.
    await cluster.script.create("configmaps", { metadata: { name: "arrives", namespace: "default" }, data: {} });
    expect((await reached).status).toBe(200);

    started = counted.waits.reached(counted.waits.count + 1);
    const never = fetch(`${configMaps()}?resourceVersion=${ahead + 10}&resourceVersionMatch=NotOlderThan`);
    await started;
    await clock.advance(3_000);
    const answer = await never;
    expect(answer.status).toBe(504);
    expect(await answer.json()).toMatchObject({ reason: "Timeout", details: { retryAfterSeconds: 1 } });
  });

  it("reopens refused connections when the clock has moved forMs, and not before", async () => {
    await cluster.faults.refuseConnections({ forMs: 5_000 });
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
    await clock.advance(4_999);
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
    await clock.advance(1);
    expect((await fetch(`${cluster.url}/version`)).status).toBe(200);
  });

  it("names a CronJob's Job and its scheduled time after the clock's minute", async () => {
    await cluster.script.createCronJob({ namespace: "default", name: "nightly", schedule: "0 3 * * *", image: "busybox:1.36" });
    await clock.advance(3 * 3600_000 + 30_000);
    const job = await cluster.script.triggerCronJob("default", "nightly");
    const minute = (START + 3 * 3600_000) / 60_000;
    expect(job.metadata.name).toBe(`nightly-${minute}`);
    expect(job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toBe("2026-01-01T03:00:00Z");
    expect(cluster.store.get("cronjobs", "default", "nightly")!.status?.lastScheduleTime).toBe("2026-01-01T03:00:00Z");
  });

  it("refuses a clock that is not a TransportClock, naming the option", async () => {
    await expect(startFakeCluster({ clock: { now: () => 0 } as never })).rejects.toThrow(
      "clock: must be a TransportClock (now() and sleep(ms, signal) functions)",
    );
  });
});
