// The ConfigMap store against the fake cluster's ConfigMap API (409 on create-when-exists and on a stale
// resourceVersion, merge patches, the 1 MiB limit): the head and its journal, the shards, migration from the
// single-ConfigMap format, conflicts, and a write cut short at each step of a compaction.
import { CoreV1Api } from "@kubernetes/client-node";
import {
  AcknowledgedStateTooLargeError,
  ConfigMapAcknowledgedStore,
  encodeAcknowledgedState,
  recordKey,
  slotName,
  type AcknowledgedRecord,
  type ConfigMapStoreOptions,
  type StateWriteStep,
} from "@shiplog/controller";
import { gunzipSync, gzipSync } from "node:zlib";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { GROUP, bigState, byKey, record } from "./state-fixtures.js";
import { useFakeCluster } from "./fake-cluster-fixture.js";

const NAMESPACE = "shiplog";
/** Limits that make a few records compact before every append and spread over several shards. */
const TINY = { headMaxBytes: 0, shardMaxBytes: 1_500 };
const fake = useFakeCluster(NAMESPACE);
const kubeConfig = fake.kubeConfig;
let counter = 0;

function store(name: string, options: Partial<ConfigMapStoreOptions> = {}): ConfigMapAcknowledgedStore {
  return new ConfigMapAcknowledgedStore({
    kubeConfig,
    namespace: NAMESPACE,
    name,
    org: "acme",
    cluster: "prod",
    apiUrl: "https://api.github.com",
    writer: "pod-a",
    requestTimeoutMs: 5000,
    logger: pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" }),
    ...options,
  });
}

const acked = (name: string, seed = name, status: "deployed" | "decommissioned" = "deployed"): AcknowledgedRecord =>
  record(GROUP, {
    deployment_name: name,
    name: `ghcr.io/acme/${name}`,
    digest: bigState(1, seed)[0]!.entry.digest,
    version: "1.0",
    status,
    github_repository: "web",
    tags: { team: "shop" },
  });
type StoredConfigMap = { metadata: { resourceVersion: string }; data: Record<string, string>; binaryData?: Record<string, string> };
const configMap = (name: string) => fake.cluster.store.get("configmaps", NAMESPACE, name) as StoredConfigMap | undefined;
const stateMaps = (name: string) =>
  fake.cluster.store
    .list("configmaps", { namespace: NAMESPACE })
    .filter((c) => c.metadata.name === name || c.metadata.name.startsWith(`${name}-shard-`));
const shardTable = (name: string) =>
  JSON.parse(configMap(name)!.data.shards!) as { slot: "a" | "b" | null; checksum: string; records: number }[];
const nextName = () => `state-${++counter}`;
const reread = async (name: string, options: Partial<ConfigMapStoreOptions> = {}) => {
  const s = store(name, options);
  await s.load();
  return s;
};

