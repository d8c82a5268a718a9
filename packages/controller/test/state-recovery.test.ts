// The pure reading of a damaged state (state/recovery.ts) with plain data: slots verified against the head's
// checksum and their own, the fallback to the other slot, journal segments checked and skipped, slots scanned without
// a head, the witness's verdict, and the damage record.
import {
  STATE_LAYOUT,
  addDamage,
  damageReason,
  damagedCopyName,
  encodeSegment,
  encodeShard,
  headFormat,
  parseDamage,
  readJournal,
  readShardSlots,
  scanSlots,
  segmentPrefix,
  verifySlot,
  witnessVerdict,
  type ShardRef,
  type StoredConfigMap,
} from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { bigState, byKey } from "./state-fixtures.js";

const NAME = "state";
const b64 = (binary: Record<string, Buffer>) => Object.fromEntries(Object.entries(binary).map(([k, v]) => [k, v.toString("base64")]));

/** A slot ConfigMap as a compaction writes it. */
function slot(
  index: number,
  which: "a" | "b",
  records = bigState(3, `${index}${which}`),
  extra: Record<string, string> = {},
): StoredConfigMap {
  const part = encodeShard({ records, inFlight: [] });
  return {
    name: `${NAME}-shard-${index}-${which}`,
    version: `${index}${which}`,
    uid: undefined,
    data: { format: STATE_LAYOUT, head: NAME, shard: String(index), slot: which, checksum: part.checksum, ...extra },
    binaryData: b64(part.binaryData),
  };
}

const refOf = (map: StoredConfigMap, which: "a" | "b", records = 3): ShardRef => ({
  slot: which,
  checksum: map.data.checksum!,
  records,
  inFlight: 0,
  bytes: 100,
  versions: { a: null, b: null },
});

