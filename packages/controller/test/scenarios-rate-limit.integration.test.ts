// The controller under a secondary rate limit that names no wait, on the client's virtual time: the batches wait
// the service's minute together, the controller stays ready and never calls it a refused token, and every record
// lands. (auth-process.integration.test.ts shows the same with Retry-After, with the controller as a process on real time.)
import { KubeConfig } from "@kubernetes/client-node";
import { staticToken, type TransportPlugin } from "@shiplog/client";
import { buildController, loadConfig, type Controller } from "@shiplog/controller";
import { createServiceClient } from "@shiplog/controller/internal";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLUSTER, ORG, REPO, converged, type Harness } from "./scenario-harness.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("a secondary rate limit without Retry-After, during a rollout", () => {
  it("pauses every batch a minute together, keeps the controller ready, and lands every record", async () => {
    const cluster = await startFakeCluster({});
    const emulator = await startEmulator({ port: 0 });
    const names = ["web", "api", "cart", "search"];
    for (const name of names)
      await cluster.script.createDeployment({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO });
    const flags = ["--api-url", emulator.url, "--org", ORG, "--cluster", CLUSTER, "--logical-environment", "production"];
    const config = loadConfig(
      [
        ...flags,
        "--flush-window",
        "20ms",
        "--flush-max-wait",
        "100ms",
        "--retry-min-delay",
        "50ms",
        "--retry-max-delay",
        "400ms",
        "--http-port",
        "off",
        "--batch-size",
        "1",
      ],
      {
        SHIPLOG_TOKEN: emulator.tokens.admin!,
      },
    );
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    const logger = pino({ level: "silent" });
    // The client's time is the one test clock, moving on by itself (a second of virtual time every 5 ms of real time)
    // so the minute the service asks for passes in a moment; an attempt's timeout, an hour of it, never fires.
    const clock = new VirtualClock();
    const stopClock = clock.autoAdvance(1000);
    // Every attempt as it leaves, on the client's (virtual) time.
    const sent: { at: number; status: number }[] = [];
    const sendLog: TransportPlugin = {
      name: "send log",
      after: (response) => void sent.push({ at: clock.now(), status: response.status }),
    };
    const api = createServiceClient({
      baseUrl: emulator.url,
      auth: staticToken(emulator.tokens.admin!),
      fence: { leading: () => true, signal: undefined },
      logger,
      clock,
      plugins: [sendLog],
      retry: { retries: 2, minDelayMs: 50, maxDelayMs: 400 },
      timeoutMs: 3_600_000,
    }).artifacts;
    const controller = buildController(config, { kubeConfig, logger, api });
    stop = async () => {
      stopClock();
      await controller.stop();
      await emulator.stop();
      await cluster.stop();
    };
    await controller.start();
    const h = { cluster, emulator } as Harness;
    await converged(h);
    // The service stores the records before it answers; the controller is ready once its first round has the answers.
    await vi.waitFor(() => expect(controller.ready).toBe(true), WAIT);

    sent.length = 0;
    emulator.faults.add({ kind: "secondary_rate_limit", route: CLUSTER_ROUTE, times: 1 });
    const readiness: boolean[] = [];
    const sampler = setInterval(() => readiness.push(controller.ready), 20);
    await Promise.all(names.map((name) => cluster.script.setImage("shop", name, `ghcr.io/acme/${name}:2.0`)));
    await converged(h);
    clearInterval(sampler);

    const limited = sent.findIndex((s) => s.status === 403);
    expect(limited).toBeGreaterThanOrEqual(0);
    // Nothing left inside the minute the service asked for; everything after it.
    expect(sent.slice(limited + 1).every((s) => s.at >= sent[limited]!.at + 60_000)).toBe(true);
    expect(sent.slice(limited + 1).length).toBeGreaterThan(0);
    expect(readiness.every(Boolean)).toBe(true);
    expect(controller.notReadyReason()).toBeUndefined();
    expect(emulator.requests.list().filter((r) => r.route === CLUSTER_ROUTE && r.status === 403)).toHaveLength(1);
  });
});

