// The sharded layout's decisions with plain data: which shard a record goes to, what a compaction writes where, when
// the records spread over more shards, and that a compaction depends on the committed state only.
import type { AcknowledgedRecord } from "@shiplog/controller";
import {
  AcknowledgedStateTooLargeError,
  CONFIGMAP_MAX_BYTES,
  DEFAULT_STATE_LIMITS,
  STATE_LAYOUT,
  planCompaction,
  shardOf,
  slotNames,
  type ShardRef,
} from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { bigState, byKey } from "./state-fixtures.js";

const LIMITS = { maxShards: 16, shardMaxBytes: 1_000_000 };
type Base = Parameters<typeof planCompaction>[0];

const changes = (records: [string, AcknowledgedRecord | null][] = [], inFlight: [string, AcknowledgedRecord | null][] = []) => ({
  records: new Map(records),
  inFlight: new Map(inFlight),
});

/** A committed state of `records` over `partitions` shards, each in slot a, as a compaction would have left it. */
function committed(records: AcknowledgedRecord[], partitions: number): Base {
  const first = planCompaction(
    { partitions, shards: [{ ref: undefined, content: { records, inFlight: [] } }], journal: changes(), rewrite: true },
    { ...LIMITS, maxShards: partitions },
  );
  return { partitions: first.length, shards: first.map((p) => ({ ref: p.ref, content: p.content })), journal: changes(), rewrite: false };
}

