// The damage matrix: the controller as its own process (`node dist/main.js`, state ConfigMap on, tiny state limits so
// a few records spread over several shard ConfigMaps) syncs seven workloads, is killed (kill -9), and its state is
// damaged in one way per cell; while no controller runs, one workload is deleted, one scaled to zero and one rolled to
// a new image; then the controller is restarted. Every cell must end with 0 stale records at the service, or with the
// damage reported: /readyz failing with what was lost, shiplog_controller_state_damaged 1, and
// shiplog_controller_state_records_at_risk at least the records left stale (what the alert ShiplogStateDamaged says).
//
// The shard corruptions hit the shard holding the workload deleted while down (found by decoding the slots); the
// others may share it or not, so a cell shows what the damage to one shard costs, against the records the state held. The pure decisions are unit-tested in state-recovery.test.ts,
// the store's handling of each corruption in state-damage.test.ts.
import { CoreV1Api, KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { decodeRecordSet } from "@shiplog/controller/internal";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { WAIT } from "../../../test/kit/wait.js";
import { deployedRecords, expectedRecords, REPO, sorted } from "./scenario-harness.js";
import { pool } from "../../../test/kit/pool.js";

const STATE = "shiplog-controller-state";
const NS = "shiplog";
/** Compact before every append, into shards of a record or two: several slots, each written more than once. */
const TINY_STATE = { SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=520" };
const CHANGES = ["deleted", "scaled to 0", "rolled"] as const;
const CHANGED = { deleted: "gone", "scaled to 0": "zero", rolled: "roll" } as const;
const PARALLEL = 4;
const DEADLINE_MS = 60_000;

type Slots = { name: string; map: V1ConfigMap }[];
interface Damage {
  name: string;
  /** Damages the state of a stopped controller; `target` is the current slot holding the deleted workload. */
  apply(api: CoreV1Api, ctx: { head: V1ConfigMap; target: Slots }): Promise<unknown>;
  /** What the cell must end with: nothing lost, or damage reported. */
  expect: "exact" | "reported";
}

const replace = (api: CoreV1Api, map: V1ConfigMap) =>
  api.replaceNamespacedConfigMap({ name: map.metadata!.name!, namespace: NS, body: map });
const editTable = (api: CoreV1Api, head: V1ConfigMap, target: Slots, edit: (row: { slot: "a" | "b" | null; checksum: string }) => void) => {
  const table = JSON.parse(head.data!.shards!) as { slot: "a" | "b" | null; checksum: string }[];
  for (const { name } of target) edit(table[Number(/-shard-(\d+)-/.exec(name)![1])]!);
  return replace(api, { ...head, data: { ...head.data, shards: JSON.stringify(table) } });
};
const other = (slot: "a" | "b" | null) => (slot === "a" ? "b" : "a");

const DAMAGES: Damage[] = [
  {
    name: "deleted shard",
    apply: async (api, { target }) => {
      for (const { name } of target) await api.deleteNamespacedConfigMap({ name, namespace: NS });
    },
    expect: "reported",
  },
  {
    // Both slots gone: no previous content to fall back to; what the shards held stays stale, and is counted at risk.
    name: "deleted shard, both slots",
    apply: async (api, { target }) => {
      for (const { name } of target)
        for (const slot of ["a", "b"])
          await api.deleteNamespacedConfigMap({ name: name.replace(/-[ab]$/, `-${slot}`), namespace: NS }).catch(() => undefined);
    },
    expect: "reported",
  },
  {
    name: "invalid shards JSON",
    apply: (api, { head }) => replace(api, { ...head, data: { ...head.data, shards: "[{not json" } }),
    expect: "reported",
  },
  {
    name: "head naming a spare slot",
    apply: (api, { head, target }) => editTable(api, head, target, (row) => (row.slot = other(row.slot))),
    expect: "exact",
  },
  {
    name: "head naming a missing slot",
    apply: async (api, { head, target }) => {
      for (const { name } of target)
        await api
          .deleteNamespacedConfigMap({ name: name.replace(/-([ab])$/, (_, s: "a" | "b") => `-${other(s)}`), namespace: NS })
          .catch(() => undefined);
      await editTable(api, head, target, (row) => (row.slot = other(row.slot)));
    },
    expect: "exact",
  },
  {
    name: "garbage records.gz",
    apply: async (api, { target }) => {
      for (const { map } of target)
        await replace(api, { ...map, binaryData: { ...map.binaryData, "records.gz": Buffer.from("garbage").toString("base64") } });
    },
    expect: "reported",
  },
  {
    name: "unknown format version",
    apply: (api, { head }) => replace(api, { ...head, data: { ...head.data, format: "shiplog-state v9" } }),
    expect: "reported",
  },
  {
    name: "deleted head",
    apply: (api) => api.deleteNamespacedConfigMap({ name: STATE, namespace: NS }).then(() => undefined),
    expect: "reported",
  },
  {
    name: "checksum mismatch",
    apply: (api, { head, target }) => editTable(api, head, target, (row) => (row.checksum = "0".repeat(64))),
    expect: "reported",
  },
];

interface CellResult {
  damage: string;
  expected: Damage["expect"];
  stale: Record<(typeof CHANGES)[number], number>;
  staleTotal: number;
  missing: number;
  /** Shard slots the corruption hit. */
  targets: number;
  /** Records (and in-flight entries) the state held before the damage. */
  held: number;
  damaged: number;
  atRisk: number;
  ready: number;
  reason: string;
  keptAside: number;
}

const processes: ControllerProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.stop()));
});

