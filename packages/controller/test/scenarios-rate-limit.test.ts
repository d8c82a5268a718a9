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
