// Two properties of the controller processes (`node dist/main.js`) that only separate processes can show:
// - restart: what was acknowledged survives in the state ConfigMap, so workloads deleted while no controller ran are
//   decommissioned, and records that did not change are not posted again;
// - failover: two replicas on one Lease; the leader is killed (-9) mid-rollout; the standby takes over, no sooner
//   than a lease duration after the last renewal, the final records are right, and the two never posted at the
//   same time. How soon it takes over is the elector's business, shown on virtual time in lease-election.test.ts:
//   here only orderings are asserted, which a loaded machine cannot break.
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { CLUSTER, ORG, REPO, converged, expectedRecords, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const STATE = "shiplog-controller-state";
const LEASE = "shiplog-controller";
// Durations a loaded machine keeps: the leader must not lose the Lease to a stall before it is killed.
const LEASE_TIMING = { SHIPLOG_LEASE_DURATION: "5s", SHIPLOG_RENEW_DEADLINE: "3s", SHIPLOG_RETRY_PERIOD: "500ms" };
const LEASE_DURATION_MS = 5000;

let cluster: FakeCluster | undefined;
let emulator: Emulator | undefined;
const processes: ControllerProcess[] = [];

afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await emulator?.stop();
  await cluster?.stop();
});

async function setUp(workloads: { name: string; containers: string[] }[]): Promise<Harness> {
  cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
  emulator = await startEmulator({ port: 0 });
  await cluster.script.ensureNamespace("shiplog");
  for (const w of workloads) {
    await cluster.script.createDeployment({
      namespace: "shop",
      name: w.name,
      replicas: 2,
      annotations: REPO,
      containers: w.containers.map((c) => ({ name: c, image: `ghcr.io/acme/${w.name}-${c}:1.0` })),
    });
  }
  return { cluster, emulator } as Harness;
}

function run(env: Record<string, string>): ControllerProcess {
  const p = startControllerProcess(cluster!, emulator!, env);
  processes.push(p);
  return p;
}

