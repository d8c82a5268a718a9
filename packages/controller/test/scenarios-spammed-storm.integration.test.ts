// Issue #11's storm: the service answers every cluster call "422, the endpoint has been spammed" for a minute. On the
// controller's virtual clock (the flush loop, the write budget, the sender's gate and the client's waits all use
// it; HTTP and the cluster run for real), with the production timings (--retry-min-delay 1s, --retry-max-delay
// 60s, 80 calls a minute): the calls made stay within the bound the backoff sets, nothing is bisected or refused on
// its merits, and every record lands once the fault ends.
import { KubeConfig } from "@kubernetes/client-node";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config/config.js";
import { buildController } from "../src/build-controller.js";
import { CLUSTER, ORG, REPO, converged, type Harness } from "./scenario-harness.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const FAULT_MS = 60_000;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 60_000;

/**
 * The most calls `windowMs` can hold: one call per attempt (the first refusal closes the sender's gate on the rest of
 * its round), and after the k-th refused attempt the next waits at least half its backoff step (equal jitter),
 * min·2^k capped at max.
 */
function attemptBound(windowMs: number): number {
  let at = 0;
  let attempts = 1;
  for (let k = 0; ; k++) {
    at += Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** k) / 2;
    if (at > windowMs) return attempts;
    attempts += 1;
  }
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("a spammed-422 storm for a minute (virtual clock)", () => {
  it("calls stay within the backoff's bound, nothing is bisected or rejected, and every record lands after", async () => {
    const cluster = await startFakeCluster({});
    const emulator = await startEmulator({ port: 0 });
    await cluster.script.createDeployments(
      Array.from({ length: 60 }, (_, i) => ({
        namespace: "shop",
        name: `svc-${i}`,
        image: `ghcr.io/acme/svc-${i}:1.0`,
        annotations: REPO,
      })),
    );
    const fault = emulator.faults.add({
      kind: "status",
      status: 422,
      message: "The endpoint has been spammed.",
      route: CLUSTER_ROUTE,
      method: "POST",
    });
    const config = loadConfig(
      [
        "--api-url",
        emulator.url,
        "--org",
        ORG,
        "--cluster",
        CLUSTER,
        "--logical-environment",
        "production",
        "--http-port",
        "off",
        "--batch-size",
        "10",
      ],
      {
        SHIPLOG_TOKEN: emulator.tokens.admin!,
      },
    );
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    const clock = new VirtualClock();
    const controller = buildController(config, { kubeConfig, logger: pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" }), clock });
    // 100 ms of virtual time every 5 ms of real time, or less to the next timer.
    const stopClock = clock.autoAdvance(100);
    stop = async () => {
      stopClock();
      await controller.stop();
      await emulator.stop();
      await cluster.stop();
    };
    await controller.start();
    const h = { cluster, emulator } as Harness;
    const refused = () => emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).filter((r) => r.status === 422);

    // The fault stays on for a minute of the controller's time from its first refused call.
    await vi.waitFor(() => expect(refused().length).toBeGreaterThan(0), WAIT);
    const firstAt = clock.now();
    await vi.waitFor(() => expect(clock.now()).toBeGreaterThanOrEqual(firstAt + FAULT_MS), { ...WAIT, timeout: 60_000 });
    emulator.faults.remove(fault);
    const faultMs = clock.now() - firstAt;
    await converged(h);
    // Every refusal came while the fault was on; every success after it.
    const calls = refused().length;
    const bound = attemptBound(faultMs);
    const after = emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).filter((r) => r.status < 300).length;
    const backoffs = (await controller.metrics.registry.getSingleMetric("shiplog_controller_sender_backoffs_total")!.get()).values.reduce(
      (n, v) => n + v.value,
      0,
    );
    console.log(
      `spammed 422 for ${(faultMs / 1000).toFixed(1)} s of controller time: ${calls} calls refused in ${backoffs} back-offs ` +
        `(bound ${bound}: one call per attempt, attempts spaced by the backoff ` +
        `from ${RETRY_MIN_MS / 1000} s doubling up to ${RETRY_MAX_MS / 1000} s; ` +
        `the write budget alone allows 80 a minute; bisecting 6 batches of 10 would make ~42 calls per attempt); ` +
        `after the fault ended, 60 records landed in ${after} calls`,
    );
    expect(calls).toBeLessThanOrEqual(bound);
    // The storm happened: several attempts, each backed off.
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(backoffs).toBeGreaterThanOrEqual(calls - 1);
    expect(after).toBe(6);
    const rejected = await controller.metrics.registry.getSingleMetric("shiplog_controller_records_rejected_total")!.get();
    expect(rejected.values.reduce((n, v) => n + v.value, 0)).toBe(0);
  });
});
