// The damage matrix, whatever the cluster: the corruptions of the acknowledged state, one cell's run (a controller
// process syncs seven workloads, is killed with kill -9, its state is damaged, one workload is deleted, one scaled to
// zero and one rolled while no controller runs, then a controller restarts), the printed matrix and what each cell
// must end with: 0 stale records at the service, or the damage reported (/readyz failing with what was lost,
// shiplog_controller_state_damaged 1, shiplog_controller_state_records_at_risk at least the records left stale).
// damage-matrix.integration.test.ts runs it on the fake cluster, damage-matrix.real.test.ts on a real control plane: a cluster
// is a `DamageWorld`.
//
// The shard corruptions hit the shard holding the workload deleted while down (found by decoding the slots); the
// others may share it or not, so a cell shows what the damage to one shard costs, against the records the state held.
import type { CoreV1Api, V1ConfigMap } from "@kubernetes/client-node";
import { decodeRecordSet } from "@shiplog/controller/internal";
import { expect, vi } from "vitest";
import type { ControllerProcess } from "../../../test/kit/controller-process.js";
import { WAIT } from "../../../test/kit/wait.js";
import { sorted } from "./scenario-harness.js";

/** The state ConfigMap's name (its shards are `<name>-shard-<i>-<a|b>`). */
export const STATE = "shiplog-controller-state";
/** What happens to a workload while no controller runs, by the workload it happens to. */
export const CHANGED = { deleted: "gone", "scaled to 0": "zero", rolled: "roll" } as const;
export const CHANGES = Object.keys(CHANGED) as (keyof typeof CHANGED)[];
/** The workloads each cell creates, besides `later` (created after the first sync). */
const WORKLOADS = ["base", "keep-1", "keep-2", ...Object.values(CHANGED)];

/**
 * The controller's settings that make its state tiny: compaction before every append, into shards of a record or
 * two, so a few records spread over several slots, each written more than once. The one place this test reaches
 * into the controller's test-only hooks; how they are injected may change, and only this function with it.
 */
