// The acknowledged state gates sending: until it is loaded nothing is sent (diffing against nothing would re-post
// every record and miss deletions made while no controller ran).
import { InMemoryAcknowledgedStore, StateNotLoadedError } from "@shiplog/controller";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, converged, eventually, startHarness, type Harness } from "./scenario-harness.js";

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
    h = await startHarness({ store, beforeStart: (cluster) => cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO }).then(() => undefined) });
    await expect(h.controller.flush()).rejects.toBeInstanceOf(StateNotLoadedError);
    await expect(h.controller.flush()).rejects.toMatchObject({ code: "acknowledged_state_not_loaded" });
    // The loop keeps trying (with backoff), and sends nothing meanwhile.
    const before = store.loads;
    await eventually(() => expect(store.loads).toBeGreaterThan(before + 1));
    expect(h.emulator.requests.list().length).toBe(0);
    expect(h.controller.status()).toMatchObject({ stateLoaded: false, leading: true, flushed: false });
    expect(h.controller.notReadyReason()).toBe("acknowledged state not loaded");

    store.failures = 0;
    await converged(h);
    expect(h.controller.status().stateLoaded).toBe(true);
    // The records land before the flush that sent them has finished: readiness follows right after.
    await eventually(() => expect(h!.controller.ready).toBe(true));
  });
});
