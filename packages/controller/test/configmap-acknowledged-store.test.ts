// The ConfigMap store against the fake cluster's ConfigMap API (409 on create-when-exists and on a stale
// resourceVersion, merge patches): the head and its journal, conflicts, state of another cluster, fencing, the
// write-ahead set, migration from the single-ConfigMap format. Compactions and shards: state-compaction.test.ts.
import { CoreV1Api } from "@kubernetes/client-node";
import { encodeAcknowledgedState, recordKey } from "@shiplog/controller/internal";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { GROUP, bigState, byKey } from "./state-fixtures.js";
import { NAMESPACE, TINY, acked, useStateStores } from "./state-store-fixture.js";
import { type BudgetCalls, decodeBudgetCalls, encodeBudgetCalls } from "../src/flush/write-budget.js";

/** The write budget's section of the head, as its participant gives it to a write (urgent with calls about to leave). */
const budgetSections = (calls: BudgetCalls) =>
  new Map([["budget-calls", { text: encodeBudgetCalls(calls), urgent: calls.unanswered > 0 }]]);
const budgetCallsOf = (store: { headSection(key: string): string | undefined }) => decodeBudgetCalls(store.headSection("budget-calls"));

const { fake, store, configMap, reread, stateMaps, shardTable, nextName } = useStateStores("state");
const kubeConfig = fake.kubeConfig;

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
    // Each segment carries its checksum and key count (`.check`), verified before it is used.
    expect(Object.keys(head.binaryData!).sort()).toEqual(["journal-000001.check", "journal-000001.digests", "journal-000001.records.gz"]);
    expect(shardTable(name)).toMatchObject([{ slot: null, records: 0 }]);
    expect(stateMaps(name)).toHaveLength(1);
    // The head created, its witness written (it remembers the head's uid), the segment appended.
    expect(configMap(`${name}-witness`)!.data).toMatchObject({ "state-uid": expect.any(String), records: "3" });
    expect(info).toMatchObject({ records: 3, shards: 0, compactions: 1, calls: 3 });

    expect(byKey((await reread(name)).all().values())).toEqual(byKey(a.all().values()));
    // A decommission, once acknowledged, is forgotten: nothing more to do for that record.
    a.acknowledge([acked("shop-db-app", "shop-db-app", "decommissioned")]);
    await a.persist();
    expect([...(await reread(name)).all().values()].map((r) => r.entry.deployment_name).sort()).toEqual(["shop-api-app", "shop-web-app"]);
  });

  it("keeps a head participant's section (the write budget's calls) in the head, updated by each write, and gives it back at load", async () => {
    const name = nextName();
    const a = await reread(name);
    expect(budgetCallsOf(a)).toBeUndefined();
    a.acknowledge([acked("shop-web-app")]);
    await a.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200], unanswered: 2 }) });
    expect(configMap(name)!.data!["budget-calls"]).toBe("2;1795713585");
    expect(budgetCallsOf(await reread(name))).toEqual({ answeredAt: [1_795_713_585_000], unanswered: 2 });
    // A compaction's head switch (a head limit of 0 compacts at every write) keeps them too.
    const b = await reread(name, { limits: TINY });
    b.acknowledge([acked("shop-api-app")]);
    const info = await b.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200, 1_795_713_590_000], unanswered: 0 }) });
    expect(info?.compactions).toBeGreaterThan(0);
    expect(budgetCallsOf(await reread(name))).toEqual({ answeredAt: [1_795_713_585_000, 1_795_713_590_000], unanswered: 0 });
  });

  it("writes calls about to leave even with no record change (a round that only decommissions), and nothing more", async () => {
    const name = nextName();
    const a = await reread(name);
    a.acknowledge([acked("shop-web-app")]);
    await a.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200], unanswered: 0 }) });
    const version = configMap(name)!.metadata!.resourceVersion;
    // Calls about to leave, no record changed: the head alone is written, so a leader loading it counts them.
    const info = await a.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200], unanswered: 3 }) });
    expect(info?.calls).toBe(1);
    expect(configMap(name)!.metadata!.resourceVersion).not.toBe(version);
    expect(budgetCallsOf(await reread(name))).toEqual({ answeredAt: [1_795_713_585_000], unanswered: 3 });
    expect(byKey((await reread(name)).all().values())).toEqual(byKey([acked("shop-web-app")]));
    // Once written, and with nothing about to leave, a write with no record change writes nothing.
    const written = configMap(name)!.metadata!.resourceVersion;
    expect(await a.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200], unanswered: 3 }) })).toBeUndefined();
    expect(
      await a.write({ sections: budgetSections({ answeredAt: [1_795_713_584_200, 1_795_713_600_000], unanswered: 0 }) }),
    ).toBeUndefined();
    expect(configMap(name)!.metadata!.resourceVersion).toBe(written);
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

    // A journal segment that is not gzip costs that segment only, and says so (state-damage.test.ts has the rest).
    const api = kubeConfig.makeApiClient(CoreV1Api);
    const current = await api.readNamespacedConfigMap({ name, namespace: NAMESPACE });
    const segment = Object.keys(current.binaryData ?? {}).find((k) => k.endsWith("records.gz"))!;
    await api.replaceNamespacedConfigMap({
      name,
      namespace: NAMESPACE,
      body: { ...current, binaryData: { ...current.binaryData, [segment]: Buffer.from("garbage").toString("base64") } },
    });
    const damaged = await reread(name);
    expect(damaged.all().size).toBe(0);
    expect(damaged.damage).toMatchObject({
      atRisk: 1,
      pieces: [{ what: expect.stringContaining("journal segment 1 is unreadable"), atRisk: 1 }],
    });
  });

  it("does not write while fenced off (not the leader), says so, and writes what it kept once allowed", async () => {
    const name = nextName();
    let leader = false;
    const s = await reread(name, { fence: { leading: () => leader, signal: undefined } });
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

  it("an answer settles in-flight entries by key, not by a second copy, whether the journal or a shard holds them", async () => {
    for (const limits of [undefined, TINY]) {
      const name = nextName();
      const a = await reread(name, { ...(limits && { limits }) });
      const intents = bigState(200, "intent");
      a.intend(intents);
      const intended = (await a.write())!;
      // The answer: the same entries accepted, and one accepted with another digest than the one in flight.
      const other = { ...intents[0]!, entry: { ...intents[0]!.entry, digest: bigState(1, "other")[0]!.entry.digest } };
      a.acknowledge([other, ...intents.slice(1)]);
      const answered = (await a.write())!;
      const segment = Object.keys(configMap(name)!.binaryData ?? {}).filter((k) => k.startsWith("journal-"));
      if (!limits) {
        // 199 keys settled and one record written in full: a small fraction of the intents' bytes.
        expect(answered.written).toBeLessThan(intended.written / 4);
        expect(gunzipSync(Buffer.from(configMap(name)!.binaryData!["journal-000002.in-flight.gz"]!, "base64")).toString()).toMatch(
          /^shiplog-acknowledged v4\n/,
        );
      } else expect(answered.compactions).toBe(1);
      expect(segment.length).toBeGreaterThan(0);
      const b = await reread(name);
      expect(b.inFlight().size).toBe(0);
      expect(byKey(b.all().values())).toEqual(byKey([other, ...intents.slice(1)]));
      // The last write before stopping folds a journal of settlements into the shards: all v3, as the previous
      // version reads it (a rollback starts that version after this one stops).
      expect((await a.write({ final: true }))?.compactions).toBe(1);
      const head = configMap(name)!;
      expect(Object.keys(head.binaryData ?? {}).filter((k) => k.startsWith("journal-"))).toEqual([]);
      for (const slot of stateMaps(name).filter((n) => n !== name)) {
        const text = configMap(slot)!.binaryData?.["records.gz"];
        if (text) expect(gunzipSync(Buffer.from(text, "base64")).toString().split("\n")[0]).toBe("shiplog-acknowledged v3");
      }
      expect(byKey((await reread(name)).all().values())).toEqual(byKey([other, ...intents.slice(1)]));
      // Nothing left to fold: the final write writes nothing.
      expect(await (await reread(name)).write({ final: true })).toBeUndefined();
    }
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
});
