// The ConfigMap store reading a damaged state, against the fake cluster's ConfigMap API: each corruption costs at
// most the damaged piece; what is readable is kept; the damaged objects are copied aside before anything is written
// over them; the damage is recorded in the head (so a restart keeps reporting it) until an operator clears it; a
// lost head is told from a first start by the witness. The same corruptions with controller processes, deletions,
// scale to zero and rollouts while down: test/damage-matrix.integration.test.ts.
import { CoreV1Api, type V1ConfigMap } from "@kubernetes/client-node";
import {
  DryRunAcknowledgedStore,
  STATE_LAYOUT,
  StateConfigMaps,
  StateConflictError,
  encodeShard,
  shardOf,
  slotName,
  writeShardSlots,
  type SlotWriteContext,
  type StateWriteStep,
} from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { bigState, byKey } from "./state-fixtures.js";
import { NAMESPACE, TINY, acked, useStateStores } from "./state-store-fixture.js";

const { fake, store, configMap, reread, shardTable, nextName } = useStateStores("damage");
const api = () => fake.kubeConfig.makeApiClient(CoreV1Api);
const read = (name: string) => api().readNamespacedConfigMap({ name, namespace: NAMESPACE });
const replace = (name: string, body: V1ConfigMap) => api().replaceNamespacedConfigMap({ name, namespace: NAMESPACE, body });
const remove = (name: string) => api().deleteNamespacedConfigMap({ name, namespace: NAMESPACE });
const names = () =>
  fake.cluster.store
    .list("configmaps", { namespace: NAMESPACE })
    .map((c) => c.metadata.name ?? "")
    .sort();

/**
 * A state of 30 records over several shards, compacted four times (so shards have both slots), an intent and two records in
 * its journal; `index` a shard whose both slots exist, `named` the slot the head names for it.
 */
async function sharded(name: string) {
  const records = bigState(30);
  const s = await reread(name, { limits: TINY });
  // Each write folds the one before into the shards (head limit 0); the last, an intent, folds the third batch.
  for (const batch of [records.slice(0, 10), records.slice(10, 20), records.slice(20)]) {
    s.acknowledge(batch);
    await s.persist();
  }
  s.intend(bigState(1, "intent"));
  await s.persist();
  const journal = [acked("journal-a"), acked("journal-b")];
  const appending = await reread(name, { limits: { ...TINY, headMaxBytes: 1024 * 1024 } });
  appending.acknowledge(journal);
  await appending.persist();
  const table = shardTable(name);
  const index = table.findIndex((t, i) => t.slot !== null && t.records > 0 && configMap(slotName(name, i, t.slot === "a" ? "b" : "a")));
  expect(index).toBeGreaterThanOrEqual(0);
  const all = [...appending.all().values()];
  const inFlight = appending.inFlight().size;
  return { all, inFlight, table, index, named: slotName(name, index, table[index]!.slot!) };
}

type Corruption = (name: string, ctx: Awaited<ReturnType<typeof sharded>>) => Promise<void>;
const headTable = async (name: string, edit: (table: Record<string, unknown>[]) => void) => {
  const head = await read(name);
  const table = JSON.parse(head.data!.shards!) as Record<string, unknown>[];
  edit(table);
  await replace(name, { ...head, data: { ...head.data, shards: JSON.stringify(table) } });
};