describe("state shards", () => {
  it("spreads keys over every shard, the same way every time (FNV-1a)", () => {
    const keys = bigState(4_000).map((r) => r.key);
    const counts = Array.from({ length: 8 }, (_, i) => keys.filter((k) => shardOf(k, 8) === i).length);
    for (const n of counts) expect(n).toBeGreaterThan(400);
    expect(shardOf("production\u0000eu-west-1\u0000shop-web-app", 16)).toBe(shardOf("production\u0000eu-west-1\u0000shop-web-app", 16));
    expect([shardOf("", 7), shardOf("a", 1_000_003)]).toEqual([0x811c9dc5 % 7, 0xe40c292c % 1_000_003]);
  });

  it("names two fixed slots per shard index, what the chart's Role lists", () => {
    expect(slotNames("shiplog-state", 2)).toEqual([
      "shiplog-state-shard-0-a",
      "shiplog-state-shard-0-b",
      "shiplog-state-shard-1-a",
      "shiplog-state-shard-1-b",
    ]);
    expect(STATE_LAYOUT).toBe("shiplog-state v3");
  });

  it("a compaction rewrites only the shards the journal touches, each into its spare slot", () => {
    const records = bigState(3_000);
    const base = committed(records, 4);
    expect(base.shards.map((s) => s.ref!.slot)).toEqual(["a", "a", "a", "a"]);
    // One record changed and one removed, both in the same shard; an intent for a new record in another.
    const [changed, removed] = records.filter((r) => shardOf(r.key, 4) === 2).slice(0, 2);
    const fresh = bigState(1, "new").map((r) => ({ ...r, key: `${r.key}-new` }))[0]!;
    const updated = { ...changed!, entry: { ...changed!.entry, version: "9.9" } };
    const plan = planCompaction(
      {
        ...base,
        journal: changes(
          [
            [changed!.key, updated],
            [removed!.key, null],
          ],
          [[fresh.key, fresh]],
        ),
      },
      LIMITS,
    );
    const touched = new Set([2, shardOf(fresh.key, 4)]);
    for (const shard of plan) {
      if (touched.has(shard.index)) {
        expect(shard.write?.slot).toBe("b");
        expect(shard.ref.slot).toBe("b");
        expect(shard.ref.checksum).not.toBe(base.shards[shard.index]!.ref!.checksum);
      } else {
        expect(shard.write).toBeUndefined();
        expect(shard.ref).toBe(base.shards[shard.index]!.ref);
      }
    }
    const after = plan.flatMap((p) => p.content.records);
    expect(after).toHaveLength(records.length - 1);
    expect(byKey(after).get(changed!.key)).toBe(byKey([updated]).get(changed!.key));
    expect(plan.flatMap((p) => p.content.inFlight).map((r) => r.key)).toEqual([fresh.key]);
    expect(plan.reduce((n, p) => n + p.ref.records, 0)).toBe(records.length - 1);
  });

  it("depends on the committed state only: the same state built in another order plans the same content", () => {
    const records = bigState(2_000);
    const journal: [string, AcknowledgedRecord | null][] = records
      .slice(0, 300)
      .map((r, i) => [r.key, i % 3 === 0 ? null : { ...r, entry: { ...r.entry, version: "2" } }]);
    const a = planCompaction({ ...committed(records, 4), journal: changes(journal) }, LIMITS);
    const b = planCompaction({ ...committed([...records].reverse(), 4), journal: changes([...journal].reverse()) }, LIMITS);
    expect(b.map((p) => p.ref.checksum)).toEqual(a.map((p) => p.ref.checksum));
    expect(b.map((p) => p.write?.part.checksum)).toEqual(a.map((p) => p.write?.part.checksum));
  });

  it("a shard that would pass its limit spreads the records over twice as many shards, up to the most allowed", () => {
    const records = bigState(6_000);
    const one = committed(records.slice(0, 10), 1);
    const plan = planCompaction({ ...one, journal: changes(records.map((r) => [r.key, r])) }, { maxShards: 16, shardMaxBytes: 60_000 });
    expect(plan.length).toBeGreaterThan(2);
    expect(Math.log2(plan.length) % 1).toBe(0);
    for (const shard of plan) {
      expect(shard.write!.part.bytes).toBeLessThanOrEqual(60_000);
      for (const r of shard.content.records) expect(shardOf(r.key, plan.length)).toBe(shard.index);
    }
    expect(plan.reduce((n, p) => n + p.ref.records, 0)).toBe(records.length);

    const error = (() => {
      try {
        planCompaction({ ...one, journal: changes(records.map((r) => [r.key, r])) }, { maxShards: 2, shardMaxBytes: 60_000 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AcknowledgedStateTooLargeError);
    expect(error).toMatchObject({ code: "acknowledged_state_too_large", maxShards: 2, records: 6_000 });
    expect((error as Error).message).toMatch(/--state-max-shards \/ SHIPLOG_STATE_MAX_SHARDS/);
  });

  it("150,000 records, each with its own digest (4.8 MB of digests), fit the default limits in 8 shards", () => {
    const records = bigState(150_000);
    const plan = planCompaction(
      { partitions: 1, shards: [{ ref: undefined, content: { records, inFlight: [] } }], journal: changes(), rewrite: true },
      DEFAULT_STATE_LIMITS,
    );
    const bytes = plan.map((p) => p.write!.part.bytes);
    if (process.env.SHIPLOG_TEST_FIGURES)
      console.log(`150,000 records: ${plan.length} shards of ${Math.min(...bytes)}..${Math.max(...bytes)} bytes`);
    expect(plan).toHaveLength(8);
    for (const b of bytes) expect(b).toBeLessThanOrEqual(DEFAULT_STATE_LIMITS.shardMaxBytes);
    expect(DEFAULT_STATE_LIMITS.shardMaxBytes).toBeLessThan(CONFIGMAP_MAX_BYTES);
    expect(bytes.reduce((n, b) => n + b, 0)).toBeGreaterThan(150_000 * 32);
  });

  it("an emptied shard needs no slot; a state to rewrite (migrated, or replacing another's) writes every non-empty shard", () => {
    const records = bigState(40);
    const base = committed(records, 2);
    const inShard0 = records.filter((r) => shardOf(r.key, 2) === 0);
    const plan = planCompaction({ ...base, journal: changes(inShard0.map((r) => [r.key, null])) }, LIMITS);
    expect(plan[0]!.ref).toMatchObject({ slot: null, records: 0 } satisfies Partial<ShardRef>);
    expect(plan[0]!.write).toBeUndefined();
    expect(plan[1]!.ref).toBe(base.shards[1]!.ref);

    const rewrite = planCompaction(
      { partitions: 1, shards: [{ ref: undefined, content: { records, inFlight: [] } }], journal: changes(), rewrite: true },
      LIMITS,
    );
    expect(rewrite).toHaveLength(1);
    expect(rewrite[0]!.write?.slot).toBe("a");
  });
});
