// The acknowledged state gates sending: until it is loaded nothing is sent (diffing against nothing would re-post
// every record and miss deletions made while no controller ran).
import { startEmulator } from "@shiplog/emulator";
import { InMemoryAcknowledgedStore, StateNotLoadedError } from "@shiplog/controller";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, deployedRecords, startController, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const STATE_FLAGS = ["--state-configmap", "shiplog-state", "--pod-namespace", "shiplog"];
const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";

/** A store whose first loads fail, as a ConfigMap read does while the API server is unreachable. */
class FlakyStore extends InMemoryAcknowledgedStore {
  failures: number;
  loads = 0;
  constructor(failures: number) {
    super();
    this.failures = failures;
  }
  override async load(): Promise<void> {
    this.loads += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    }
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("acknowledged state loading", () => {
  it("sends nothing while the state cannot be loaded, retries with backoff, then converges", async () => {
    const store = new FlakyStore(Number.POSITIVE_INFINITY);
    h = await startHarness({
      store,
      beforeStart: (cluster) =>
        cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO }).then(() => undefined),
    });
    await expect(h.controller.flush()).rejects.toBeInstanceOf(StateNotLoadedError);
    await expect(h.controller.flush()).rejects.toMatchObject({ code: "acknowledged_state_not_loaded" });
    // The loop keeps trying (with backoff), and sends nothing meanwhile.
    const before = store.loads;
    await vi.waitFor(() => expect(store.loads).toBeGreaterThan(before + 1), WAIT);
    expect(h.emulator.requests.list().length).toBe(0);
    expect(h.controller.status()).toMatchObject({ stateLoaded: false, leading: true, flushed: false });
    expect(h.controller.notReadyReason()).toBe("acknowledged state not loaded");

    store.failures = 0;
    await converged(h);
    expect(h.controller.status().stateLoaded).toBe(true);
    // The records land before the flush that sent them has finished: readiness follows right after.
    await vi.waitFor(() => expect(h!.controller.ready).toBe(true), WAIT);
  });

  it("a dry run leaves the state alone: a later live run against the same ConfigMap sends what the cluster runs", async () => {
    h = await startHarness({
      flags: ["--dry-run", ...STATE_FLAGS],
      beforeStart: async (cluster) => {
        cluster.script.ensureNamespace("shiplog");
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    await h.cluster.script.createDeployment({ namespace: "shop", name: "api", image: "redis:7", annotations: REPO });
    // The dry run diffs as a live run would, and counts what it would have sent as acknowledged, in memory only.
    await vi.waitFor(() => expect(h!.controller.status().acknowledged).toBe(2), WAIT);
    await h.controller.flush();
    await h.controller.stop({ flush: true });
    expect(h.cluster.store.get("configmaps", "shiplog", "shiplog-state")).toBeUndefined();
    expect(h.emulator.requests.list({ method: "POST" })).toEqual([]);

    h.controller = (await startController(h.cluster, h.emulator, { flags: STATE_FLAGS })).controller;
    const expected = await converged(h);
    expect([...deployedRecords(h.emulator).keys()].sort()).toEqual([...expected.keys()].sort());
    expect(expected.size).toBe(2);
    await vi.waitFor(() => expect(h!.cluster.store.get("configmaps", "shiplog", "shiplog-state")).toBeDefined(), WAIT);
  });

  it("state written for another service (API URL) is not used: its records are sent again", async () => {
    h = await startHarness({
      flags: STATE_FLAGS,
      beforeStart: async (cluster) => {
        cluster.script.ensureNamespace("shiplog");
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    await converged(h);
    await vi.waitFor(() => expect(h!.cluster.store.get("configmaps", "shiplog", "shiplog-state")).toBeDefined(), WAIT);
    await h.controller.stop();
    // The same organization and cluster, on another service: what the first one acknowledged says nothing here.
    const other = await startEmulator({ port: 0 });
    try {
      const second = await startController(h.cluster, other, { flags: STATE_FLAGS });
      try {
        await vi.waitFor(() => expect(deployedRecords(other).size).toBe(1), WAIT);
        expect(other.requests.count({ method: "POST", route: CLUSTER_ROUTE })).toBeGreaterThan(0);
      } finally {
        await second.controller.stop();
      }
    } finally {
      await other.stop();
    }
  });
});
