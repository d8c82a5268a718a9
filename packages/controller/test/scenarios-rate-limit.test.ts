// The controller under a secondary rate limit that names no wait, on the client's virtual time: the batches wait
// the service's minute together, the controller stays ready and never calls it a refused token, and every record
// lands. (auth-process.test.ts shows the same with Retry-After, with the controller as a process on real time.)
import { KubeConfig } from "@kubernetes/client-node";
import { staticToken, type TransportClock, type TransportPlugin } from "@shiplog/client";
import { Controller, loadConfig } from "@shiplog/controller";
import { createServiceClient } from "@shiplog/controller/internal";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CLUSTER, ORG, REPO, converged, type Harness } from "./scenario-harness.js";
import { VirtualClock } from "./virtual-clock.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Virtual time: a sleep returns at once, having moved the clock to its wake-up time. */
function virtualClock(): TransportClock {
  let now = Date.parse("2026-01-01T00:00:00Z");
  return {
    now: () => now,
    async sleep(ms) {
      const wake = now + ms;
      await new Promise((resolve) => setImmediate(resolve));
      now = Math.max(now, wake);
    },
  };
}

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
    const clock = virtualClock();
    // Every attempt as it leaves, on the client's (virtual) time.
    const sent: { at: number; status: number }[] = [];
    const sendLog: TransportPlugin = {
      name: "send log",
      after: (response) => void sent.push({ at: clock.now(), status: response.status }),
    };
    const api = createServiceClient({
      baseUrl: emulator.url,
      auth: staticToken(emulator.tokens.admin!),
      mayPost: () => true,
      logger,
      clock,
      plugins: [sendLog],
      retry: { retries: 2, minDelayMs: 50, maxDelayMs: 400 },
    }).artifacts;
    const controller = new Controller({ config, kubeConfig, logger, api });
    stop = async () => {
      await controller.stop();
      await emulator.stop();
      await cluster.stop();
    };
    await controller.start();
    const h = { cluster, emulator } as Harness;
    await converged(h);
    expect(controller.ready).toBe(true);

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

describe("the write budget against the emulator's own secondary limits (one clock)", () => {
  it("bursts up to the minute's limit, then waits for the window: no call refused, every record lands", async () => {
    const PER_MINUTE = 8;
    const cluster = await startFakeCluster({});
    const emulator = await startEmulator({ port: 0, secondaryLimits: { contentPerMinute: PER_MINUTE } });
    const clock = new VirtualClock();
    // The emulator counts its windows on the controller's (virtual) time; a request's arrival falls somewhere
    // between its start and its answer, as at the real service.
    emulator.clock.nowMs = () => clock.now();
    const names = Array.from({ length: 30 }, (_, i) => `svc-${i}`);
    await cluster.script.createDeployments(
      names.map((name) => ({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO })),
    );
    const config = loadConfig(
      [
        ...["--api-url", emulator.url, "--org", ORG, "--cluster", CLUSTER, "--logical-environment", "production"],
        ...["--http-port", "off", "--batch-size", "1", "--write-budget-per-minute", String(PER_MINUTE)],
      ],
      { SHIPLOG_TOKEN: emulator.tokens.admin! },
    );
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    const sent: number[] = [];
    const controller = new Controller({ config, kubeConfig, logger: pino({ level: "silent" }), clock });
    const stopClock = clock.autoAdvance(100);
    stop = async () => {
      stopClock();
      await controller.stop();
      await emulator.stop();
      await cluster.stop();
    };
    const posts = () => emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE });
    let seen = 0;
    const sampler = setInterval(() => {
      for (; seen < posts().length; seen++) sent.push(clock.now());
    }, 1);
    await controller.start();
    await converged({ cluster, emulator } as Harness);
    clearInterval(sampler);

    expect(posts().filter((r) => r.status !== 200)).toEqual([]);
    expect(emulator.secondaryLimits.counts().refused.total).toBe(0);
    expect(posts()).toHaveLength(30);
    // A burst, not a pace: the first minute's calls all went within a few seconds of the first (a pace of 8 a
    // minute would have spread them over 52.5 s); the next ones only once that minute had passed (the times are
    // sampled as the calls show in the emulator's log, so to within a second; the emulator's count above is exact).
    expect(sent[PER_MINUTE - 1]! - sent[0]!).toBeLessThan(15_000);
    expect(sent[PER_MINUTE]! - sent[0]!).toBeGreaterThan(59_000);
  });
});
