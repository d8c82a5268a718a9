// When a watch must relist: the API server's "Too large resource version" answer, resourceVersions going back, and
// a watch that hears nothing at all (the server's history restarted below the resourceVersion we hold), the last on
// a virtual clock: the reflectors read time and wait only through the injected clock, so the idle watchdog that ends
// the silent watch fires when the test moves time, not after real seconds.
import { KubeConfig } from "@kubernetes/client-node";
import { ClusterInformers, isTooLargeResourceVersion, resourceVersionWentBack, type RestartReason } from "@shiplog/controller/internal";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WAIT } from "../../../test/kit/wait.js";
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
      watchIdleTimeoutMs: 60_000,
      requestTimeoutMs: 5_000,
      restartMinDelayMs: 50,
      restartMaxDelayMs: 400,
      logger: pino({ level: "silent" }),
      clock,
      onRestart: (_kind, reason) => restarts.push(reason),
    });
    cleanup = async () => {
      await informers.stop();
      await cluster.stop();
    };
    informers.start();
    // Real I/O only: the lists answer.
    await vi.waitFor(() => expect(informers.synced).toBe(true), WAIT);

    // As a real API server does, the fake sends nothing to a watch at a version it has not reached.
    cluster.faults.restartHistory();
    await cluster.script.delete("deployments", "shop", "cart");
    await cluster.script.createDeployment(deployment("search"));
    expect(informers.object("Deployment", "shop", "search")).toBeUndefined();
    expect(restarts).not.toContain("relist");

    // Each try moves virtual time past the watchdog: the watch reopened after the server ended it hears nothing, is
    // given up as idle, and the reflector relists (the I/O of the reopen and the list is real, and quick).
    await vi.waitFor(async () => {
      await clock.advance(61_000);
      expect(informers.object("Deployment", "shop", "search")).toBeDefined();
      expect(informers.object("Deployment", "shop", "cart")).toBeUndefined();
    }, WAIT);
    expect(restarts).toContain("relist");
    expect(informers.object("Deployment", "shop", "web")).toBeDefined();
  });
});