describe("ConfigMapAcknowledgedStore", () => {
  it("starts empty without a ConfigMap, creates the head on the first write, and a new store reads the same records back", async () => {
    const name = nextName();
    const a = await reread(name);
    expect(a.all().size).toBe(0);
    await a.persist();
    expect(configMap(name)).toBeUndefined();

    a.acknowledge([acked("shop-web-app"), acked("shop-api-app"), acked("shop-db-app")]);
    const info = await a.write();
    const head = configMap(name)!;
    expect(head.data).toMatchObject({
      format: "shiplog-state v3",
      org: "acme",
      cluster: "prod",
      "api-url": "https://api.github.com",
      records: "3",
      "in-flight": "0",
      "written-by": "pod-a",
      partitions: "1",
    });
    // A small state lives in the head's journal: no shard ConfigMap yet.
    expect(Object.keys(head.binaryData!).sort()).toEqual(["journal-000001.digests", "journal-000001.records.gz"]);
    expect(shardTable(name)).toMatchObject([{ slot: null, records: 0 }]);
    expect(stateMaps(name)).toHaveLength(1);
    expect(info).toMatchObject({ records: 3, shards: 0, compactions: 1, calls: 2 });

    expect(byKey((await reread(name)).all().values())).toEqual(byKey(a.all().values()));
    // A decommission, once acknowledged, is forgotten: nothing more to do for that record.
    a.acknowledge([acked("shop-db-app", "shop-db-app", "decommissioned")]);
    await a.persist();
    expect([...(await reread(name)).all().values()].map((r) => r.entry.deployment_name).sort()).toEqual(["shop-api-app", "shop-web-app"]);
  });

  it("writes with the resourceVersion it read: a stale writer gets 409, reads again, merges its changes and retries", async () => {
    const name = nextName();
    const seed = store(name);
    seed.acknowledge([acked("base")]);
    await seed.persist();
    const a = await reread(name);
    const b = await reread(name);
    a.acknowledge([acked("from-a")]);
    await a.write();
    b.acknowledge([acked("from-b"), acked("base", "base-v2")]);
    expect((await b.write())?.conflicts).toBe(1);
    a.acknowledge([acked("from-a", "from-a-v2")]);
    expect((await a.write())?.conflicts).toBe(1);
    expect(byKey((await reread(name)).all().values())).toEqual(
      byKey([acked("base", "base-v2"), acked("from-a", "from-a-v2"), acked("from-b")]),
    );
  });

  it("a create racing another create (409 AlreadyExists) reads the winner's state and merges", async () => {
    const name = nextName();
    const a = await reread(name);
    const b = await reread(name);
    a.acknowledge([acked("one")]);
    b.acknowledge([acked("two")]);
    await a.write();
    expect((await b.write())?.conflicts).toBe(1);
    expect([...(await reread(name)).all().values()].map((r) => r.entry.deployment_name).sort()).toEqual(["one", "two"]);
  });

  it("ignores state written for another cluster or service, or unreadable, and writes over it", async () => {
    const name = nextName();
    const other = store(name, { cluster: "other" });
    other.acknowledge([acked("theirs")]);
    await other.persist();
    const mine = await reread(name);
    expect(mine.all().size).toBe(0);
    mine.acknowledge([acked("mine")]);
    await mine.persist();
    expect(configMap(name)!.data.cluster).toBe("prod");
    expect((await reread(name, { apiUrl: "https://service.example.test/api/v3" })).all().size).toBe(0);

    // A journal segment that is not gzip: the next load starts empty instead of failing the controller.
    const api = kubeConfig.makeApiClient(CoreV1Api);
    const current = await api.readNamespacedConfigMap({ name, namespace: NAMESPACE });
    const segment = Object.keys(current.binaryData ?? {}).find((k) => k.endsWith("records.gz"))!;
    await api.replaceNamespacedConfigMap({
      name,
      namespace: NAMESPACE,
      body: { ...current, binaryData: { ...current.binaryData, [segment]: Buffer.from("garbage").toString("base64") } },
    });
    expect((await reread(name)).all().size).toBe(0);
  });

  it("does not write while fenced off (not the leader), says so, and writes what it kept once allowed", async () => {
    const name = nextName();
    let leader = false;
    const s = await reread(name, { mayWrite: () => leader });
    expect(await s.write()).toBeUndefined();
    s.acknowledge([acked("web")]);
    // A skipped write is not a durable one: persist() rejects, so no caller acts on an intent not on disk.
    await expect(s.persist()).rejects.toMatchObject({ code: "acknowledged_state_not_leader", unwritten: 1 });
    expect(configMap(name)).toBeUndefined();
    expect(s.unwritten).toBe(1);
    leader = true;
    expect((await s.write())?.records).toBe(1);
    expect(s.unwritten).toBe(0);
  });

  it("write-ahead: intents are journalled beside the acknowledged records, read back, and settled by an answer", async () => {
    const name = nextName();
    const a = await reread(name);
    a.acknowledge([acked("shop-web-app")]);
    a.intend([acked("shop-api-app"), acked("shop-web-app", "web-2")]);
    await a.persist();
    expect(configMap(name)!.data["in-flight"]).toBe("2");
    const b = await reread(name);
    expect([...b.inFlight().keys()].sort()).toEqual([recordKey(GROUP, "shop-api-app"), recordKey(GROUP, "shop-web-app")]);
    expect(b.inFlight().get(recordKey(GROUP, "shop-web-app"))!.entry.digest).toBe(acked("x", "web-2").entry.digest);
    expect(b.all().get(recordKey(GROUP, "shop-web-app"))!.entry.digest).toBe(acked("shop-web-app").entry.digest);
    b.acknowledge([acked("shop-web-app", "web-2"), acked("shop-api-app", "shop-api-app", "decommissioned")]);
    await b.persist();
    const c = await reread(name);
    expect(c.inFlight().size).toBe(0);
    expect([...c.all().keys()]).toEqual([recordKey(GROUP, "shop-web-app")]);
    expect(configMap(name)!.data["in-flight"]).toBe("0");
  });

  it("reads a single-ConfigMap state (v2 and v1) and rewrites it in the sharded layout at the next write", async () => {
    const records = bigState(300);
    const intents = bigState(5, "intent");
    const v2 = encodeAcknowledgedState(records);
    const asV = (text: Buffer, header: string) =>
      gzipSync(
        gunzipSync(text)
          .toString("utf8")
          .replace(/^shiplog-acknowledged v3/, header),
      );
    const flight = encodeAcknowledgedState(intents);
    const api = kubeConfig.makeApiClient(CoreV1Api);
    for (const version of ["v2", "v1"] as const) {
      const name = nextName();
      const lines = gunzipSync(v2.text).toString("utf8").split("\n");
      // v1: no digest dictionary, one digest per record in record order.
      const v1Text = gzipSync(
        [...lines.slice(0, lines.indexOf("column digest_ref")), ""]
          .join("\n")
          .replace(/^shiplog-acknowledged v3/, "shiplog-acknowledged v1"),
      );
      const v1Digests = Buffer.concat(
        [...records]
          .sort((x, y) => (x.entry.deployment_name < y.entry.deployment_name ? -1 : 1))
          .map((r) => Buffer.from(r.entry.digest.slice(7), "hex")),
      );
      const binaryData: Record<string, string> =
        version === "v2"
          ? {
              "records.gz": asV(v2.text, "shiplog-acknowledged v2").toString("base64"),
              digests: v2.digests.toString("base64"),
              "in-flight.gz": asV(flight.text, "shiplog-acknowledged v2").toString("base64"),
              "in-flight-digests": flight.digests.toString("base64"),
            }
          : { "records.gz": v1Text.toString("base64"), digests: v1Digests.toString("base64") };
      const data = {
        format: `shiplog-acknowledged ${version}`,
        org: "acme",
        cluster: "prod",
        "api-url": "https://api.github.com",
        records: "300",
      };
      await api.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name }, data, binaryData } });

      const s = await reread(name, { limits: { shardMaxBytes: 8_000 } });
      expect(byKey(s.all().values())).toEqual(byKey(records));
      expect(byKey(s.inFlight().values())).toEqual(byKey(version === "v2" ? intents : []));
      s.acknowledge([acked("after-migration")]);
      const info = await s.write();
      expect(info).toMatchObject({ compactions: 1, records: 301 });
      expect(info!.shards).toBeGreaterThan(1);
      const head = configMap(name)!;
      expect(head.data.format).toBe("shiplog-state v3");
      expect(Object.keys(head.binaryData ?? {}).filter((k) => !k.startsWith("journal-"))).toEqual([]);
      const again = await reread(name);
      expect(byKey(again.all().values())).toEqual(byKey([...records, acked("after-migration")]));
      expect(byKey(again.inFlight().values())).toEqual(byKey(version === "v2" ? intents : []));
    }
  });

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
      const leftOver = stateMaps(name)
        .filter((c) => c.metadata.name !== name && configMap(c.metadata.name)!.data["written-by"] === "pod-crash")
        .map((c) => c.metadata.name);
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

  it("a shard slot that does not hold what the head names is not used (checksums): the state is reported unreadable", async () => {
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
    expect((await reread(name)).all().size).toBe(0);
  });
});