const image = (name: string, version: string) => `ghcr.io/acme/${name}:${version}`;

/** The current slot (as the head names it) holding the deleted workload's record: the shard the damage hits. */
async function targetSlots(api: CoreV1Api, head: V1ConfigMap): Promise<Slots> {
  const table = JSON.parse(head.data!.shards!) as { slot: "a" | "b" | null }[];
  const out: Slots = [];
  for (const [index, row] of table.entries()) {
    if (!row.slot) continue;
    const name = `${STATE}-shard-${index}-${row.slot}`;
    const map = await api.readNamespacedConfigMap({ name, namespace: NS });
    const set = (text: string | undefined, digests: string | undefined) =>
      text ? decodeRecordSet({ text: Buffer.from(text, "base64"), digests: Buffer.from(digests ?? "", "base64") }).records : [];
    const names = [
      ...set(map.binaryData?.["records.gz"], map.binaryData?.digests),
      ...set(map.binaryData?.["in-flight.gz"], map.binaryData?.["in-flight-digests"]),
    ].map((r) => r.entry.deployment_name);
    if (names.includes("shop-gone-app")) out.push({ name, map });
  }
  return out;
}

async function runCell(damage: Damage): Promise<CellResult> {
  const cluster: FakeCluster = await startFakeCluster({ nodes: ["node-1"] });
  const emulator: Emulator = await startEmulator({ port: 0 });
  servers.push(cluster, emulator);
  cluster.script.ensureNamespace(NS);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const start = (pod: string) => {
    const p = startControllerProcess(cluster, emulator, { SHIPLOG_STATE_CONFIGMAP: STATE, POD_NAME: pod, ...TINY_STATE });
    processes.push(p);
    return p;
  };
  const sameRecords = () => expect(sorted(deployedRecords(emulator))).toEqual(sorted(expectedRecords(cluster)));
  const settled = async () => {
    const head = await api.readNamespacedConfigMap({ name: STATE, namespace: NS });
    expect(head.data?.["in-flight"]).toBe("0");
  };
  const first = start("ctl-first");
  for (const name of ["base", "keep-1", "keep-2", ...Object.values(CHANGED)])
    await cluster.script.createDeployment({
      namespace: "shop",
      name,
      containers: [{ name: "app", image: image(name, "1.0") }],
      annotations: REPO,
    });
  await vi.waitFor(sameRecords, { ...WAIT, timeout: DEADLINE_MS });
  await vi.waitFor(settled, { ...WAIT, timeout: DEADLINE_MS });
  // One more round after the sync: its writes fold the answers into the shards as records (not in-flight entries).
  await cluster.script.createDeployment({
    namespace: "shop",
    name: "later",
    containers: [{ name: "app", image: image("later", "1.0") }],
    annotations: REPO,
  });
  await vi.waitFor(sameRecords, { ...WAIT, timeout: DEADLINE_MS });
  await vi.waitFor(settled, { ...WAIT, timeout: DEADLINE_MS });
  first.child.kill("SIGKILL");
  await first.exited;

  // The damage, then the changes, while no controller runs.
  const head = await api.readNamespacedConfigMap({ name: STATE, namespace: NS });
  const target = await targetSlots(api, head);
  await damage.apply(api, { head, target });
  await cluster.script.delete("deployments", "shop", "gone");
  await cluster.script.scale("deployments", "shop", "zero", 0);
  await cluster.script.setImage("shop", "roll", { app: image("roll", "2.0") });
  await cluster.settle();
  const rolled = cluster.imageIdFor(image("roll", "2.0")).split("@")[1];

  const restarted = start("ctl-restarted");
  let reason = "";
  try {
    // Done: what the cluster runs has landed and nothing waits to be sent; then either nothing stale, or the damage said.
    await vi.waitFor(
      async () => {
        expect(deployedRecords(emulator).get("shop-roll-app")).toBe(rolled);
        expect(deployedRecords(emulator).get("shop-later-app")).toBeDefined();
        expect(await restarted.metric("shiplog_controller_pending_records")).toBe(0);
        const ready = await restarted.get("/readyz");
        reason = ready.body.trim();
        expect(ready.status === 200 || reason.includes("acknowledged state damaged")).toBe(true);
      },
      { ...WAIT, timeout: DEADLINE_MS },
    );
    if (damage.expect === "exact") await vi.waitFor(sameRecords, { ...WAIT, timeout: DEADLINE_MS });
  } catch {
    // Counted below and asserted by the caller, with the matrix printed first.
  }
  if (process.env.SHIPLOG_DAMAGE_DEBUG) console.log(restarted.output().slice(-4000));
  const deployed = deployedRecords(emulator);
  const expected = expectedRecords(cluster);
  const copies = (await api.listNamespacedConfigMap({ namespace: NS })).items.filter((c) => c.metadata?.name?.includes("-damaged-"));
  return {
    damage: damage.name,
    expected: damage.expect,
    stale: {
      deleted: deployed.has("shop-gone-app") ? 1 : 0,
      "scaled to 0": deployed.has("shop-zero-app") ? 1 : 0,
      rolled: deployed.get("shop-roll-app") !== rolled ? 1 : 0,
    },
    staleTotal: [...deployed].filter(([name, digest]) => expected.get(name) !== digest).length,
    missing: [...expected].filter(([name]) => !deployed.has(name)).length,
    targets: target.length,
    held: Number(head.data?.records ?? 0) + Number(head.data?.["in-flight"] ?? 0),
    damaged: await restarted.metric("shiplog_controller_state_damaged"),
    atRisk: await restarted.metric("shiplog_controller_state_records_at_risk"),
    ...(await restarted.get("/readyz").then((r) => ({ ready: r.status, reason: r.body.trim() }))),
    keptAside: copies.length,
  };
}

