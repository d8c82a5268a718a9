// Conflicting writers, with controller processes (`node dist/main.js`) against the fake cluster and the emulator:
// two controllers whose leader election was left off by mistake both post every record and both write one state
// ConfigMap, each write meeting the other's (a resourceVersion conflict; the head then names the other writer). Each
// must say so: one log line naming the other, shiplog_controller_state_conflicting_writers 1 (the alert
// ShiplogConflictingStateWriters reads it), and /readyz failing with the reason. Two replicas on one Lease, the same
// rollouts, never report it.
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { CLUSTER, ORG, REPO } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const STATE = "shiplog-controller-state";
const LEASE = "shiplog-controller";
const LEASE_TIMING = { SHIPLOG_LEASE_DURATION: "6s", SHIPLOG_RENEW_DEADLINE: "4s", SHIPLOG_RETRY_PERIOD: "1s" };
const NAMES = ["web", "api", "cart"];
/** Rollouts at most: each makes both controllers write the state about twice (intents, answers). */
const MAX_ROLLOUTS = 20;
const REPORTED = /^another controller \((ctl-[ab])\) writes the same state/;

let cluster: FakeCluster | undefined;
let emulator: Emulator | undefined;
const processes: ControllerProcess[] = [];

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await emulator?.stop();
  await cluster?.stop();
});

async function setUp(): Promise<void> {
  cluster = await startFakeCluster({ nodes: ["node-1"] });
  emulator = await startEmulator({ port: 0 });
  await cluster.script.ensureNamespace("shiplog");
  for (const name of NAMES)
    await cluster.script.createDeployment({ namespace: "shop", name, image: `ghcr.io/acme/${name}:1.0`, annotations: REPO });
}

function run(env: Record<string, string>): ControllerProcess {
  const p = startControllerProcess(cluster!, emulator!, { SHIPLOG_STATE_CONFIGMAP: STATE, ...env });
  processes.push(p);
  return p;
}

const digestAt = (name: string) =>
  emulator!.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER }).find((r) => r.deployment_name === `shop-${name}-${name}`)
    ?.digest;

/** Rolls every workload to `version` and waits until the service holds the new digests. */
async function rollout(version: number): Promise<void> {
  for (const name of NAMES) await cluster!.script.setImage("shop", name, `ghcr.io/acme/${name}:${version}.0`, { wait: false });
  await vi.waitFor(() => {
    for (const name of NAMES) expect(digestAt(name)).toBe(cluster!.imageIdFor(`ghcr.io/acme/${name}:${version}.0`).split("@")[1]);
  }, WAIT);
}

const reportLines = (p: ControllerProcess) => p.logs.filter((l) => REPORTED.test(l.msg));

describe("conflicting writers (controller processes)", () => {
  it("two controllers without leader election on one state: each names the other in one log line, a metric and /readyz", async () => {
    await setUp();
    const a = run({ POD_NAME: "ctl-a" });
    const b = run({ POD_NAME: "ctl-b" });
    const reported = async (p: ControllerProcess) => (await p.metric("shiplog_controller_state_conflicting_writers")) === 1;
    for (let version = 2; version < 2 + MAX_ROLLOUTS; version++) {
      if ((await reported(a)) && (await reported(b))) break;
      await rollout(version);
    }
    for (const [self, other] of [
      [a, "ctl-b"],
      [b, "ctl-a"],
    ] as const) {
      expect(await self.metric("shiplog_controller_state_conflicting_writers"), self.output()).toBe(1);
      expect(await self.metric("shiplog_controller_state_conflicts_total")).toBeGreaterThanOrEqual(3);
      // Said once, naming the other writer (by the identity it writes into the state).
      const lines = reportLines(self);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, otherWriter: other, configMap: `shiplog/${STATE}` });
      expect(lines[0]!.msg).toContain(`another controller (${other}) writes the same state`);
      const readyz = await self.get("/readyz");
      expect(readyz.status).toBe(503);
      expect(readyz.body).toContain(`another controller (${other}) writes the same state ConfigMap shiplog/${STATE}`);
      expect(readyz.body).toContain("runbook: ShiplogConflictingStateWriters");
    }
  });

  it("two replicas on one Lease, the same rollouts and a takeover: never reported", async () => {
    await setUp();
    const a = run({ POD_NAME: "ctl-a", SHIPLOG_LEASE_NAME: LEASE, ...LEASE_TIMING });
    await vi.waitFor(async () => expect(await a.get("/readyz")).toEqual({ status: 200, body: "ok: leader\n" }), WAIT);
    const b = run({ POD_NAME: "ctl-b", SHIPLOG_LEASE_NAME: LEASE, ...LEASE_TIMING });
    await vi.waitFor(async () => expect(await b.get("/readyz")).toEqual({ status: 200, body: "ok: standby\n" }), WAIT);
    for (let version = 2; version < 8; version++) await rollout(version);
    // The leader hands over (SIGTERM releases the Lease); the new leader writes the state the old one left.
    a.child.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    await vi.waitFor(async () => expect(await b.get("/readyz")).toEqual({ status: 200, body: "ok: leader\n" }), WAIT);
    for (let version = 8; version < 12; version++) await rollout(version);
    expect(await b.metric("shiplog_controller_state_conflicts_total")).toBe(0);
    expect(await b.metric("shiplog_controller_state_conflicting_writers")).toBe(0);
    expect(reportLines(a)).toEqual([]);
    expect(reportLines(b)).toEqual([]);
  });
});