describe("state recovery (pure)", () => {
  it("verifies a slot: it decodes, is the shard it says, and holds what its checksum says", () => {
    const good = slot(0, "a");
    expect(verifySlot(good, NAME, 0)).toMatchObject({ checksum: good.data.checksum });
    expect(verifySlot(good, NAME, 1)).toEqual(new Error(`${NAME}-shard-0-a holds shard 0`));
    expect(verifySlot({ ...good, binaryData: { ...good.binaryData, "records.gz": "Z2FyYmFnZQ==" } }, NAME, 0)).toBeInstanceOf(Error);
    const forged = slot(0, "a", bigState(2, "forged"));
    expect(String(verifySlot({ ...forged, data: good.data }, NAME, 0))).toContain("does not hold what it says");
  });

  it("a shard is exact when either slot holds the head's checksum (a head naming the spare loses nothing)", () => {
    const a = slot(0, "a");
    const b = slot(0, "b", bigState(2, "older"));
    expect(readShardSlots(NAME, 0, refOf(a, "a"), { a, b })).toEqual({ content: { records: bigState(3, "0a"), inFlight: [] } });
    // The head names b, but a holds what the head's checksum says.
    expect(readShardSlots(NAME, 0, { ...refOf(a, "a"), slot: "b" }, { a, b }).damage).toBeUndefined();
  });

  it("a slot missing, unreadable or not the head's: the other slot's content, and every record the head counted at risk", () => {
    const a = slot(0, "a");
    const b = slot(0, "b", bigState(2, "older"));
    const missing = readShardSlots(NAME, 0, refOf(a, "a", 5), { a: undefined, b });
    expect(byKey(missing.content.records)).toEqual(byKey(bigState(2, "older")));
    expect(missing.damage!.piece).toEqual({
      what: expect.stringMatching(
        /^shard 0: state-shard-0-a is missing; state-shard-0-b \(2 records, written at an unknown time\) was read in its place$/,
      ),
      atRisk: 5,
    });
    expect(missing.damage!.damaged).toEqual(["state-shard-0-b"]);
    const garbage = readShardSlots(NAME, 0, refOf(a, "a"), {
      a: { ...a, binaryData: { ...a.binaryData, "records.gz": "Z2FyYmFnZQ==" } },
      b,
    });
    expect(garbage.damage!.piece.what).toContain("state-shard-0-a is unreadable");
    expect(garbage.damage!.damaged).toEqual(["state-shard-0-a", "state-shard-0-b"]);
    // The head's checksum altered: the named slot still verifies on its own, and is read.
    const mismatch = readShardSlots(NAME, 0, { ...refOf(a, "a"), checksum: "0".repeat(64) }, { a, b });
    expect(mismatch.content.records).toHaveLength(3);
    expect(mismatch.damage!.piece.what).toContain("holds another content than the head names");
    const nothing = readShardSlots(NAME, 0, refOf(a, "a"), { a: undefined, b: undefined });
    expect(nothing).toEqual({
      content: { records: [], inFlight: [] },
      damage: { piece: { what: "shard 0: state-shard-0-a is missing, and state-shard-0-b is missing", atRisk: 3 }, damaged: [] },
    });
  });

  it("scans slots without a head: the newest verified slot of each shard, of the newest partitioning", () => {
    const at = (t: string) => ({ "written-at": t, partitions: "2" });
    const slots = [
      slot(0, "a", bigState(1, "old0"), at("2026-01-01T00:00:00Z")),
      slot(0, "b", bigState(2, "new0"), at("2026-01-02T00:00:00Z")),
      slot(1, "a", bigState(1, "new1"), at("2026-01-02T00:00:00Z")),
      { ...slot(1, "b", bigState(1, "broken"), at("2026-01-03T00:00:00Z")), binaryData: { "records.gz": "Z2FyYmFnZQ==" } },
      // Of an older layout of 4 shards: not mixed in.
      slot(3, "a", bigState(1, "stale"), { "written-at": "2025-12-01T00:00:00Z", partitions: "4" }),
    ];
    const scan = scanSlots(NAME, slots);
    expect(scan.partitions).toBe(2);
    expect(scan.read).toEqual(["state-shard-0-b", "state-shard-1-a"]);
    expect(scan.unreadable).toEqual(["state-shard-1-b"]);
    expect(byKey(scan.shards.flatMap((s) => s.records))).toEqual(byKey([...bigState(2, "new0"), ...bigState(1, "new1")]));
  });

  it("journal segments are verified by their checksum entry; a bad one is skipped, its keys at risk, later ones still apply", () => {
    const [one, two, three] = bigState(3, "j");
    const change = (r: NonNullable<typeof one>) => ({ records: new Map([[r.key, r]]), inFlight: new Map() });
    const none = () => undefined;
    const binary = {
      ...b64(encodeSegment(segmentPrefix(1), change(one!), none).binaryData),
      ...b64(encodeSegment(segmentPrefix(2), change(two!), none).binaryData),
      ...b64(encodeSegment(segmentPrefix(3), change(three!), none).binaryData),
    };
    expect(Buffer.from(binary["journal-000001.check"]!, "base64").toString()).toMatch(/^[0-9a-f]{64} 1$/);
    const whole = readJournal(binary, none);
    expect(whole).toMatchObject({ seq: 3, pieces: [] });
    expect([...whole.journal.records.keys()]).toEqual([one!.key, two!.key, three!.key]);
    // Segment 2 garbage, segment 3 valid gzip of something else than its checksum says.
    const other = encodeSegment(segmentPrefix(3), change(one!), none).binaryData;
    const damaged = readJournal(
      {
        ...binary,
        "journal-000002.records.gz": "Z2FyYmFnZQ==",
        "journal-000003.records.gz": other["journal-000003.records.gz"]!.toString("base64"),
      },
      none,
    );
    expect([...damaged.journal.records.keys()]).toEqual([one!.key]);
    expect(damaged.pieces).toEqual([
      { what: expect.stringContaining("journal segment 2 is unreadable"), atRisk: 1 },
      { what: "journal segment 3 does not hold what its checksum says", atRisk: 1 },
    ]);
    // A segment of the previous version (no checksum entry) is trusted when it decodes.
    const { "journal-000001.check": _, ...old } = binary;
    expect(readJournal(old, none).pieces).toEqual([]);
  });

  it("the witness tells a lost head from a first start, and a head made in its place from one that replaced it", () => {
    const witness = { data: { "state-uid": "u1", records: "40", "in-flight": "2", "written-at": "2026-01-01T00:00:00Z" } };
    expect(witnessVerdict(undefined, undefined)).toEqual({ kind: "first-start" });
    expect(witnessVerdict(undefined, witness)).toEqual({ kind: "head-lost", uid: "u1", records: 42, at: "2026-01-01T00:00:00Z" });
    expect(witnessVerdict({ uid: "u1", data: {} }, witness)).toEqual({ kind: "head" });
    expect(witnessVerdict({ uid: "u2", data: { replaces: "u1" } }, witness)).toEqual({ kind: "head" });
    expect(witnessVerdict({ uid: "u2", data: {} }, witness)).toMatchObject({ kind: "head-replaced", uid: "u1", records: 42 });
    // A head written before witnesses existed is adopted.
    expect(witnessVerdict({ uid: "u2", data: {} }, undefined)).toEqual({ kind: "head" });
  });

  it("head formats: the sharded layout, the single-ConfigMap one of v1/v2 (migrated), anything else unknown", () => {
    expect(headFormat({ format: STATE_LAYOUT })).toBe("sharded");
    expect(headFormat({ format: "shiplog-acknowledged v2" })).toBe("single");
    expect(headFormat({})).toBe("single");
    expect(headFormat({ format: "shiplog-state v9" })).toBe("unknown");
  });

  it("the damage record: added to, read back, said in one line; a copy's name carries the time", () => {
    const now = new Date("2026-11-27T07:05:12.345Z");
    const first = addDamage(undefined, [{ what: "shard 1: gone", atRisk: 4 }], ["state-damaged-20261127t070512z"], now)!;
    expect(addDamage(first, [], [], now)).toBe(first);
    const both = addDamage(first, [{ what: "journal segment 3 is unreadable", atRisk: null }], [], new Date(0))!;
    expect(both).toMatchObject({ detected: "2026-11-27T07:05:12.345Z", atRisk: 4 });
    expect(parseDamage(JSON.stringify(both))).toEqual(both);
    expect(parseDamage("{not json")!.pieces[0]!.what).toBe("the head's damage record is unreadable");
    expect(damageReason(both)).toBe(
      "acknowledged state damaged (detected 2026-11-27T07:05:12.345Z): shard 1: gone; journal segment 3 is unreadable; " +
        "4 or more records may stay deployed at the service after their workloads are gone; kept aside: state-damaged-20261127t070512z " +
        "(runbook: ShiplogStateDamaged; clear data.damage of the head once recovered)",
    );
    expect(damagedCopyName("state-shard-0-a", now)).toBe("state-shard-0-a-damaged-20261127t070512z");
  });
});
