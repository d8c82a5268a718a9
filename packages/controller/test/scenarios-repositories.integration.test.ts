// A first install as the README's quick start does it: no annotations on the workloads. The repository rules link
// the records (the service's own registry by default, a namespace's label, the cluster-wide mapping); a record
// nothing links is refused by the service, and the controller says which workload, which image and what to do, once.
import { Writable } from "node:stream";
import { KubeConfig } from "@kubernetes/client-node";
import { buildController, type Controller, loadConfig, startHealthServer, type HealthServer } from "@shiplog/controller";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLUSTER, ORG, recordOf } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

let stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

interface Install {
  cluster: FakeCluster;
  emulator: Emulator;
  controller: Controller;
  health: HealthServer;
  /** The controller's log lines so far. */
  logs(): { level: number; msg: string; [field: string]: unknown }[];
}

/** A fake cluster, an emulator, and a controller with the settings an operator gives (fast timings besides). */
async function install(flags: string[], before: (cluster: FakeCluster) => Promise<void>): Promise<Install> {
  const cluster = await startFakeCluster({ nodes: ["node-1"] });
  stops.push(() => cluster.stop());
  const emulator = await startEmulator({ port: 0 });
  stops.push(() => emulator.stop());
  await before(cluster);
  const config = loadConfig(
    [
      ...["--api-url", emulator.url, "--org", ORG, "--cluster", CLUSTER, "--logical-environment", "production"],
      ...["--flush-window", "20ms", "--flush-max-wait", "100ms", "--retry-min-delay", "50ms", "--retry-max-delay", "400ms"],
      ...["--http-port", "off", ...flags],
    ],
    { SHIPLOG_TOKEN: emulator.tokens.admin! },
  );
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const controller = buildController(config, { kubeConfig, logger: pino({ level: "info" }, sink) });
  await controller.start();
  stops.push(() => controller.stop());
  const health = await startHealthServer(controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000 });
  stops.push(() => health.close());
  return { cluster, emulator, controller, health, logs: () => lines.map((l) => JSON.parse(l)) };
}

async function metric(i: Install, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${i.health.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("repository rules on a first install", () => {
  it("an image of the service's registry lands by default; one from elsewhere is reported once, naming the workload, the image and the fix", async () => {
    const i = await install([], async (cluster) => {
      await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0" });
      await cluster.script.createDeployment({ namespace: "shop", name: "cache", image: "redis:7", replicas: 2 });
    });
    await vi.waitFor(() => expect(recordOf(i.emulator, "shop-web-web")).toMatchObject({ status: "deployed", repository: "web" }), WAIT);
    await vi.waitFor(async () => expect(await metric(i, "shiplog_controller_unlinked_records")).toBe(1), WAIT);
    expect(recordOf(i.emulator, "shop-cache-redis")).toBeUndefined();
    expect(await metric(i, 'shiplog_controller_refused_records{reason="not_found"}')).toBe(1);
    // A later round refuses it again: still one line for the workload.
    await i.controller.flush();
    const notices = i.logs().filter((l) => l.msg === "no repository for a record");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: 40, workload: "Deployment shop/cache", image: "docker.io/library/redis" });
    expect(notices[0]!.fix).toContain("--image-repositories / SHIPLOG_IMAGE_REPOSITORIES");
    expect(notices[0]!.fix).toContain("shiplog.dev/repository");
    // Some records landed: the pod is ready (the alert, not readiness, tells of a partial refusal).
    expect((await fetch(`${i.health.url}/readyz`)).status).toBe(200);
  });

  it("a namespace's label links its workloads, also when it is set after the start; the mapping links by image name", async () => {
    const i = await install(["--image-repositories", "docker.io/library/nginx=infra"], async (cluster) => {
      await cluster.script.create("namespaces", { metadata: { name: "team", labels: { "shiplog.dev/repository": "api" } } });
      await cluster.script.createDeployment({ namespace: "team", name: "cache", image: "redis:7" });
      await cluster.script.createDeployment({ namespace: "store", name: "queue", image: "redis:7" });
      await cluster.script.createDeployment({ namespace: "store", name: "front", image: "nginx:1.25" });
    });
    await vi.waitFor(() => expect(recordOf(i.emulator, "team-cache-redis")).toMatchObject({ status: "deployed", repository: "api" }), WAIT);
    await vi.waitFor(
      () => expect(recordOf(i.emulator, "store-front-nginx")).toMatchObject({ status: "deployed", repository: "infra" }),
      WAIT,
    );
    await vi.waitFor(async () => expect(await metric(i, "shiplog_controller_unlinked_records")).toBe(1), WAIT);
    expect(recordOf(i.emulator, "store-queue-redis")).toBeUndefined();

    // The operator follows the fix: a label on the namespace. Its workloads are linked without a restart.
    const patched = await fetch(`${i.cluster.url}/api/v1/namespaces/store`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { labels: { "shiplog.dev/repository": "web" } } }),
    });
    expect(patched.status).toBe(200);
    await vi.waitFor(
      () => expect(recordOf(i.emulator, "store-queue-redis")).toMatchObject({ status: "deployed", repository: "web" }),
      WAIT,
    );
    // The namespace's label comes before the mapping.
    await vi.waitFor(() => expect(recordOf(i.emulator, "store-front-nginx")).toMatchObject({ repository: "web" }), WAIT);
    await vi.waitFor(async () => expect(await metric(i, "shiplog_controller_unlinked_records")).toBe(0), WAIT);
    expect(await metric(i, 'shiplog_controller_refused_records{reason="not_found"}')).toBeUndefined();
  });

  it("without the permission to list namespaces: said once, the other rules still link, and a permission granted later takes effect", async () => {
    const i = await install([], async (cluster) => {
      await cluster.script.create("namespaces", { metadata: { name: "team", labels: { "shiplog.dev/repository": "api" } } });
      await cluster.script.createDeployment({ namespace: "team", name: "cache", image: "redis:7" });
      await cluster.script.createDeployment({ namespace: "team", name: "web", image: "ghcr.io/acme/web:1.0" });
      cluster.faults.failLists(1_000_000, { resource: "namespaces", code: 403 });
    });
    await vi.waitFor(() => expect(recordOf(i.emulator, "team-web-web")).toMatchObject({ status: "deployed", repository: "web" }), WAIT);
    await vi.waitFor(async () => expect(await metric(i, "shiplog_controller_unlinked_records")).toBe(1), WAIT);
    expect((await fetch(`${i.health.url}/readyz`)).status).toBe(200);
    const forbidden = () => i.logs().filter((l) => l.msg.startsWith("listing namespaces is forbidden"));
    expect(forbidden()).toHaveLength(1);
    expect(forbidden()[0]).toMatchObject({ level: 50, rbac: "get, list and watch on namespaces (a ClusterRole)" });

    // The permission granted: the retried list succeeds and the namespace's label links its workload.
    await i.cluster.faults.reset();
    await vi.waitFor(() => expect(recordOf(i.emulator, "team-cache-redis")).toMatchObject({ status: "deployed", repository: "api" }), WAIT);
    expect(forbidden()).toHaveLength(1);
  });
});
