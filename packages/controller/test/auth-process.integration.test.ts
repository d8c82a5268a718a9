// The controller as a process (`node dist/main.js`) on the wire: authenticating as an App installation across many
// token expiries on the emulator's clock while workloads roll, and riding out a secondary-rate-limit storm.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { REPO, converged, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const TOKEN_ROUTE = "/app/installations/:installation_id/access_tokens";
const APP_ID = 1_001_001;

let cluster: FakeCluster | undefined;
let emulator: Emulator | undefined;
let controller: ControllerProcess | undefined;

afterEach(async () => {
  if (controller && controller.child.exitCode === null && controller.child.signalCode === null) controller.child.kill("SIGKILL");
  controller = undefined;
  await emulator?.stop();
  await cluster?.stop();
});

async function setUp(names: string[]): Promise<Harness> {
  cluster = await startFakeCluster({});
  emulator = await startEmulator({ port: 0 });
  await cluster.script.ensureNamespace("shiplog");
  for (const name of names)
    await cluster.script.createDeployment({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO });
  return { cluster, emulator } as Harness;
}

describe("the controller process with App installation auth", () => {
  it("keeps recording across 20 token expiries on the emulator's clock while workloads roll: every 401 renewed, nothing lost", async () => {
    const h = await setUp(["web", "api"]);
    const dir = tempDir("shiplog-app-");
    writeFileSync(join(dir, "app.pem"), h.emulator.apps.privateKey(APP_ID));
    controller = startControllerProcess(h.cluster, h.emulator, {
      SHIPLOG_TOKEN: "",
      SHIPLOG_APP_ID: String(APP_ID),
      SHIPLOG_APP_PRIVATE_KEY_FILE: join(dir, "app.pem"),
    });
    await converged(h);
    expect(controller.logs.find((l) => l.msg === "authenticating as an App installation")).toMatchObject({
      auth: "app-installation",
      installationId: "found from organization acme",
    });

    for (let step = 1; step <= 20; step++) {
      // The token minted an hour ago on the emulator's clock is dead now; the controller's own clock barely moved.
      h.emulator.clock.advance(61 * 60_000);
      await h.cluster.script.setImage("shop", step % 2 ? "web" : "api", `ghcr.io/acme/${step % 2 ? "web" : "api"}:1.${step}`);
      await converged(h);
    }

    const log = h.emulator.requests.list().filter((r) => r.route === CLUSTER_ROUTE || r.route === TOKEN_ROUTE);
    const refused = log.flatMap((r, i) => (r.route === CLUSTER_ROUTE && r.status === 401 ? [i] : []));
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const i of refused) {
      // The next call on the records route comes after a fresh token.
      const next = log.findIndex((r, j) => j > i && r.route === CLUSTER_ROUTE);
      expect(log.slice(i + 1, next === -1 ? undefined : next).some((r) => r.route === TOKEN_ROUTE && r.status === 201)).toBe(true);
    }
    expect(h.emulator.apps.minted.length).toBeGreaterThanOrEqual(21);
    // The remaining lifetime of the token in use: just minted, so close to the hour.
    const remaining = await controller.metric("shiplog_controller_token_remaining_seconds");
    expect(remaining).toBeGreaterThan(3000);
    expect(remaining).toBeLessThanOrEqual(3600);
    expect(controller.output()).not.toContain("PRIVATE KEY");
    expect(controller.output()).not.toMatch(/emu_ghs_[0-9a-f]{8}/);
  }, 120_000);
});

describe("the controller process under a secondary-rate-limit storm", () => {
  it("stays ready, never says forbidden, pauses every batch together for the Retry-After, and lands every record after", async () => {
    const h = await setUp(["web", "api", "cart", "search"]);
    controller = startControllerProcess(h.cluster, h.emulator, { SHIPLOG_BATCH_SIZE: "1", SHIPLOG_CONCURRENCY: "4" });
    await converged(h);
    await vi.waitFor(async () => expect((await controller!.get("/readyz")).status).toBe(200), WAIT);

    h.emulator.requests.clear();
    h.emulator.faults.add({ kind: "secondary_rate_limit", route: CLUSTER_ROUTE, retryAfterSeconds: 2, times: 1 });
    h.emulator.faults.add({ kind: "secondary_rate_limit", status: 429, route: CLUSTER_ROUTE, retryAfterSeconds: 1, times: 1 });
    const rollout = ["web", "api", "cart", "search"].map((name) =>
      h.cluster.script.setImage("shop", name, `ghcr.io/acme/${name}:2.0`, { wait: false }),
    );
    const readiness: number[] = [];
    const watching = (async () => {
      for (let i = 0; i < 30; i++) {
        readiness.push((await controller!.get("/readyz")).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await Promise.all(rollout);
    await converged(h);
    await watching;

    const calls = h.emulator.requests.list().filter((r) => r.route === CLUSTER_ROUTE);
    const limited = calls.filter((r) => r.status === 403 || r.status === 429);
    // The limited call's retry meets the second fault.
    expect(limited.map((r) => r.status)).toEqual([403, 429]);
    // Serialised behind one gate: after each limited answer, no call until its Retry-After has passed.
    for (const answer of limited) {
      const waitMs = (answer.status === 429 ? 1 : 2) * 1000;
      const at = Date.parse(answer.time);
      const inside = calls.filter((r) => Date.parse(r.time) > at && Date.parse(r.time) < at + waitMs - 50);
      expect(inside).toEqual([]);
    }
    expect(readiness.every((s) => s === 200)).toBe(true);
    expect(controller.output()).not.toContain("forbidden");
    expect(controller.logs.some((l) => l.msg.includes("rate limited by the service"))).toBe(true);
  }, 60_000);
});
