// /metrics over real HTTP from a real controller (in process, against the fake cluster and the emulator): what an
// operator's Prometheus scrapes, and what the chart's alerts read. The controller runs on a virtual clock that the
// tests never move, so no round runs on its own: each runs when a test asks for it (Controller#flush), and what it
// leaves is read at once, with no waiting.
import { startHealthServer, type HealthServer } from "@shiplog/controller";
import { WATCHED_KINDS } from "@shiplog/controller/internal";
import { afterEach, describe, expect, it } from "vitest";
import { CountedClock } from "../../../test/kit/counted-clock.js";
import { Changes } from "../../../test/kit/events.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { REPO, deployedRecords, expectedRecords, sorted, startHarness, type Harness } from "./scenario-harness.js";

let h: Harness | undefined;
let health: HealthServer | undefined;
afterEach(async () => {
  await health?.close();
  health = undefined;
  await h?.stop();
  h = undefined;
});

/** The sample lines of /metrics (no HELP or TYPE lines). */
async function samples(): Promise<string[]> {
  const response = await fetch(`${health!.url}/metrics`);
  expect(response.status).toBe(200);
  return (await response.text()).split("\n").filter((line) => line !== "" && !line.startsWith("#"));
}

describe("/metrics in token mode", () => {
  it("has no token_remaining_seconds sample (the expiry of a plain token is unknown), so ShiplogTokenExpiringSoon cannot fire", async () => {
    const clock = new VirtualClock();
    h = await startHarness({
      clock,
      beforeStart: async (cluster) => {
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        await cluster.settle();
      },
    });
    health = await startHealthServer(h.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000, now: () => clock.now() });
    // The caches are listed (start() resolved): a round sends the pod's record, and the service takes it.
    await h.controller.flush();
    expect(sorted(deployedRecords(h.emulator))).toEqual(sorted(expectedRecords(h.cluster)));
    expect(expectedRecords(h.cluster).size).toBe(1);
    const lines = await samples();
    expect(lines).toContain('shiplog_controller_records_accepted_total{status="deployed"} 1');
    expect(lines.filter((line) => line.startsWith("shiplog_controller_token_remaining_seconds"))).toEqual([]);
    // No state ConfigMap: nothing was written, so no size either.
    expect(lines.filter((line) => line.startsWith("shiplog_controller_state_bytes"))).toEqual([]);
    // The family itself is still described (HELP and TYPE), as every registered metric is.
    const text = await (await fetch(`${health.url}/metrics`)).text();
    expect(text).toContain("# TYPE shiplog_controller_token_remaining_seconds gauge");
  });
});

/** One sample's value from /metrics lines, or undefined when the series is absent. */
function sample(lines: string[], series: string): number | undefined {
  const line = lines.find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("/metrics and /readyz when the service refuses every record", () => {
  it("counts the records refused by reason, clears in_flight_records, calls the calls refused (not success), and /readyz says why", async () => {
    const clock = new VirtualClock();
    // Durations no other timer of the controller has, so the timers pending say what its reflectors wait for (a
    // watch answered: its idle watchdog; a request on the wire: its timeout), and each line a watch hears sets the
    // watchdog again.
    const IDLE_MS = 97_000;
    const REQUEST_MS = 2_345;
    const changes = new Changes();
    const counted = new CountedClock(clock, () => changes.changed());
    h = await startHarness({
      clock: counted,
      flags: ["--watch-idle-timeout", `${IDLE_MS}ms`, "--request-timeout", `${REQUEST_MS}ms`],
      beforeStart: async (cluster) => {
        // No repository annotation and no attestation: the service cannot link the image (cause not_found).
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 1 });
        await cluster.settle();
      },
    });
    health = await startHealthServer(h.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000, now: () => clock.now() });
    await h.controller.flush();
    const lines = await samples();
    expect(sample(lines, 'shiplog_controller_records_rejected_total{reason="not_found"}')).toBe(1);
    expect(sample(lines, 'shiplog_controller_refused_records{reason="not_found"}')).toBe(1);
    expect(sample(lines, "shiplog_controller_in_flight_records")).toBe(0);
    expect(sample(lines, 'shiplog_controller_requests_total{result="refused",code=""}')).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => l.startsWith('shiplog_controller_requests_total{result="success"'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith("shiplog_controller_records_accepted_total"))).toEqual([]);
    // A round that leaves nothing pending but has nothing landed is not a successful flush: the stamp stays.
    const stamp = sample(lines, "shiplog_controller_last_successful_flush_timestamp_seconds");
    await h.controller.flush();
    expect(sample(await samples(), "shiplog_controller_last_successful_flush_timestamp_seconds")).toBe(stamp);
    const readyz = await fetch(`${health.url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.text()).toContain("the service refused every record (1; not_found: 1) and holds none");

    // Linked (the workload's annotation): the record lands, the refusal is gone, the pod is ready. Every reflector
    // (the watched kinds and the namespaces', cluster-wide: one each) is watching first, its watch answered; then each
    // Deployment watch hears the change (one line each: nothing else changes in the cluster) before the next round.
    const reflectors = WATCHED_KINDS.length + 1;
    await changes.until(() => counted.pending(IDLE_MS) === reflectors && counted.pending(REQUEST_MS) === 0);
    const heard = counted.set(IDLE_MS);
    const deploymentWatches = h.cluster.watches("deployments");
    const patched = await fetch(`${h.cluster.url}/apis/apps/v1/namespaces/shop/deployments/web`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { annotations: REPO } }),
    });
    expect(patched.status).toBe(200);
    await changes.until(() => counted.set(IDLE_MS) - heard >= deploymentWatches);
    await h.controller.flush();
    expect((await fetch(`${health.url}/readyz`)).status).toBe(200);
    const after = await samples();
    expect(after.filter((l) => l.startsWith("shiplog_controller_refused_records"))).toEqual([]);
    expect(sample(after, 'shiplog_controller_records_accepted_total{status="deployed"}')).toBe(1);
    expect(sample(after, "shiplog_controller_in_flight_records")).toBe(0);
    expect(sample(after, "shiplog_controller_last_successful_flush_timestamp_seconds")).toBeGreaterThan(stamp!);
  });
});
