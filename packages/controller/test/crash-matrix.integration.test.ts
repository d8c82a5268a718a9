// The crash matrix: the controller as its own process (`node dist/main.js`, state ConfigMap on) is killed with
// SIGKILL at each point of a flush, while that flush sends the records of three new workloads; while no controller
// runs, one of them is deleted, one scaled to zero and one rolled to a new image; then the controller is restarted
// (restart) or a standby already running takes over (takeover). Every cell must end with the emulator's deployed
// records equal to what the cluster runs: 0 stale, 0 missing.
//
// The points are hit exactly by the test hook (SHIPLOG_TEST_CRASH_AT: crash-entry.ts, crash-hook.ts), which
// arms in the flush sending `shop-gone-app` and kills the process at the point; "in-flight" adds an emulator latency
// fault so the service holds the request when the process dies (and applies it afterwards). The last three points
// are inside a compaction of the sharded state: every process of those cells runs with tiny state limits
// (SHIPLOG_TEST_STATE_LIMITS), so each write folds the journal into several shard ConfigMaps before appending, and
// the answer write's compaction is where the process dies: after a first shard slot is written, with every slot
// written but the head not switched, and with the head switch issued. They run twice: compacting before each
// append (head limit 0), and compacting ahead of need (head limit 1 byte: each append starts a compaction whose slots
// are written beside the writes, and whose head switch the next write or the store's queue makes).
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { deployedRecords, expectedRecords, REPO, sorted } from "./scenario-harness.js";
import { pool } from "../../../test/kit/pool.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const STATE = "shiplog-controller-state";
const LEASE = "shiplog-controller";
// Durations a loaded machine keeps: a leader that cannot renew for the renew deadline stops (no cell wants that).
const LEASE_TIMING = { SHIPLOG_LEASE_DURATION: "6s", SHIPLOG_RENEW_DEADLINE: "4s", SHIPLOG_RETRY_PERIOD: "1s" };
const POINTS = ["before-send", "in-flight", "after-answer", "state-write", "shard-written", "before-head-switch", "head-switch"] as const;
const COMPACTION_POINTS: readonly string[] = ["shard-written", "before-head-switch", "head-switch"];
/** Compact before every append (head 0) into shards of a record or two (400 bytes): several slots per compaction. */
const TINY_STATE = { SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=400" };
/** The same shards, each compaction started ahead of need after an append (head 1 byte): slots written beside the writes. */
const AHEAD_STATE = { SHIPLOG_TEST_STATE_LIMITS: "head=1,shard=400" };
const MODES = ["restart", "takeover"] as const;
const CHANGES = ["deleted", "scaled to 0", "rolled"] as const;
const LATENCY_MS = 1500;
/** Cells run side by side, each with its own fake cluster, emulator and controller processes. */
const PARALLEL = 4;
const DEADLINE_MS = 60_000;

type Point = (typeof POINTS)[number];
type Mode = (typeof MODES)[number];
interface CellResult {
  point: Point;
  /** The point and how the compaction ran ("ahead shard-written"), for the table and messages. */
  label: string;
  mode: Mode;
  /** Per change: deployed records at the service that the cluster no longer runs / runs but the service lacks. */
  stale: Record<(typeof CHANGES)[number], number>;
  missing: number;
  staleTotal: number;
  killedByHook: boolean;
  /** `data.in-flight` of the state ConfigMap at the end. */
  inFlight: string | undefined;
  /** Shard slot ConfigMaps the killed process wrote (compaction cells). */
  slotsByKilled: number;
}

const processes: ControllerProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.stop()));
});

const image = (name: string, version: string) => `ghcr.io/acme/${name}:${version}`;

