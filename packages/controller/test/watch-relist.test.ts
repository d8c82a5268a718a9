// When a watch must relist: the API server's "Too large resource version" answer, resourceVersions going back, and
// a watch that hears nothing at all (the server's history restarted below the resourceVersion we hold), the last on
// a virtual clock: the reflectors read time and wait only through the injected clock, so the idle watchdog that ends
// the silent watch fires when the test moves time, not after real seconds.
import { KubeConfig } from "@kubernetes/client-node";
import { ClusterInformers, isTooLargeResourceVersion, resourceVersionWentBack, type RestartReason } from "@shiplog/controller/internal";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CountedClock } from "../../../test/kit/counted-clock.js";
import { Changes } from "../../../test/kit/events.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("watch relist decisions", () => {
  it("recognises the API server's Too large resource version Status, with or without the cause", () => {
    const status = {
      kind: "Status",
      status: "Failure",
      message: "Timeout: Too large resource version: 9000, current: 120",
      reason: "Timeout",
      details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
      code: 504,
    };
    expect(isTooLargeResourceVersion(status)).toBe(true);
    // Servers before 1.18.6 set no cause: the message says it.
    expect(isTooLargeResourceVersion({ ...status, details: {} })).toBe(true);
    expect(isTooLargeResourceVersion({ ...status, message: "Timeout: request did not complete within 60s", details: {} })).toBe(false);
    expect(isTooLargeResourceVersion({ code: 410, reason: "Expired", message: "too old resource version" })).toBe(false);
    expect(isTooLargeResourceVersion(undefined)).toBe(false);
  });

  it("a lower numeric resourceVersion went back; opaque or missing ones are never compared", () => {
    expect(resourceVersionWentBack("1200", "130")).toBe(true);
    expect(resourceVersionWentBack("130", "1200")).toBe(false);
    expect(resourceVersionWentBack("99999999999999999999", "100000000000000000000")).toBe(false);
    expect(resourceVersionWentBack("1200", "1200")).toBe(false);
    expect(resourceVersionWentBack(undefined, "5")).toBe(false);
    expect(resourceVersionWentBack("abc", "5")).toBe(false);
  });
});

describe("a silent watch (virtual clock)", () => {
  it("the server's history restarts lower and the watch hears nothing, not even a bookmark: its idle watchdog ends it, it relists, the cache converges", async () => {
    const cluster: FakeCluster = await startFakeCluster({});
    const clock = new VirtualClock();
    // Distinct durations, so the timers pending say what each reflector waits for: a watch answered (its idle
    // watchdog armed), a request not answered yet (its timeout), or neither (asleep before trying again).
    const IDLE_MS = 60_000;
    const REQUEST_MS = 5_000;
    const changes = new Changes();
    const counted = new CountedClock(clock, () => changes.changed());
    const restarts: RestartReason[] = [];
    const deployment = (name: string) => ({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0` });
    await cluster.script.createDeployments(["web", "api", "cart"].map(deployment));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    const informers = new ClusterInformers({
      kubeConfig,
      namespaces: ["shop"],
      // The server never ends the watch on its own here: only the watchdog, on the virtual clock, can.
      watchTimeoutSeconds: 3600,
      watchIdleTimeoutMs: IDLE_MS,
      requestTimeoutMs: REQUEST_MS,
      restartMinDelayMs: 50,
      restartMaxDelayMs: 400,
      logger: pino({ level: "silent" }),
      clock: counted,
      onChange: () => changes.changed(),
      onRestart: (_kind, reason) => restarts.push(reason),
    });
    cleanup = async () => {
      await informers.stop();
      await cluster.stop();
    };
    informers.start();
    // Real I/O only, time standing still: the lists answer, then every reflector's watch is answered and quiet.
    await informers.waitForSync();
    const reflectors = informers.status().length;
    const watching = () => counted.pending(IDLE_MS) === reflectors && counted.pending(REQUEST_MS) === 0;
    await changes.until(watching);

    // As a real API server does, the fake sends nothing to a watch at a version it has not reached.
    cluster.faults.restartHistory();
    await cluster.script.delete("deployments", "shop", "cart");
    await cluster.script.createDeployment(deployment("search"));
    // The server ended every watch: each reflector sleeps before watching again (a watch that closed at once).
    await changes.until(() => counted.pending(IDLE_MS) === 0 && counted.pending(REQUEST_MS) === 0);
    expect(informers.object("Deployment", "shop", "search")).toBeUndefined();
    expect(restarts).not.toContain("relist");

    // Past the sleeps (at most 400 ms): the watches reopen at the resourceVersion held, which the server has not
    // reached. They are answered and hear nothing; time moves past the watchdog only once all of them wait on it,
    // so it gives them up as idle, and the reflectors relist (each list's timeout lies beyond the time moved).
    await clock.advance(1_000);
    await changes.until(watching);
    expect(informers.object("Deployment", "shop", "search")).toBeUndefined();
    await clock.advance(IDLE_MS + 1_000);
    await changes.until(
      () => informers.object("Deployment", "shop", "search") !== undefined && informers.object("Deployment", "shop", "cart") === undefined,
    );
    expect(restarts).toContain("relist");
    expect(informers.object("Deployment", "shop", "web")).toBeDefined();
  });
});