export function tinyStateSettings(): Record<string, string> {
  return { SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=520" };
}

type Slots = { name: string; map: V1ConfigMap }[];

/** One corruption of a stopped controller's state. */
export interface Damage {
  name: string;
  /** Damages the state in `ns`; `target` is the current slot holding the deleted workload. */
  apply(api: CoreV1Api, ctx: { ns: string; head: V1ConfigMap; target: Slots }): Promise<unknown>;
  /** What the cell must end with: nothing lost, or damage reported. */
  expect: "exact" | "reported";
}

const replace = (api: CoreV1Api, ns: string, map: V1ConfigMap) =>
  api.replaceNamespacedConfigMap({ name: map.metadata!.name!, namespace: ns, body: map });
const editTable = (
  api: CoreV1Api,
  ns: string,
  head: V1ConfigMap,
  target: Slots,
  edit: (row: { slot: "a" | "b" | null; checksum: string }) => void,
) => {
  const table = JSON.parse(head.data!.shards!) as { slot: "a" | "b" | null; checksum: string }[];
  for (const { name } of target) edit(table[Number(/-shard-(\d+)-/.exec(name)![1])]!);
  return replace(api, ns, { ...head, data: { ...head.data, shards: JSON.stringify(table) } });
};
const other = (slot: "a" | "b" | null) => (slot === "a" ? "b" : "a");

/** Each corruption the state must survive or report. */
export const DAMAGES: Damage[] = [
  {
    name: "deleted shard",
    apply: async (api, { ns, target }) => {
      for (const { name } of target) await api.deleteNamespacedConfigMap({ name, namespace: ns });
    },
    expect: "reported",
  },
  {
    // Both slots gone: no previous content to fall back to; what the shards held stays stale, and is counted at risk.
    name: "deleted shard, both slots",
    apply: async (api, { ns, target }) => {
      for (const { name } of target)
        for (const slot of ["a", "b"])
          await api.deleteNamespacedConfigMap({ name: name.replace(/-[ab]$/, `-${slot}`), namespace: ns }).catch(() => undefined);
    },
    expect: "reported",
  },
  {
    name: "invalid shards JSON",
    apply: (api, { ns, head }) => replace(api, ns, { ...head, data: { ...head.data, shards: "[{not json" } }),
    expect: "reported",
  },
  {
    name: "head naming a spare slot",
    apply: (api, { ns, head, target }) => editTable(api, ns, head, target, (row) => (row.slot = other(row.slot))),
    expect: "exact",
  },
  {
    name: "head naming a missing slot",
    apply: async (api, { ns, head, target }) => {
      for (const { name } of target)
        await api
          .deleteNamespacedConfigMap({ name: name.replace(/-([ab])$/, (_, s: "a" | "b") => `-${other(s)}`), namespace: ns })
          .catch(() => undefined);
      await editTable(api, ns, head, target, (row) => (row.slot = other(row.slot)));
    },
    expect: "exact",
  },
  {
    name: "garbage records.gz",
    apply: async (api, { ns, target }) => {
      for (const { map } of target)
        await replace(api, ns, { ...map, binaryData: { ...map.binaryData, "records.gz": Buffer.from("garbage").toString("base64") } });
    },
    expect: "reported",
  },
  {
    name: "unknown format version",
    apply: (api, { ns, head }) => replace(api, ns, { ...head, data: { ...head.data, format: "shiplog-state v9" } }),
    expect: "reported",
  },
  {
    name: "deleted head",
    apply: (api, { ns }) => api.deleteNamespacedConfigMap({ name: STATE, namespace: ns }).then(() => undefined),
    expect: "reported",
  },
  {
    name: "checksum mismatch",
    apply: (api, { ns, head, target }) => editTable(api, ns, head, target, (row) => (row.checksum = "0".repeat(64))),
    expect: "reported",
  },
];

/** The damages a run asks for: all, or those `SHIPLOG_DAMAGE_CELLS="deleted shard,deleted head"` names. */
export function chosenDamages(): Damage[] {
  const only = process.env.SHIPLOG_DAMAGE_CELLS?.split(",");
  return DAMAGES.filter((d) => !only || only.includes(d.name));
}

/** A cluster a cell runs on: its workloads, the state's namespace, the records it should have and those it has. */
export interface DamageWorld {
  /** The namespace of the workloads and of the state ConfigMaps (the controller's POD_NAMESPACE). */
  ns: string;
  api: CoreV1Api;
  /** Creates a one-container (`app`) Deployment `name` running `version` of its image, linked to its repository. */
  createWorkload(name: string, version: string): Promise<void>;
  deleteWorkload(name: string): Promise<void>;
  scaleToZero(name: string): Promise<void>;
  /** Rolls the Deployment to `version`; resolves with the digest its pods will run. */
  roll(name: string, version: string): Promise<string>;
  /** Waits until the cluster has acted on the changes (pods gone, rolled, ...). */
  settle(): Promise<void>;
  /** What the cluster runs now, as deployment name -> digest (`expectedRecords`). */
  expected(): Promise<Map<string, string>>;
  /** The service's deployed records of this cluster, as deployment name -> digest. */
  deployed(): Map<string, string>;
  /** Starts a controller process (pod name `pod`) on this cluster with the state ConfigMap on and `env` added. */
  startController(pod: string, env: Record<string, string>): ControllerProcess;
}

/** What one cell ended with. */
export interface CellResult {
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

/** The current slot (as the head names it) holding the deleted workload's record: the shard the damage hits. */
async function targetSlots(api: CoreV1Api, ns: string, head: V1ConfigMap, deleted: string): Promise<Slots> {
  const table = JSON.parse(head.data!.shards!) as { slot: "a" | "b" | null }[];
  const out: Slots = [];
  for (const [index, row] of table.entries()) {
    if (!row.slot) continue;
    const name = `${STATE}-shard-${index}-${row.slot}`;
    const map = await api.readNamespacedConfigMap({ name, namespace: ns });
    const set = (text: string | undefined, digests: string | undefined) =>
      text ? decodeRecordSet({ text: Buffer.from(text, "base64"), digests: Buffer.from(digests ?? "", "base64") }).records : [];
    const names = [
      ...set(map.binaryData?.["records.gz"], map.binaryData?.digests),
      ...set(map.binaryData?.["in-flight.gz"], map.binaryData?.["in-flight-digests"]),
    ].map((r) => r.entry.deployment_name);
    if (names.includes(deleted)) out.push({ name, map });
  }
  return out;
}

/** Runs one cell of the matrix on `world`: `timeoutMs` bounds each wait. */
export async function runDamageCell(world: DamageWorld, damage: Damage, timeoutMs: number): Promise<CellResult> {
  const { api, ns } = world;
  const recordName = (workload: string) => `${ns}-${workload}-app`;
  const deadline = { ...WAIT, timeout: timeoutMs };
  const start = (pod: string) => world.startController(pod, { SHIPLOG_STATE_CONFIGMAP: STATE, POD_NAMESPACE: ns, ...tinyStateSettings() });
  const sameRecords = async () => expect(sorted(world.deployed())).toEqual(sorted(await world.expected()));
  const settled = async () => {
    const head = await api.readNamespacedConfigMap({ name: STATE, namespace: ns });
    expect(head.data?.["in-flight"]).toBe("0");
  };
  const first = start("ctl-first");
  for (const name of WORKLOADS) await world.createWorkload(name, "1.0");
  await vi.waitFor(sameRecords, deadline);
  await vi.waitFor(settled, deadline);
  // One more round after the sync: its writes fold the answers into the shards as records (not in-flight entries).
  await world.createWorkload("later", "1.0");
  await vi.waitFor(sameRecords, deadline);
  await vi.waitFor(settled, deadline);
  first.child.kill("SIGKILL");
  await first.exited;

  // The damage, then the changes, while no controller runs.
  const head = await api.readNamespacedConfigMap({ name: STATE, namespace: ns });
  const target = await targetSlots(api, ns, head, recordName(CHANGED.deleted));
  await damage.apply(api, { ns, head, target });
  await world.deleteWorkload(CHANGED.deleted);
  await world.scaleToZero(CHANGED["scaled to 0"]);
  const rolled = await world.roll(CHANGED.rolled, "2.0");
  await world.settle();

  const restarted = start("ctl-restarted");
  let reason = "";
  try {
    // Done: what the cluster runs has landed and nothing waits to be sent; then either nothing stale, or the damage said.
    await vi.waitFor(async () => {
      expect(world.deployed().get(recordName(CHANGED.rolled))).toBe(rolled);
      expect(world.deployed().get(recordName("later"))).toBeDefined();
      expect(await restarted.metric("shiplog_controller_pending_records")).toBe(0);
      const ready = await restarted.get("/readyz");
      reason = ready.body.trim();
      expect(ready.status === 200 || reason.includes("acknowledged state damaged")).toBe(true);
    }, deadline);
    if (damage.expect === "exact") await vi.waitFor(sameRecords, deadline);
  } catch {
    // Counted below and asserted by the caller, with the matrix printed first.
  }
  if (process.env.SHIPLOG_DAMAGE_DEBUG) console.log(restarted.output().slice(-4000));
  const deployed = world.deployed();
  const expected = await world.expected();
  const copies = (await api.listNamespacedConfigMap({ namespace: ns })).items.filter((c) => c.metadata?.name?.includes("-damaged-"));
  const result: CellResult = {
    damage: damage.name,
    expected: damage.expect,
    stale: {
      deleted: deployed.has(recordName(CHANGED.deleted)) ? 1 : 0,
      "scaled to 0": deployed.has(recordName(CHANGED["scaled to 0"])) ? 1 : 0,
      rolled: deployed.get(recordName(CHANGED.rolled)) !== rolled ? 1 : 0,
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
  restarted.child.kill("SIGKILL");
  await restarted.exited;
  return result;
}

/** Prints the matrix: one row per cell, then each cell's readiness in full. */
export function printDamageMatrix(title: string, results: CellResult[]): void {
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
      title,
      line(head),
      line(widths.map((w) => "-".repeat(w))),
      ...rows.map(line),
      "",
      "readiness, in full:",
      ...results.map((r) => `${r.damage}: ${r.ready} ${r.reason}`),
    ].join("\n"),
  );
}

/** What every cell must end with: nothing missing; 0 stale and nothing reported, or the damage reported covering the stale. */
export function expectDamageMatrix(results: CellResult[]): void {
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
}
