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
    // The family itself is still described (HELP and TYPE), as every registered metric is.
    const text = await (await fetch(`${health.url}/metrics`)).text();
    expect(text).toContain("# TYPE shiplog_controller_token_remaining_seconds gauge");
  });
});
