// /metrics over real HTTP from a real controller (in process, against the fake cluster and the emulator): what an
// operator's Prometheus scrapes, and what the chart's alerts read.
import { startHealthServer, type HealthServer } from "@shiplog/controller";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

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
    h = await startHarness({
      beforeStart: async (cluster) => {
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    health = await startHealthServer(h.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000 });
    await converged(h);
    await vi.waitFor(async () => expect(await samples()).toContain('shiplog_controller_records_accepted_total{status="deployed"} 1'), WAIT);
    const lines = await samples();
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
    h = await startHarness({
      beforeStart: async (cluster) => {
        // No repository annotation and no attestation: the service cannot link the image (cause not_found).
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 1 });
      },
    });
    health = await startHealthServer(h.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000 });
    await vi.waitFor(
      async () => expect(sample(await samples(), 'shiplog_controller_records_rejected_total{reason="not_found"}')).toBe(1),
      WAIT,
    );
    const lines = await samples();
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

    // Linked (the workload's annotation): the record lands, the refusal is gone, the pod is ready.
    const patched = await fetch(`${h.cluster.url}/apis/apps/v1/namespaces/shop/deployments/web`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { annotations: REPO } }),
    });
    expect(patched.status).toBe(200);
    await vi.waitFor(async () => expect((await fetch(`${health!.url}/readyz`)).status).toBe(200), WAIT);
    const after = await samples();
    expect(after.filter((l) => l.startsWith("shiplog_controller_refused_records"))).toEqual([]);
    expect(sample(after, 'shiplog_controller_records_accepted_total{status="deployed"}')).toBe(1);
    expect(sample(after, "shiplog_controller_in_flight_records")).toBe(0);
    expect(sample(after, "shiplog_controller_last_successful_flush_timestamp_seconds")).toBeGreaterThan(stamp!);
  });
});
