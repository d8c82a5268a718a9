// Compactions of the sharded state against the fake cluster: the state spread over shards within the limits, a
// round's writes carrying only its changes, the bound on shards, a compaction cut short at each step, compactions
// ahead of need beside the writes, a stale writer's compaction, and shards checked against the head.
import { CoreV1Api, Watch } from "@kubernetes/client-node";
import {
  AcknowledgedStateTooLargeError,
  encodeAcknowledgedState,
  encodeShard,
  StateConfigMaps,
  StateConflictError,
  slotName,
  writeShardSlots,
  type SlotWriteContext,
  type StateWriteInfo,
  type StateWriteStep,
} from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { Changes } from "../../../test/kit/events.js";
import { bigState, byKey } from "./state-fixtures.js";
import { NAMESPACE, TINY, useStateStores } from "./state-store-fixture.js";

const { fake, configMap, reread, stateMaps, shardTable, nextName } = useStateStores("compaction");
const kubeConfig = fake.kubeConfig;

/**
 * Resolves once `holds()` is true of what is stored: checked now and at each change of the head ConfigMap `name` the
 * API server reports (a watch opened first, so no change falls between the check and the watch).
 */
async function untilHead(name: string, holds: () => boolean): Promise<void> {
  const changes = new Changes();
  const watch = await new Watch(kubeConfig).watch(
    `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    { fieldSelector: `metadata.name=${name}` },
    () => changes.changed(),
    () => undefined,
  );
  try {
    await changes.until(holds);
  } finally {
    watch.abort();
  }
}

describe("ConfigMapAcknowledgedStore compactions", () => {
  it("20,000 records with their own digests spread over shards; a round of 1,000 intents and answers writes only those", async () => {
    const name = nextName();
    const records = bigState(20_000);
    const s = await reread(name, { limits: { headMaxBytes: 256 * 1024, shardMaxBytes: 256 * 1024 } });
    s.acknowledge(records);
    const cold = (await s.write())!;
    // Each shard has two slots (the current and the spare); every ConfigMap within Kubernetes' 1 MiB (the fake
    // cluster refuses anything larger, as the API server does).
    expect(cold.shards).toBeGreaterThanOrEqual(2);
    expect(shardTable(name).filter((t) => t.slot !== null)).toHaveLength(cold.shards);
    expect(stateMaps(name).length).toBeLessThanOrEqual(2 * cold.shards + 1);
    expect(cold.bytes).toBeGreaterThan(20_000 * 32);

    // Rounds of 1,000 changed digests, each an intent write and an answer write, as a cold sync or a rollout makes.
    const writes: NonNullable<Awaited<ReturnType<typeof s.write>>>[] = [];
    for (let round = 0; round < 6; round++) {
      const digests = bigState(1_000, `round-${round}`);
      const changed = records
        .slice(round * 1_000, (round + 1) * 1_000)
        .map((r, i) => ({ ...r, entry: { ...r.entry, digest: digests[i]!.entry.digest } }));
      s.intend(changed);
      writes.push((await s.write())!);
      s.acknowledge(changed);
      writes.push((await s.write())!);
    }
    const appends = writes.filter((w) => w.compactions === 0);
    if (process.env.SHIPLOG_TEST_FIGURES) {
      console.log(
        `20,000 records: ${cold.shards} shards, ${cold.bytes} B stored; writes of a round: ` +
          writes.map((w) => `${w.written} B${w.compactions ? " (compaction)" : ""}`).join(", "),
      );
    }
    // Most writes are one merge patch of about 40 bytes an entry (its digest is 32): nothing like the 0.75 MB state.
    expect(appends.length).toBeGreaterThanOrEqual(writes.length - 3);
    for (const write of appends) {
      expect(write.calls).toBe(1);
      expect(write.written).toBeLessThan(1_000 * 80);
    }
    const reader = await reread(name);
    expect(reader.inFlight().size).toBe(0);
    expect(byKey(reader.all().values())).toEqual(byKey(s.all().values()));
  });

  it("refuses state that needs more shards than allowed, with a stable code naming the setting; what is stored stays whole", async () => {
    const name = nextName();
    const records = bigState(6_000);
    const s = await reread(name, { maxShards: 2, limits: { headMaxBytes: 0, shardMaxBytes: 40_000 } });
    s.acknowledge(records);
    const error = await s.write().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AcknowledgedStateTooLargeError);
    expect(error).toMatchObject({ code: "acknowledged_state_too_large", maxShards: 2 });
    expect((error as Error).message).toMatch(/SHIPLOG_STATE_MAX_SHARDS/);
    const reader = await reread(name);
    expect(reader.all().size).toBeLessThan(6_000);
    expect(byKey(reader.all().values())).toEqual(byKey(records.filter((r) => reader.all().has(r.key))));
  });

  for (const step of ["shard-written", "before-head-switch"] as const) {
    it(`a compaction cut short at ${step} leaves the previous state whole; the next writer overwrites the slots it left`, async () => {
      const name = nextName();
      const all = bigState(60);
      const [first, flying, more] = [all.slice(0, 30), all.slice(30, 50), all.slice(50)];
      const a = await reread(name, { limits: TINY });
      a.acknowledge(first);
      await a.persist();
      a.intend(flying);
      await a.persist();
      const before = configMap(name)!.metadata.resourceVersion;

      let armed = true;
      const onWriteStep = (s: StateWriteStep) => {
        if (armed && s === step) throw new Error(`killed at ${s}`);
      };
      const crashing = await reread(name, { limits: TINY, onWriteStep, writer: "pod-crash" });
      crashing.acknowledge(flying);
      crashing.intend(more);
      await expect(crashing.write()).rejects.toThrow(`killed at ${step}`);
      armed = false;
      // The head did not move: a new reader gets exactly what was committed, the half-written slots unseen.
      expect(configMap(name)!.metadata.resourceVersion).toBe(before);
      const leftOver = stateMaps(name).filter((n) => n !== name && configMap(n)!.data["written-by"] === "pod-crash");
      expect(leftOver.length).toBeGreaterThan(0);
      const after = await reread(name, { limits: TINY });
      expect(byKey(after.all().values())).toEqual(byKey(first));
      expect(byKey(after.inFlight().values())).toEqual(byKey(flying));

      after.acknowledge(flying);
      const info = (await after.write())!;
      expect(info, JSON.stringify(info)).toMatchObject({ compactions: 1, conflicts: 0 });
      const final = await reread(name);
      expect(byKey(final.all().values())).toEqual(byKey([...first, ...flying]));
      expect(final.inFlight().size).toBe(0);
      // The slots the dead compaction wrote were spare ones; the next compaction wrote over them (after a conflict).
      const current = shardTable(name).flatMap((t, i) => (t.slot ? [slotName(name, i, t.slot)] : []));
      const overwritten = leftOver.filter((n) => current.includes(n));
      expect(overwritten.length).toBeGreaterThan(0);
      for (const n of overwritten) expect(configMap(n)!.data["written-by"]).toBe("pod-a");
    });
  }

  it("compacts ahead of need beside the writes: a segment appended meanwhile stays in the head after the switch", async () => {
    const name = nextName();
    const late = bigState(2, "late");
    let during: Promise<StateWriteInfo | undefined> | undefined;
    const onWriteStep = (step: StateWriteStep) => {
      if (step !== "shard-written" || during !== undefined) return;
      // A round's write that comes while the compaction's slots are being written.
      s.acknowledge(late);
      during = s.write();
    };
    const s = await reread(name, { limits: { headMaxBytes: 32 * 1024, shardMaxBytes: 1_500 }, onWriteStep });
    const writes: (StateWriteInfo | undefined)[] = [];
    for (let round = 0; round < 20 && during === undefined; round++) {
      s.acknowledge(bigState(40, `round-${round}`));
      writes.push(await s.write());
    }
    writes.push(await during);
    // No write compacted (but the first, which created the head): the compaction ran beside them, once the head
    // passed 60% of its limit, and its head switch comes after the late records' append (the late write's, or the
    // one in progress, which takes them along).
    const compactions = writes.slice(1).flatMap((w) => (w ? [w.compactions] : []));
    expect(compactions).toEqual(compactions.map(() => 0));
    // The compaction's head switch, still on the wire when the last write returned, lands.
    await untilHead(name, () => shardTable(name).some((t) => t.slot !== null));
    // The head switch kept the segment the late write appended: the head names shards and still has a journal.
    const journal = Object.keys(configMap(name)!.binaryData ?? {}).filter((k) => k.startsWith("journal-"));
    expect(journal.length).toBeGreaterThan(0);
    const reader = await reread(name);
    expect(byKey(reader.all().values())).toEqual(byKey(s.all().values()));
    for (const record of late) expect(reader.all().get(record.key)?.entry.digest).toBe(record.entry.digest);
  });

  it("a compaction ahead of need that fails is given up, the state whole; a later compaction writes over its slot", async () => {
    const name = nextName();
    let leftBehind: string[] | undefined;
    const onWriteStep = (step: StateWriteStep) => {
      if (step !== "shard-written" || leftBehind) return;
      leftBehind = stateMaps(name).filter((n) => n !== name);
      throw new Error("slot write lost");
    };
    const s = await reread(name, { limits: { headMaxBytes: 8 * 1024, shardMaxBytes: 1_500 }, onWriteStep });
    const committed = () => configMap(name) !== undefined && shardTable(name).some((t) => t.slot !== null);
    // No write fails for it, and what is stored reads back whole after each.
    for (let round = 0; round < 30 && !committed(); round++) {
      s.acknowledge(bigState(40, `round-${round}`));
      await s.write();
      expect(byKey((await reread(name)).all().values())).toEqual(byKey(s.all().values()));
    }
    expect(leftBehind?.length).toBeGreaterThan(0);
    await untilHead(name, committed);
    const current = shardTable(name).flatMap((t, i) => (t.slot ? [slotName(name, i, t.slot)] : []));
    expect(current.filter((n) => leftBehind!.includes(n)).length).toBeGreaterThan(0);
    expect(byKey((await reread(name)).all().values())).toEqual(byKey(s.all().values()));
  });

  it("a slot a compaction left behind is written over only while the head does not name it and the compaction is current", async () => {
    const name = nextName();
    const s = await reread(name, { limits: { headMaxBytes: 0, shardMaxBytes: 1_500 } });
    s.acknowledge(bigState(60));
    await s.persist();
    // Head limit 0: the next write folds the journal into shards first.
    s.acknowledge(bigState(1, "next"));
    await s.persist();
    const table = shardTable(name);
    const index = table.findIndex((t) => t.slot !== null);
    const named = table[index]!.slot!;
    const spare = named === "a" ? "b" : "a";
    const maps = new StateConfigMaps(kubeConfig, NAMESPACE, 5_000, {});
    // Left behind by a compaction that never committed: the spare slot exists, the head recorded no version for it.
    await maps.put(slotName(name, index, spare), null, { data: { left: "behind" }, binaryData: {} });
    const part = encodeShard({ records: bigState(2, "late"), inFlight: [] });
    const shard = (slot: "a" | "b") => ({
      index,
      content: { records: [], inFlight: [] },
      ref: { slot, checksum: part.checksum, records: 2, inFlight: 0, bytes: part.bytes, versions: { a: null, b: null } },
      write: { slot, part },
    });
    const context = (current: () => boolean): SlotWriteContext => ({
      maps,
      head: name,
      stamp: () => ({ "written-by": "pod-test" }),
      fence: () => undefined,
      current,
      onShardWritten: () => undefined,
    });
    const info = { written: 0, calls: 0 };
    // Given up while it waited (a reload began): the slot stays as it was.
    let checks = 0;
    await expect(
      writeShardSlots(
        [shard(spare)],
        context(() => ++checks < 3),
        info,
      ),
    ).rejects.toBeInstanceOf(StateConflictError);
    expect(configMap(slotName(name, index, spare))!.data).toEqual({ left: "behind" });
    // The slot the head names: never written over, whatever the version says.
    const before = configMap(slotName(name, index, named))!.metadata.resourceVersion;
    await expect(
      writeShardSlots(
        [shard(named)],
        context(() => true),
        info,
      ),
    ).rejects.toBeInstanceOf(StateConflictError);
    expect(configMap(slotName(name, index, named))!.metadata.resourceVersion).toBe(before);
    // The spare one, by a current compaction: written over.
    await writeShardSlots(
      [shard(spare)],
      context(() => true),
      info,
    );
    expect(configMap(slotName(name, index, spare))!.data["written-by"]).toBe("pod-test");
    expect(byKey((await reread(name)).all().values())).toEqual(byKey(s.all().values()));
  });

  it("a stale writer's compaction never overwrites a slot the head names: it finds the head moved on, reads again, merges", async () => {
    const name = nextName();
    // Shards of a few records each, so the state spreads over several.
    const SMALL_SHARDS = { headMaxBytes: 0, shardMaxBytes: 600 };
    const records = bigState(24);
    const seed = await reread(name, { limits: SMALL_SHARDS });
    seed.acknowledge(records.slice(0, 20));
    await seed.persist();
    const a = await reread(name, { limits: SMALL_SHARDS });
    const stale = await reread(name, { limits: SMALL_SHARDS, writer: "pod-stale" });
    // a compacts three times, each time touching the shard of one record: that shard's slot goes a, b, a again.
    const moving = records[0]!;
    const versions = [1, 2, 3].map((v) => ({ ...moving, entry: { ...moving.entry, version: `9.${v}` } }));
    for (const version of versions) {
      a.acknowledge([version]);
      expect((await a.write())!.compactions).toBe(1);
    }
    // The stale writer, still at the first head, compacts: its spare slots are now named by the head.
    stale.acknowledge(records.slice(20));
    expect((await stale.write())!.conflicts).toBeGreaterThanOrEqual(1);
    const final = await reread(name);
    expect(byKey(final.all().values())).toEqual(byKey([...records, versions[2]!]));
    const current = shardTable(name).flatMap((t, i) => (t.slot ? [slotName(name, i, t.slot)] : []));
    expect(current.length).toBeGreaterThan(1);
  });

  it("a shard slot that does not hold what the head names is not used (checksums): that shard alone is damage", async () => {
    const name = nextName();
    const s = await reread(name, { limits: TINY });
    s.acknowledge(bigState(30));
    s.acknowledge(bigState(1, "later"));
    await s.persist();
    s.acknowledge(bigState(1, "later-2"));
    await s.persist();
    const table = shardTable(name);
    const index = table.findIndex((t) => t.slot !== null && t.records > 0);
    const slot = slotName(name, index, table[index]!.slot!);
    const api = kubeConfig.makeApiClient(CoreV1Api);
    const current = await api.readNamespacedConfigMap({ name: slot, namespace: NAMESPACE });
    const other = encodeAcknowledgedState(bigState(3, "forged"));
    await api.replaceNamespacedConfigMap({
      name: slot,
      namespace: NAMESPACE,
      body: {
        ...current,
        binaryData: { ...current.binaryData, "records.gz": other.text.toString("base64"), digests: other.digests.toString("base64") },
      },
    });
    // Every other shard, and the journal, read back; the forged slot kept aside, its records counted at risk.
    const again = await reread(name);
    const others = table.reduce((n, t, i) => n + (i === index ? 0 : t.records), 0);
    expect(again.all().size).toBeGreaterThanOrEqual(others);
    expect(again.damage).toMatchObject({
      atRisk: table[index]!.records,
      pieces: [{ what: expect.stringContaining(`shard ${index}: ${slot} does not hold what it says`) }],
    });
    expect(again.damage!.keptAside).toContain(`${slot}-damaged-${again.damage!.keptAside[0]!.split("-damaged-")[1]}`);
  });
});