/** A fake cluster, an emulator limited to `perMinute` content calls, and controllers on one virtual clock with it. */
async function budgetScene(perMinute: number, deployments: number) {
  const cluster = await startFakeCluster({});
  const clock = new VirtualClock();
  // The emulator counts its windows on the controllers' (virtual) time; a request's arrival falls somewhere between
  // its start and its answer, as at the real service.
  const emulator = await startEmulator({ port: 0, secondaryLimits: { contentPerMinute: perMinute }, clock });
  cluster.script.ensureNamespace("shiplog");
  const names = Array.from({ length: deployments }, (_, i) => `svc-${i}`);
  await cluster.script.createDeployments(
    names.map((name) => ({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO })),
  );
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  const config = loadConfig(
    [
      ...["--api-url", emulator.url, "--org", ORG, "--cluster", CLUSTER, "--logical-environment", "production"],
      ...["--http-port", "off", "--batch-size", "1", "--write-budget-per-minute", String(perMinute)],
      ...["--state-configmap", "shiplog-state", "--pod-namespace", "shiplog"],
    ],
    { SHIPLOG_TOKEN: emulator.tokens.admin! },
  );
  const controller = () => buildController(config, { kubeConfig, logger: pino({ level: "silent" }), clock });
  const posts = () => emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE });
  // When each call showed in the emulator's log, on the virtual clock (sampled, so to within a second).
  const sent: number[] = [];
  const sampler = setInterval(() => {
    while (sent.length < posts().length) sent.push(clock.now());
  }, 1);
  const stopClock = clock.autoAdvance(100);
  const controllers: Controller[] = [];
  stop = async () => {
    clearInterval(sampler);
    stopClock();
    for (const c of controllers) await c.stop();
    await emulator.stop();
    await cluster.stop();
  };
  return {
    cluster,
    emulator,
    clock,
    posts,
    sent,
    start: async () => {
      const c = controller();
      controllers.push(c);
      await c.start();
      return c;
    },
  };
}

describe("the write budget against the emulator's own secondary limits (one clock)", () => {
  it("bursts up to the minute's limit, then waits for the window: no call refused, every record lands", async () => {
    const PER_MINUTE = 8;
    const scene = await budgetScene(PER_MINUTE, 30);
    await scene.start();
    // Past a virtual minute of waiting for the window: about 20 s of real time on a quiet machine.
    await converged(scene as unknown as Harness, { timeoutMs: 90_000 });

    expect(scene.posts().filter((r) => r.status !== 200)).toEqual([]);
    expect(scene.emulator.secondaryLimits.counts().refused.total).toBe(0);
    expect(scene.posts()).toHaveLength(30);
    // A burst, not a pace: the first minute's calls all went well before a pace of 8 a minute would have sent the
    // 8th (52.5 s after the first; a few seconds measured, the bound leaves room for a loaded machine, whose slowness
    // the virtual clock turns into virtual seconds); the next ones only once that minute had passed (the emulator's
    // count above is exact).
    const { sent } = scene;
    expect(sent[PER_MINUTE - 1]! - sent[0]!).toBeLessThan(40_000);
    expect(sent[PER_MINUTE]! - sent[0]!).toBeGreaterThan(59_000);
  });

  it("a controller started right after another keeps to the windows the first one's calls filled (kept with the state)", async () => {
    const PER_MINUTE = 8;
    const scene = await budgetScene(PER_MINUTE, 16);
    const first = await scene.start();
    await vi.waitFor(() => expect(scene.posts()).toHaveLength(PER_MINUTE), { ...WAIT, timeout: 60_000 });
    // Stopped while the rest waits for the window; a second controller (a restart, a new leader) takes over at once.
    await first.stop({ flush: false });
    expect(scene.posts()).toHaveLength(PER_MINUTE);
    const takeover = scene.clock.now();
    await scene.start();
    // Past a virtual minute of waiting for the window: about 20 s of real time on a quiet machine.
    await converged(scene as unknown as Harness, { timeoutMs: 90_000 });

    expect(scene.emulator.secondaryLimits.counts().refused.total).toBe(0);
    expect(scene.posts().filter((r) => r.status !== 200)).toEqual([]);
    expect(scene.posts()).toHaveLength(16);
    // The second controller waited for the first one's calls to leave the minute, though its own budget was empty
    // (it started well inside that minute, so it had to wait).
    expect(takeover - scene.sent[0]!).toBeLessThan(50_000);
    expect(scene.sent[PER_MINUTE]! - scene.sent[0]!).toBeGreaterThan(59_000);
  });
});