const records = () => emulator!.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER });
const stateMap = () =>
  cluster!.store.get("configmaps", "shiplog", STATE) as { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined;
const stateData = () => stateMap()?.data;
/** The head's journal segments (a stopped controller leaves none that settle intents: the previous version reads it). */
const journalKeys = () => Object.keys(stateMap()?.binaryData ?? {}).filter((k) => k.startsWith("journal-"));
const lease = () =>
  cluster!.store.get("leases", "shiplog", LEASE) as
    | { spec: { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseTransitions?: number } }
    | undefined;

describe("controller processes", () => {
  it("restart: deletions while down are decommissioned, rolled workloads updated, and nothing unchanged is posted again", async () => {
    const h = await setUp([
      { name: "web", containers: ["app", "proxy"] },
      { name: "api", containers: ["app"] },
      { name: "worker", containers: ["app"] },
      { name: "cart", containers: ["app"] },
    ]);
    const first = run({ POD_NAME: "ctl-1", SHIPLOG_STATE_CONFIGMAP: STATE });
    await converged(h);
    await vi.waitFor(() => expect(stateData()?.records).toBe("5"), WAIT);
    expect(journalKeys().length).toBeGreaterThan(0);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(journalKeys()).toEqual([]);

    // While no controller runs: one workload deleted, one rolled to a new image, one created.
    await cluster!.script.delete("deployments", "shop", "worker");
    await cluster!.script.setImage("shop", "api", { app: "ghcr.io/acme/api-app:2.0" });
    await cluster!.script.createDeployment({ namespace: "shop", name: "search", image: "ghcr.io/acme/search:1.0", annotations: REPO });
    await cluster!.settle();
    // A record posted again would get a new updated_at (the emulator stamps to the second): move its clock on.
    emulator!.clock.advance(3_600_000);
    const before = new Map(records().map((r) => [r.deployment_name, r.updated_at]));
    emulator!.requests.clear();

    const second = run({ POD_NAME: "ctl-2", SHIPLOG_STATE_CONFIGMAP: STATE });
    const expected = await converged(h);
    await vi.waitFor(() => expect(records().find((r) => r.deployment_name === "shop-worker-app")?.status).toBe("decommissioned"), WAIT);
    expect(expected.get("shop-api-app")).toBe(cluster!.imageIdFor("ghcr.io/acme/api-app:2.0").split("@")[1]);

    const changed = new Set(["shop-worker-app", "shop-api-app", "shop-search-search"]);
    for (const r of records()) {
      if (changed.has(r.deployment_name)) expect(r.updated_at, r.deployment_name).not.toBe(before.get(r.deployment_name));
      else expect(r.updated_at, `${r.deployment_name} was posted again`).toBe(before.get(r.deployment_name));
    }
    // Exactly the changes were posted: two deployed (rolled, new), one decommissioned (deleted while down).
    await vi.waitFor(async () => {
      expect(await second.metric("shiplog_controller_records_accepted_total", 'status="deployed"')).toBe(2);
      expect(await second.metric("shiplog_controller_records_accepted_total", 'status="decommissioned"')).toBe(1);
    }, WAIT);
    expect(emulator!.requests.list({ route: CLUSTER_ROUTE }).length).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(stateData()).toMatchObject({ records: "5", "written-by": "ctl-2" }), WAIT);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(journalKeys()).toEqual([]);
  });

  it("kill -9 during a call that only decommissions: the call was already in the state's budget, and the next run lands it", async () => {
    const h = await setUp([
      { name: "web", containers: ["app"] },
      { name: "api", containers: ["app"] },
    ]);
    const first = run({ POD_NAME: "ctl-1", SHIPLOG_STATE_CONFIGMAP: STATE });
    await converged(h);
    await vi.waitFor(() => expect(stateData()?.records).toBe("2"), WAIT);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(stateData()?.["budget-calls"]).toMatch(/^0;/);

    // Deleted while down; the next controller's first round only decommissions, and it dies while the service holds
    // that call (the hook kills 150 ms after the call left; the latency keeps it unanswered until then).
    await cluster!.script.delete("deployments", "shop", "web");
    await cluster!.settle();
    const fault = emulator!.faults.add({ kind: "latency", latencyMs: 1500, route: CLUSTER_ROUTE });
    const killed = run({ POD_NAME: "ctl-2", SHIPLOG_STATE_CONFIGMAP: STATE, SHIPLOG_TEST_CRASH_AT: "in-flight:shop-web-app" });
    await killed.exited;
    expect(killed.child.signalCode).toBe("SIGKILL");
    // No record changed in that round, yet its state write came before the call and holds it as unanswered: a leader
    // loading the state counts it in its windows.
    expect(stateData()).toMatchObject({ "written-by": "ctl-2", records: "2" });
    expect(stateData()?.["budget-calls"]).toMatch(/^1;/);
    emulator!.faults.remove(fault);

    const third = run({ POD_NAME: "ctl-3", SHIPLOG_STATE_CONFIGMAP: STATE });
    await converged(h);
    await vi.waitFor(() => expect(records().find((r) => r.deployment_name === "shop-web-app")?.status).toBe("decommissioned"), WAIT);
    await vi.waitFor(() => expect(stateData()).toMatchObject({ "written-by": "ctl-3", records: "1" }), WAIT);
    expect(await third.metric("shiplog_controller_write_budget_used", 'window="hour"')).toBeGreaterThanOrEqual(
      emulator!.requests.list({ route: CLUSTER_ROUTE }).filter((r) => r.userAgent?.includes("(ctl-1)")).length + 1,
    );
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
  });

  it("failover: the leader killed mid-rollout, the standby takes over after the lease duration; never two leaders posting", async () => {
    const names = ["web", "api", "cart", "search", "worker", "auth"];
    const h = await setUp(names.map((name) => ({ name, containers: ["app"] })));
    const a = run({ POD_NAME: "ctl-a", SHIPLOG_LEASE_NAME: LEASE, SHIPLOG_STATE_CONFIGMAP: STATE, ...LEASE_TIMING });
    await vi.waitFor(async () => expect(await a.get("/readyz")).toEqual({ status: 200, body: "ok: leader\n" }), WAIT);
    // The standby says so on /readyz; this one counts as not ready while it stands by.
    const b = run({
      POD_NAME: "ctl-b",
      SHIPLOG_LEASE_NAME: LEASE,
      SHIPLOG_STATE_CONFIGMAP: STATE,
      SHIPLOG_READY_WHEN_STANDBY: "false",
      ...LEASE_TIMING,
    });
    await converged(h);
    await vi.waitFor(async () => expect(await b.get("/readyz")).toEqual({ status: 503, body: "standing by (not the leader)\n" }), WAIT);
    expect(await b.metric("shiplog_controller_leader")).toBe(0);
    expect(await a.metric("shiplog_controller_leader")).toBe(1);

    // Watch the Lease from outside: the last renewal by ctl-a before it dies.
    let lastRenewByA = 0;
    const watcher = setInterval(() => {
      const spec = lease()?.spec;
      if (spec?.holderIdentity === "ctl-a" && spec.renewTime) lastRenewByA = Math.max(lastRenewByA, Date.parse(spec.renewTime));
    }, 20);

    try {
      // A rollout of every workload: the leader posts the first half, is killed, the second half rolls while
      // nobody leads, and the standby must finish it.
      const digest = (name: string) => cluster!.imageIdFor(`ghcr.io/acme/${name}-app:2.0`).split("@")[1];
      for (const name of names.slice(0, 3))
        await cluster!.script.setImage("shop", name, { app: `ghcr.io/acme/${name}-app:2.0` }, { wait: false });
      await vi.waitFor(() => {
        for (const name of names.slice(0, 3))
          expect(records().find((r) => r.deployment_name === `shop-${name}-app`)?.digest).toBe(digest(name));
      }, WAIT);
      a.child.kill("SIGKILL");
      await a.exited;
      const killedAt = Date.now();
      for (const name of names.slice(3))
        await cluster!.script.setImage("shop", name, { app: `ghcr.io/acme/${name}-app:2.0` }, { wait: false });

      await vi.waitFor(async () => expect(await b.get("/readyz")).toEqual({ status: 200, body: "ok: leader\n" }), WAIT);
      const expected = await converged(h);
      for (const name of names) expect(expected.get(`shop-${name}-app`)).toBe(digest(name));

      const spec = lease()!.spec;
      expect(spec.holderIdentity).toBe("ctl-b");
      expect(spec.leaseTransitions).toBeGreaterThanOrEqual(1);
      const acquiredByB = Date.parse(spec.acquireTime!);
      if (process.env.SHIPLOG_TEST_FIGURES)
        console.log(`takeover: ${acquiredByB - lastRenewByA} ms after the last renewal, ${acquiredByB - killedAt} ms after the kill`);
      // client-go's rule: the standby waits a full lease duration from the last renewal it saw (one machine's
      // clock: the Lease's own times). A slow machine only makes it later.
      expect(acquiredByB - lastRenewByA).toBeGreaterThanOrEqual(LEASE_DURATION_MS);

      // No interval with two leaders posting: every call of ctl-a (even one cut off by the kill) came before ctl-b
      // acquired the lease, and every call of ctl-b after.
      const calls = emulator!.requests.list({ route: CLUSTER_ROUTE });
      const by = (who: string) => calls.filter((c) => c.userAgent?.includes(`(${who})`)).map((c) => Date.parse(c.time));
      expect(calls.every((c) => /\((ctl-a|ctl-b)\)/.test(c.userAgent ?? ""))).toBe(true);
      const fromA = by("ctl-a");
      const fromB = by("ctl-b");
      expect(fromA.length).toBeGreaterThan(0);
      expect(fromB.length).toBeGreaterThan(0);
      expect(Math.max(...fromA)).toBeLessThan(acquiredByB);
      expect(Math.min(...fromB)).toBeGreaterThanOrEqual(acquiredByB);
      expect(b.logs.some((l) => l.msg === "became leader")).toBe(true);
    } finally {
      clearInterval(watcher);
    }

    // SIGTERM on the new leader: it flushes, writes its state and releases the Lease for the next one.
    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
    expect(lease()!.spec.holderIdentity).toBe("");
    expect(stateData()?.["written-by"]).toBe("ctl-b");
    expect(expectedRecords(cluster!).size).toBe(names.length);
  });
});