describe("damage matrix (controller processes, kill -9, damaged state)", () => {
  it("each corruption × deletions, scale to zero, rollouts while down: 0 stale, or the damage reported naming what is at risk", async () => {
    // SHIPLOG_DAMAGE_CELLS="deleted shard,deleted head" runs only those cells.
    const only = process.env.SHIPLOG_DAMAGE_CELLS?.split(",");
    const results = await pool(
      DAMAGES.filter((d) => !only || only.includes(d.name)).map((d) => () => runCell(d)),
      PARALLEL,
    );
    const head = [
      "damage",
      "slots hit",
      "state held",
      ...CHANGES.map((c) => `${c}: stale`),
      "stale",
      "missing",
      "damaged",
      "at risk",
      "readyz",
      "kept aside",
      "reason",
    ];
    const rows = results.map((r) => [
      r.damage,
      String(r.targets),
      String(r.held),
      ...CHANGES.map((c) => String(r.stale[c])),
      String(r.staleTotal),
      String(r.missing),
      String(r.damaged),
      String(r.atRisk),
      String(r.ready),
      String(r.keptAside),
      r.ready === 200 ? "-" : r.reason.replace(/^not ready: /, "").slice(0, 160),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
    console.log(
      [
        "damage matrix (emulator records vs cluster after the restart):",
        line(head),
        line(widths.map((w) => "-".repeat(w))),
        ...rows.map(line),
        "",
        "readiness, in full:",
        ...results.map((r) => `${r.damage}: ${r.ready} ${r.reason}`),
      ].join("\n"),
    );
    for (const r of results) {
      const cell = r.damage;
      expect(r.missing, `${cell}: nothing the cluster runs is missing`).toBe(0);
      if (r.expected === "exact") {
        // The other slot holds what the head's checksum says: nothing lost, nothing reported.
        expect({ cell, stale: r.staleTotal, damaged: r.damaged, ready: r.ready }).toEqual({ cell, stale: 0, damaged: 0, ready: 200 });
        continue;
      }
      // Reported, whether or not anything stayed stale: the state could not be read back exactly.
      expect({ cell, damaged: r.damaged, ready: r.ready }).toEqual({ cell, damaged: 1, ready: 503 });
      expect(r.reason, cell).toContain("acknowledged state damaged");
      expect(r.reason, cell).toContain("runbook: ShiplogStateDamaged");
      // What is at risk covers what stayed stale.
      expect(r.atRisk, `${cell}: records at risk cover the stale ones`).toBeGreaterThanOrEqual(r.staleTotal);
      expect(r.atRisk, `${cell}: something is at risk`).toBeGreaterThan(0);
      if (!cell.startsWith("deleted")) expect(r.keptAside, `${cell}: the damaged objects are kept aside`).toBeGreaterThan(0);
    }
  }, 600_000);
});
