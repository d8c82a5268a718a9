import { AppsV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, metricValue, recordOf, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("controller scenarios: faults", () => {
  it("the service failing 30% of calls (and then all of them for a while): nothing is dropped", async () => {
    // Seeded faults: each call draws twice (503 at 20%, dropped connection at 10%); with seed 13 every prefix of
    // six or more calls has at least 29% failures, so the phase below is deterministic in what it exercises.
    h = await startHarness({ flags: ["--batch-size", "3"], faultSeed: 13 });
    await h.cluster.script.createDeployments(
      Array.from({ length: 6 }, (_, i) => ({ namespace: "shop", name: `svc-${i}`, image: `ghcr.io/acme/svc-${i}:1.0`, annotations: REPO })),
    );
    await converged(h);

    const seen = h.emulator.requests.count({ method: "POST", route: CLUSTER_ROUTE });
    const status503 = h.emulator.faults.add({ method: "POST", route: CLUSTER_ROUTE, rate: 0.2, kind: "status", status: 503 });
    const drops = h.emulator.faults.add({ method: "POST", route: CLUSTER_ROUTE, rate: 0.1, kind: "drop" });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6; i += 2) await h.cluster.script.setImage("shop", `svc-${i}`, `ghcr.io/acme/svc-${i}:1.${round + 1}`);
      await h.cluster.script.scale("deployments", "shop", `svc-${round * 2 + 1}`, round % 2);
      // Converged while the faults are still on: every change got through despite them.
      await converged(h);
    }
    const phase = h.emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).slice(seen);
    const failures = phase.filter((r) => r.status === 0 || r.status >= 500);
    expect(phase.length).toBeGreaterThanOrEqual(6);
    expect(failures.length / phase.length).toBeGreaterThanOrEqual(0.25);
    expect(recordOf(h.emulator, "shop-svc-2-svc-2")!.version).toBe("1.3");
    expect(recordOf(h.emulator, "shop-svc-1-svc-1")!.status).toBe("decommissioned");

    // A full outage: changes pile up as pending, and are retried with backoff.
    h.emulator.faults.remove(status503);
    h.emulator.faults.remove(drops);
    const outage = h.emulator.faults.add({ method: "POST", route: CLUSTER_ROUTE, kind: "status", status: 503 });
    await h.cluster.script.delete("deployments", "shop", "svc-0");
    await vi.waitFor(() => expect(h!.controller.status().consecutiveFailures).toBeGreaterThan(0), WAIT);
    expect(h.controller.status().pending).toBeGreaterThan(0);
    h.emulator.faults.remove(outage);
    await converged(h);
    h.emulator.faults.clear();

    expect(recordOf(h.emulator, "shop-svc-0-svc-0")!.status).toBe("decommissioned");
    await vi.waitFor(() => expect(h!.controller.status().pending).toBe(0), WAIT);
  });

  it("a watch cut mid-stream: watches reopen and nothing is missed", async () => {
    h = await startHarness();
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await converged(h);
    const watchesBefore = h.cluster.stats().watches.pods ?? 0;
    expect(h.cluster.faults.cutWatches({ mode: "destroy" })).toBeGreaterThan(0);
    await h.cluster.script.setImage("shop", "web", "nginx:1.26");
    await h.cluster.script.createDeployment({ namespace: "shop", name: "api", image: "redis:7", annotations: REPO });
    await converged(h);
    expect(recordOf(h.emulator, "shop-web-nginx")!.version).toBe("1.26");
    expect(h.cluster.stats().watches.pods ?? 0).toBeGreaterThan(watchesBefore);
  });

  it("a hung watch is abandoned by the watchdog and reopened", async () => {
    h = await startHarness({ flags: ["--watch-idle-timeout", "500ms"] });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await converged(h);
    const watchesBefore = h.cluster.stats().watches.pods ?? 0;
    h.cluster.faults.hangWatches({ resource: "pods" });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "late", image: "redis:7", annotations: REPO });
    // The server never closes the silent stream: only the controller's watchdog can open a new one.
    await vi.waitFor(() => expect(h!.cluster.stats().watches.pods ?? 0).toBeGreaterThan(watchesBefore), WAIT);
    expect(await metricValue(h, "shiplog_controller_watch_restarts_total", { kind: "Pod", reason: "idle" })).toBeGreaterThan(0);
    h.cluster.faults.releaseWatches();
    await converged(h);
    expect(recordOf(h.emulator, "shop-late-redis")!.status).toBe("deployed");
  });

  it.each(["event", "http"] as const)("the API server down, history compacted (410 as %s): relist, deletions seen", async (mode) => {
    h = await startHarness();
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "old", image: "redis:7", annotations: REPO });
    await converged(h);
    const listsBefore = h.cluster.stats().lists.pods ?? 0;
    h.cluster.faults.expiredResponse(mode);
    await h.cluster.faults.refuseConnections();
    // While the controller cannot see anything: a deletion, a rollout, a new workload; then history is lost.
    await h.cluster.script.delete("deployments", "shop", "old");
    await h.cluster.script.setImage("shop", "web", "nginx:1.26");
    await h.cluster.script.createDeployment({ namespace: "shop", name: "new", image: "httpd:2.4", annotations: REPO });
    h.cluster.faults.compactHistory();
    await h.cluster.faults.acceptConnections();
    await converged(h);
    expect(recordOf(h.emulator, "shop-old-redis")!.status).toBe("decommissioned");
    expect(recordOf(h.emulator, "shop-web-nginx")!.version).toBe("1.26");
    expect(h.cluster.stats().lists.pods ?? 0).toBeGreaterThan(listsBefore);
  });

  it("list failures at start are retried until the caches sync", async () => {
    h = await startHarness({
      beforeStart: async (cluster) => {
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        cluster.faults.failLists(3, { resource: "pods", code: 500 });
      },
    });
    await converged(h);
    expect(await metricValue(h, "shiplog_controller_watch_restarts_total", { kind: "Pod", reason: "error" })).toBeGreaterThanOrEqual(3);
  });

  it("an entry the service refuses (repository outside the organization) is logged, not resent until it changes, then sent", async () => {
    // A refused entry waits from --retry-max-delay before it goes again unchanged: longer than this test.
    h = await startHarness({ flags: ["--retry-max-delay", "30s"] });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
    await h.cluster.script.createDeployment({
      namespace: "shop",
      name: "stray",
      image: "redis:7",
      annotations: { "shiplog.dev/repository": "no-such-repo" },
    });
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-web-nginx")?.status).toBe("deployed"), WAIT);
    await vi.waitFor(async () => expect(await metricValue(h!, "shiplog_controller_records_rejected_total")).toBe(1), WAIT);
    expect(recordOf(h.emulator, "shop-stray-redis")).toBeUndefined();
    // The one call carried both entries: partial success, the refused one listed in errors[].
    expect(h.emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).map((r) => r.status)).toEqual([207]);

    // Later flushes, with other changes, do not send it again.
    await h.cluster.script.createDeployment({ namespace: "shop", name: "api", image: "httpd:2.4", annotations: REPO });
    await vi.waitFor(() => expect(recordOf(h!.emulator, "shop-api-httpd")?.status).toBe("deployed"), WAIT);
    expect((await h.controller.flush()).pending).toBe(0);
    expect(h.controller.status().pending).toBe(0);
    expect(await metricValue(h, "shiplog_controller_records_rejected_total")).toBe(1);
    expect(h.emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).map((r) => r.status)).toEqual([207, 200]);

    // The annotation fixed: the entry changed, so it goes again, and is accepted.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(h.cluster.kubeconfig);
    const apps = kubeConfig.makeApiClient(AppsV1Api);
    const stray = await apps.readNamespacedDeployment({ name: "stray", namespace: "shop" });
    stray.metadata!.annotations = { ...stray.metadata!.annotations, "shiplog.dev/repository": "web" };
    await apps.replaceNamespacedDeployment({ name: "stray", namespace: "shop", body: stray });
    await converged(h);
    expect(recordOf(h.emulator, "shop-stray-redis")).toMatchObject({ status: "deployed", repository: "web" });
    expect(await metricValue(h, "shiplog_controller_records_rejected_total")).toBe(1);
  });
});