async function runCell(point: Point, mode: Mode, ahead: boolean): Promise<CellResult> {
  const cluster: FakeCluster = await startFakeCluster({ nodes: ["node-1"] });
  const emulator: Emulator = await startEmulator({ port: 0 });
  servers.push(cluster, emulator);
  cluster.script.ensureNamespace("shiplog");
  await cluster.script.createDeployment({ namespace: "shop", name: "base", image: image("base", "1.0"), annotations: REPO });
  const limits = COMPACTION_POINTS.includes(point) ? (ahead ? AHEAD_STATE : TINY_STATE) : {};
  const start = (env: Record<string, string>) => {
    const p = startControllerProcess(cluster, emulator, { SHIPLOG_STATE_CONFIGMAP: STATE, ...limits, ...env });
    processes.push(p);
    return p;
  };
  const election = mode === "takeover" ? { SHIPLOG_LEASE_NAME: LEASE, ...LEASE_TIMING } : {};
  const crashing = start({ POD_NAME: "ctl-crash", SHIPLOG_TEST_CRASH_AT: `${point}:shop-gone-app`, ...election });
  const sameRecords = () => expect(sorted(deployedRecords(emulator))).toEqual(sorted(expectedRecords(cluster)));
  // Deadlines, not timings: generous, for a loaded machine (process start and informer lists).
  await vi.waitFor(sameRecords, { ...WAIT, timeout: DEADLINE_MS });
  if (mode === "takeover") {
    const standby = start({ POD_NAME: "ctl-standby", ...election });
    await vi.waitFor(async () => expect((await standby.get("/readyz")).body).toBe("ok: standby\n"), { ...WAIT, timeout: DEADLINE_MS });
  }

  // The flush that will crash: three new workloads at once.
  const fault = point === "in-flight" ? emulator.faults.add({ kind: "latency", latencyMs: LATENCY_MS, route: CLUSTER_ROUTE }) : undefined;
  await cluster.script.createDeployments(
    ["gone", "zero", "roll"].map((name) => ({
      namespace: "shop",
      name,
      containers: [{ name: "app", image: image(name, "1.0") }],
      annotations: REPO,
    })),
  );
  await Promise.race([crashing.exited, new Promise((resolve) => setTimeout(resolve, DEADLINE_MS))]);
  if (process.env.SHIPLOG_CRASH_DEBUG) console.log(crashing.output().slice(-3000));
  const killedByHook = crashing.child.signalCode === "SIGKILL";
  // Slots the killed compaction wrote: by the killed process, after the last head write it made.
  const dataOf = (name: string) =>
    (cluster.store.get("configmaps", "shiplog", name) as { data?: Record<string, string> } | undefined)?.data ?? {};
  const headWrittenAt = Date.parse(dataOf(STATE)["written-at"] ?? "");
  const slotsByKilled = cluster.store
    .list("configmaps", { namespace: "shiplog" })
    .map((c) => dataOf(c.metadata.name ?? ""))
    .filter((d) => d.head === STATE && d["written-by"] === "ctl-crash" && Date.parse(d["written-at"] ?? "") > headWrittenAt).length;
  if (fault !== undefined) {
    // The held request is answered (and applied) after the process died; then the fault goes.
    await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 200));
    emulator.faults.remove(fault);
  }

  // While no controller runs.
  await cluster.script.delete("deployments", "shop", "gone");
  await cluster.script.scale("deployments", "shop", "zero", 0);
  await cluster.script.setImage("shop", "roll", { app: image("roll", "2.0") });
  await cluster.settle();

  if (mode === "restart") start({ POD_NAME: "ctl-restarted" });
  try {
    await vi.waitFor(sameRecords, { ...WAIT, timeout: DEADLINE_MS });
    // Nothing stays uncertain once everything has landed: the write-ahead set is empty again.
    await vi.waitFor(
      () => expect((cluster.store.get("configmaps", "shiplog", STATE) as { data?: Record<string, string> }).data?.["in-flight"]).toBe("0"),
      { ...WAIT, timeout: DEADLINE_MS },
    );
  } catch {
    // Counted below and asserted by the caller, with the matrix printed first.
  }
  const deployed = deployedRecords(emulator);
  const expected = expectedRecords(cluster);
  const rolled = cluster.imageIdFor(image("roll", "2.0")).split("@")[1];
  return {
    point,
    label: ahead ? `ahead ${point}` : point,
    mode,
    stale: {
      deleted: deployed.has("shop-gone-app") ? 1 : 0,
      "scaled to 0": deployed.has("shop-zero-app") ? 1 : 0,
      rolled: deployed.get("shop-roll-app") !== rolled ? 1 : 0,
    },
    staleTotal: [...deployed].filter(([name, digest]) => expected.get(name) !== digest).length,
    missing: [...expected].filter(([name]) => !deployed.has(name)).length,
    killedByHook,
    inFlight: (cluster.store.get("configmaps", "shiplog", STATE) as { data?: Record<string, string> } | undefined)?.data?.["in-flight"],
    slotsByKilled,
  };
}

describe("crash matrix (controller processes, kill -9)", () => {
  it("every point of a flush × deletions, scale to zero, rollouts while down × restart, takeover: 0 stale, 0 missing", async () => {
    // SHIPLOG_CRASH_CELLS=before-send/restart,… runs only those cells (when investigating one).
    const only = process.env.SHIPLOG_CRASH_CELLS?.split(",");
    const variants = [
      ...POINTS.map((point) => ({ point, ahead: false })),
      ...POINTS.filter((point) => COMPACTION_POINTS.includes(point)).map((point) => ({ point, ahead: true })),
    ];
    const cells = variants.flatMap(({ point, ahead }) =>
      MODES.filter((mode) => !only || only.includes(`${ahead ? "ahead-" : ""}${point}/${mode}`)).map(
        (mode) => () => runCell(point, mode, ahead),
      ),
    );
    const results = await pool(cells, PARALLEL);
    const head = [
      "point",
      "then",
      ...CHANGES.map((c) => `${c}: stale`),
      "stale",
      "missing",
      "in flight at end",
      "killed at point",
      "slots left by killed",
    ];
    const rows = results.map((r) => [
      r.label,
      r.mode,
      ...CHANGES.map((c) => String(r.stale[c])),
      String(r.staleTotal),
      String(r.missing),
      r.inFlight ?? "-",
      r.killedByHook ? "yes" : "NO",
      COMPACTION_POINTS.includes(r.point) ? String(r.slotsByKilled) : "-",
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
    console.log(
      [
        "crash matrix (emulator records vs cluster after recovery):",
        line(head),
        line(widths.map((w) => "-".repeat(w))),
        ...rows.map(line),
      ].join("\n"),
    );
    for (const r of results) {
      expect(r.killedByHook, `${r.label}/${r.mode}: the hook killed the process`).toBe(true);
      // Killed inside a compaction of several shards: one slot written of several, or all of them.
      if (r.point === "shard-written") expect(r.slotsByKilled, `${r.label}/${r.mode}: slots written before the kill`).toBe(1);
      if (r.point === "before-head-switch")
        expect(r.slotsByKilled, `${r.label}/${r.mode}: slots written before the kill`).toBeGreaterThanOrEqual(2);
      expect(r.inFlight, `${r.label}/${r.mode}: the write-ahead set is empty at the end`).toBe("0");
      expect({ cell: `${r.label}/${r.mode}`, stale: r.staleTotal, missing: r.missing }).toEqual({
        cell: `${r.label}/${r.mode}`,
        stale: 0,
        missing: 0,
      });
    }
  }, 600_000);
});