const CORRUPTIONS: [string, Corruption, { piece: RegExp; atRiskOfShard?: true; atRiskAll?: true }][] = [
  [
    "a deleted shard",
    (_, c) => remove(c.named).then(() => undefined),
    { piece: /is missing; .* was read in its place/, atRiskOfShard: true },
  ],
  [
    "garbage records.gz",
    async (_, c) => {
      const slot = await read(c.named);
      await replace(c.named, { ...slot, binaryData: { ...slot.binaryData, "records.gz": Buffer.from("garbage").toString("base64") } });
    },
    { piece: /is unreadable \(acknowledged state is not gzip data/, atRiskOfShard: true },
  ],
  [
    "a checksum mismatch",
    (name, c) =>
      headTable(name, (t) => {
        t[c.index]!.checksum = "0".repeat(64);
      }),
    {
      piece: /holds another content than the head names \(checksum [0-9a-f]{12}, head 000000000000\); its own verified content was read/,
      atRiskOfShard: true,
    },
  ],
  [
    "a head naming the spare slot",
    (name, c) =>
      headTable(name, (t) => {
        t[c.index]!.slot = t[c.index]!.slot === "a" ? "b" : "a";
      }),
    // The other slot holds what the head's checksum says: read, nothing lost.
    { piece: /^$/ },
  ],
  [
    "a head naming a missing slot",
    async (name, c) => {
      const spare = c.table[c.index]!.slot === "a" ? "b" : "a";
      await remove(slotName(name, c.index, spare)).catch(() => undefined);
      await headTable(name, (t) => {
        t[c.index]!.slot = spare;
      });
    },
    // The slot the head should name still holds what its checksum says: nothing is lost.
    { piece: /^$/ },
  ],
  [
    "invalid shards JSON",
    async (name) => {
      const head = await read(name);
      await replace(name, { ...head, data: { ...head.data, shards: "[{not json" } });
    },
    { piece: /data\.shards is not JSON; read back \d+ records from the newest verified slot of each shard/, atRiskAll: true },
  ],
  [
    "an unknown format version",
    async (name) => {
      const head = await read(name);
      await replace(name, { ...head, data: { ...head.data, format: "shiplog-state v9" } });
    },
    { piece: /has format "shiplog-state v9", which this version cannot read; read back/, atRiskAll: true },
  ],
];

describe("ConfigMapAcknowledgedStore with a damaged state", () => {
  it.each(CORRUPTIONS)(
    "%s costs at most the damaged piece, is kept aside, recorded, and cleared by the operator",
    async (_, corrupt, expected) => {
      const name = nextName();
      const ctx = await sharded(name);
      const before = new Set(names());
      await corrupt(name, ctx);
      const headBefore = configMap(name)!;
      const s = await reread(name, { limits: TINY });
      if (expected.piece.source === "^$") {
        expect(s.damage).toBeUndefined();
        expect(byKey(s.all().values())).toEqual(byKey(ctx.all));
        return;
      }
      const damage = s.damage!;
      expect(damage.pieces.map((p) => p.what).join("\n")).toMatch(expected.piece);
      // Every record of the shards not damaged, and the journal, read back.
      const journal = new Set([acked("journal-a"), acked("journal-b")].map((r) => r.key));
      const others = ctx.all.filter((r) => journal.has(r.key) || shardOf(r.key, ctx.table.length) !== ctx.index);
      for (const r of others) expect(s.all().has(r.key), r.entry.deployment_name).toBe(true);
      const shard = ctx.table[ctx.index]!;
      if (expected.atRiskOfShard) expect(damage.atRisk).toBe(shard.records + (shard as { inFlight?: number }).inFlight!);
      if (expected.atRiskAll) expect(damage.atRisk).toBe(ctx.all.length + ctx.inFlight);
      // Kept aside before anything was written over them: the head as it was, and the damaged slots.
      expect(damage.keptAside.length).toBeGreaterThanOrEqual(1);
      for (const copy of damage.keptAside) expect(names()).toContain(copy);
      const headCopy = configMap(damage.keptAside.find((n) => n.startsWith(`${name}-damaged-`))!)!;
      expect(headCopy.data).toMatchObject({ ...headBefore.data, "damaged-copy-of": name });
      // Recorded in the head at once, written anew: the next load reports the same damage, copying nothing more.
      expect(configMap(name)!.data).toMatchObject({ format: STATE_LAYOUT, damage: JSON.stringify(damage) });
      const copies = names().filter((n) => !before.has(n));
      const again = await reread(name, { limits: TINY });
      expect(again.damage).toEqual(damage);
      expect(byKey(again.all().values())).toEqual(byKey(s.all().values()));
      expect(names().filter((n) => !before.has(n))).toEqual(copies);
      // The operator clears it once recovered (runbook ShiplogStateDamaged).
      const head = await read(name);
      const { damage: _damage, ...cleared } = head.data!;
      await replace(name, { ...head, data: cleared });
      expect((await reread(name, { limits: TINY })).damage).toBeUndefined();
    },
  );

  it("a deleted head is a lost state, not a first start: the slots are read back, the journal said lost, the head made anew", async () => {
    const name = nextName();
    await sharded(name);
    const witness = configMap(`${name}-witness`)!.data;
    await remove(name);
    const s = await reread(name, { limits: TINY });
    expect(s.damage!.pieces).toEqual([
      {
        what: expect.stringMatching(
          new RegExp(
            `^head ConfigMap ${NAMESPACE}/${name} is missing \\(the witness remembers head ${witness["state-uid"]}, of 31 records at .*\\); its journal is lost; read back 30 records`,
          ),
        ),
        atRisk: 31,
      },
    ]);
    // What the shards held is back; the two records of the lost journal are not (and are what is at risk).
    expect(byKey(s.all().values())).toEqual(byKey(bigState(30)));
    const head = configMap(name)!;
    expect(head.data).toMatchObject({ replaces: witness["state-uid"], damage: JSON.stringify(s.damage) });
    // The witness follows the new head; a reload keeps reporting the damage the head records.
    expect(configMap(`${name}-witness`)!.data["state-uid"]).not.toBe(witness["state-uid"]);
    expect((await reread(name, { limits: TINY })).damage).toEqual(s.damage);
  });

  it("a head replaced by one the witness does not know is damage; a first start is none; a state before witnesses is adopted", async () => {
    const name = nextName();
    await sharded(name);
    const old = await read(name);
    await remove(name);
    await api().createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: {
        metadata: { name },
        data: old.data!,
        binaryData: old.binaryData,
      },
    });
    const s = await reread(name, { limits: TINY });
    expect(s.damage!.pieces[0]!.what).toMatch(/is not the one the witness remembers .*: the state it held is lost/);
    expect(s.all().size).toBe(32);

    const fresh = await reread(nextName());
    expect(fresh.damage).toBeUndefined();

    // A state written before the witness existed: no witness, no damage; the next compaction writes one.
    const adopted = nextName();
    await sharded(adopted);
    await remove(`${adopted}-witness`);
    expect((await reread(adopted, { limits: TINY })).damage).toBeUndefined();
  });

  it("a garbage journal segment costs its keys only; segments after it still apply", async () => {
    const name = nextName();
    const s = await reread(name);
    const [one, two, three] = bigState(3, "seg");
    for (const r of [one!, two!, three!]) {
      s.acknowledge([r]);
      await s.persist();
    }
    const head = await read(name);
    await replace(name, {
      ...head,
      binaryData: { ...head.binaryData, "journal-000002.records.gz": Buffer.from("garbage").toString("base64") },
    });
    const again = await reread(name);
    expect([...again.all().keys()].sort()).toEqual([one!.key, three!.key].sort());
    expect(again.damage).toMatchObject({
      atRisk: 1,
      pieces: [{ what: expect.stringContaining("journal segment 2 is unreadable"), atRisk: 1 }],
    });
  });

  it.each(["shard-written", "before-head-switch", "head-switch"] as const)(
    "the write that records the damage stopped at %s (a kill): the next load ends where an uninterrupted one does",
    async (step) => {
      const name = nextName();
      const ctx = await sharded(name);
      await remove(ctx.named);
      const stops = (at: StateWriteStep) => {
        if (at === step) throw new Error(`stopped at ${at}`);
      };
      await expect(reread(name, { limits: TINY, onWriteStep: stops })).rejects.toThrow(`stopped at ${step}`);
      const after = await reread(name, { limits: TINY });
      // The same pieces, whether the stopped write's head switch landed (the damage recorded) or not (found again).
      expect(after.damage!.pieces).toEqual([
        {
          what: expect.stringMatching(new RegExp(`^shard ${ctx.index}: ${ctx.named} is missing; .* was read in its place$`)),
          atRisk: expect.any(Number),
        },
      ]);
      const journal = new Set([acked("journal-a"), acked("journal-b")].map((r) => r.key));
      for (const r of ctx.all.filter((r) => journal.has(r.key) || shardOf(r.key, ctx.table.length) !== ctx.index))
        expect(after.all().has(r.key), r.entry.deployment_name).toBe(true);
      expect(configMap(name)!.data.damage).toBe(JSON.stringify(after.damage));
      expect((await reread(name, { limits: TINY })).damage).toEqual(after.damage);
    },
  );

  it("a state the previous version wrote (no segment checksums, no slot partitions, no witness) is read whole: no damage", async () => {
    const name = nextName();
    const ctx = await sharded(name);
    const head = await read(name);
    const binaryData = Object.fromEntries(Object.entries(head.binaryData ?? {}).filter(([key]) => !key.endsWith(".check")));
    await replace(name, { ...head, binaryData });
    for (const [index, row] of ctx.table.entries())
      for (const slot of ["a", "b"] as const) {
        if (!row.slot || !configMap(slotName(name, index, slot))) continue;
        const map = await read(slotName(name, index, slot));
        const { partitions: _partitions, ...data } = map.data!;
        await replace(slotName(name, index, slot), { ...map, data });
      }
    await remove(`${name}-witness`);
    const s = await reread(name, { limits: TINY });
    expect(s.damage).toBeUndefined();
    expect(byKey(s.all().values())).toEqual(byKey(ctx.all));
    expect(s.inFlight().size).toBe(ctx.inFlight);
  });

  it("a dry run reports the damage, and neither copies nor writes anything", async () => {
    const name = nextName();
    const ctx = await sharded(name);
    await remove(ctx.named);
    const before = names();
    const version = configMap(name)!.metadata.resourceVersion;
    const dry = new DryRunAcknowledgedStore(store(name, { limits: TINY, readOnly: true }));
    await dry.load();
    expect(dry.damage!.pieces[0]!.what).toContain(`${ctx.named} is missing`);
    expect(dry.damage!.keptAside).toEqual([]);
    expect(names()).toEqual(before);
    expect(configMap(name)!.metadata.resourceVersion).toBe(version);
  });

  it("rewriting a state whose head table is unreadable writes over a slot that head seems to name, only at the version judged", async () => {
    const name = nextName();
    const ctx = await sharded(name);
    const head = await read(name);
    await replace(name, { ...head, data: { ...head.data, shards: "[{not json" } });
    const judged = configMap(name)!.metadata.resourceVersion;
    const maps = new StateConfigMaps(fake.kubeConfig, NAMESPACE, 5_000, {});
    const part = encodeShard({ records: bigState(2, "rewritten"), inFlight: [] });
    const slot = ctx.table[ctx.index]!.slot!;
    const planned = () => [
      {
        index: ctx.index,
        content: { records: [], inFlight: [] },
        ref: { slot, checksum: part.checksum, records: 2, inFlight: 0, bytes: part.bytes, versions: { a: null, b: null } },
        write: { slot, part },
      },
    ];
    const context = (damagedHead: string | null): SlotWriteContext => ({
      maps,
      head: name,
      stamp: () => ({ "written-by": "pod-rewrite" }),
      fence: () => undefined,
      current: () => true,
      onShardWritten: () => undefined,
      damagedHead,
    });
    const info = { written: 0, calls: 0 };
    // Without the reader's judgment, an unreadable table may name any slot: nothing is written over.
    await expect(writeShardSlots(planned(), context(null), info)).rejects.toBeInstanceOf(StateConflictError);
    await expect(writeShardSlots(planned(), context("another version"), info)).rejects.toBeInstanceOf(StateConflictError);
    expect(configMap(ctx.named)!.data["written-by"]).not.toBe("pod-rewrite");
    await writeShardSlots(planned(), context(judged), info);
    expect(configMap(ctx.named)!.data["written-by"]).toBe("pod-rewrite");
  });
});
