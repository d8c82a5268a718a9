// Write-ahead state and the sender-wide gate, with the real controller against the fake cluster and the emulator over
// loopback. (The silent-watch relist is watch-relist.test.ts, on a virtual clock.)
import { InMemoryAcknowledgedStore } from "@shiplog/controller";
import { STATE_WRITE_FAILURES_UNREADY } from "@shiplog/controller/internal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, deployedRecords, metricValue, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";

/** A store whose writes fail while `failing` is set, as a ConfigMap write does when its namespace is missing. */
class FailingWrites extends InMemoryAcknowledgedStore {
  failing = false;
  writes = 0;
  override async persist(): Promise<void> {
    this.writes += 1;
    if (this.failing)
      throw Object.assign(new Error('configmaps "shiplog-state" not found (404)'), { code: "acknowledged_state_write_failed" });
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("write-ahead state", () => {
  it("nothing is sent while the intent cannot be written; failures are retried, counted, and fail /readyz", async () => {
    const store = new FailingWrites();
    h = await startHarness({ store });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0", annotations: REPO });
    await converged(h);
    await vi.waitFor(() => expect(h!.controller.ready).toBe(true), WAIT);

    store.failing = true;
    const calls = h.emulator.requests.count({ method: "POST", route: CLUSTER_ROUTE });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "api", image: "ghcr.io/acme/api:1.0", annotations: REPO });
    await vi.waitFor(() => expect(h!.controller.status().stateWriteFailures).toBeGreaterThanOrEqual(STATE_WRITE_FAILURES_UNREADY), WAIT);
    // Retried by the loop on its own (no new change needed), never sent without the intent on record.
    expect(store.writes).toBeGreaterThan(STATE_WRITE_FAILURES_UNREADY);
    expect(h.emulator.requests.count({ method: "POST", route: CLUSTER_ROUTE })).toBe(calls);
    expect(await metricValue(h, "shiplog_controller_state_writes_total", { result: "failure" })).toBeGreaterThanOrEqual(
      STATE_WRITE_FAILURES_UNREADY,
    );
    expect(h.controller.ready).toBe(false);
    expect(h.controller.notReadyReason()).toMatch(
      /^writing the state ConfigMap failed \d+ times in a row \(configmaps "shiplog-state" not found \(404\)\)/,
    );

    store.failing = false;
    await converged(h);
    await vi.waitFor(() => expect(h!.controller.ready).toBe(true), WAIT);
    await vi.waitFor(() => expect(h!.controller.status().inFlight).toBe(0), WAIT);
  });
});

describe("the sender-wide gate", () => {
  it("a spammed 422 storm: calls stay within the bound, nothing is bisected or rejected, every record lands after", async () => {
    const concurrency = 3;
    h = await startHarness({ flags: ["--batch-size", "5", "--concurrency", String(concurrency)] });
    const fault = h.emulator.faults.add({
      kind: "status",
      status: 422,
      message: "The endpoint has been spammed.",
      route: CLUSTER_ROUTE,
      method: "POST",
    });
    await h.cluster.script.createDeployments(
      Array.from({ length: 30 }, (_, i) => ({
        namespace: "shop",
        name: `svc-${i}`,
        image: `ghcr.io/acme/svc-${i}:1.0`,
        annotations: REPO,
      })),
    );
    // The fault stays on for several backoff rounds.
    await vi.waitFor(
      async () =>
        expect(await metricValue(h!, "shiplog_controller_sender_backoffs_total", { reason: "spammed" })).toBeGreaterThanOrEqual(5),
      WAIT,
    );
    h.emulator.faults.remove(fault);
    const closures = await metricValue(h, "shiplog_controller_sender_backoffs_total", { reason: "spammed" });
    const refused = h.emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE }).filter((r) => r.status === 422);
    // Each attempt ends at the first refusal: at most `concurrency` calls were already on their way.
    const bound = (closures + 1) * concurrency;
    console.log(
      `spammed 422 storm: 30 records in 6 batches, ${refused.length} calls refused in ${closures} back-offs (bound ${bound}); bisection would have made ~${6 * 9} per attempt`,
    );
    expect(refused.length).toBeLessThanOrEqual(bound);
    await converged(h);
    expect(deployedRecords(h.emulator).size).toBe(30);
    expect(await metricValue(h, "shiplog_controller_records_rejected_total")).toBe(0);
  });
});
