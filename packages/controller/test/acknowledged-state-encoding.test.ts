import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { AcknowledgedRecord } from "@shiplog/controller";
import {
  AcknowledgedStateFormatError,
  CONFIGMAP_MAX_BYTES,
  decodeAcknowledgedState,
  decodeRecordSet,
  encodeAcknowledgedState,
  recordKey,
} from "@shiplog/controller/internal";
import { bigState, byKey, digest, record } from "./state-fixtures.js";

describe("acknowledged state encoding", () => {
  it("round-trips every field exactly, across environments, with tabs, newlines, backslashes and empty strings", () => {
    const records = [
      record(
        { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" },
        {
          deployment_name: "shop-web-app",
          version: "1.25",
          tags: { team: "shop" },
          runtime_risks: ["internet-exposed", "sensitive-data"],
          github_repository: "web",
        },
      ),
      record({ logicalEnvironment: "production" }, { deployment_name: "shop-web-app" }),
      record(
        { logicalEnvironment: "staging", physicalEnvironment: "" },
        { deployment_name: "odd\tname\nwith\\escapes", tags: { "k\t": "v\nw\\" }, version: "" },
      ),
      record({ logicalEnvironment: "pre\tprod" }, { deployment_name: "x", name: "docker.io/library/nginx", digest: digest("x") }),
    ];
    const decoded = decodeAcknowledgedState(encodeAcknowledgedState(records));
    expect(byKey(decoded)).toEqual(byKey(records));
    expect(new Map(decoded.map((r) => [r.key, r.group]))).toEqual(new Map(records.map((r) => [r.key, r.group])));
    // The decoded entry is exactly what was acknowledged: a decommission built from it carries the same fields.
    const first = decoded.find((r) => r.key === records[0]!.key)!;
    expect(first.entry).toEqual(records[0]!.entry);
  });

  it("keeps only deployed records (a decommissioned one has nothing left to do)", () => {
    const group = { logicalEnvironment: "production" };
    const decoded = decodeAcknowledgedState(
      encodeAcknowledgedState([record(group, { deployment_name: "a" }), record(group, { deployment_name: "b", status: "decommissioned" })]),
    );
    expect(decoded.map((r) => r.entry.deployment_name)).toEqual(["a"]);
  });

  it("10,000 records, each with its own digest, take under 0.4 MB: 320 KB of raw digests and ~55 KB of gzip text", () => {
    const records = bigState(10_000);
    const encoded = encodeAcknowledgedState(records);
    expect(encoded.records).toBe(10_000);
    expect(encoded.digests.length).toBe(320_000);
    // Measured: 54-56 KB for the text columns (row-per-line gzip took 452 KB in all, hex digests included).
    expect(encoded.text.length).toBeLessThan(70_000);
    expect(encoded.text.length + encoded.digests.length).toBeLessThan(CONFIGMAP_MAX_BYTES * 0.4);
    expect(byKey(decodeAcknowledgedState(encoded))).toEqual(byKey(records));
  });

  it("refuses data that is not gzip, another format, truncated columns or missing digests, with a stable code", () => {
    const good = encodeAcknowledgedState([record({ logicalEnvironment: "production" }, { deployment_name: "a" })]);
    expect(decodeAcknowledgedState(good)).toHaveLength(1);
    const attempts = [
      () => decodeAcknowledgedState({ text: Buffer.from("not gzip"), digests: Buffer.alloc(0) }),
      () => decodeAcknowledgedState({ text: gzipSync("shiplog-acknowledged v9\n"), digests: Buffer.alloc(0) }),
      () =>
        decodeAcknowledgedState({
          text: gzipSync("shiplog-acknowledged v1\nrecords 1\nenvironments 1\nproduction\t\ncolumn group\n0\n"),
          digests: Buffer.alloc(32),
        }),
      () => decodeAcknowledgedState({ text: good.text, digests: Buffer.alloc(31) }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(AcknowledgedStateFormatError);
      try {
        attempt();
      } catch (error) {
        expect((error as AcknowledgedStateFormatError).code).toBe("acknowledged_state_unreadable");
      }
    }
  });

  it("reads state written in format v1 (one digest per record, no dictionary)", () => {
    const records = bigState(50);
    const v2 = encodeAcknowledgedState(records);
    // Rewrite the v2 encoding as v1: drop the digest_ref column, one digest per record in record order.
    const lines = gunzipSync(v2.text).toString("utf8").split("\n");
    lines[0] = "shiplog-acknowledged v1";
    const at = lines.indexOf("column digest_ref");
    const v1Lines = [...lines.slice(0, at), ""];
    const decoded = decodeAcknowledgedState(v2);
    const digests = Buffer.concat(decoded.map((r) => Buffer.from(r.entry.digest.slice(7), "hex")));
    expect(byKey(decodeAcknowledgedState({ text: gzipSync(v1Lines.join("\n")), digests }))).toEqual(byKey(records));
  });

  it("reads state written in format v2 (no removals), which the single state ConfigMap used", () => {
    const records = bigState(50);
    const lines = gunzipSync(encodeAcknowledgedState(records).text).toString("utf8").split("\n");
    expect(lines[0]).toBe("shiplog-acknowledged v3");
    lines[0] = "shiplog-acknowledged v2";
    expect(byKey(decodeAcknowledgedState({ text: gzipSync(lines.join("\n")), digests: encodeAcknowledgedState(records).digests }))).toEqual(
      byKey(records),
    );
  });

  it("v3 carries removals (a journal segment's deleted keys) beside records; a removal takes no digest", () => {
    const kept = [record({ logicalEnvironment: "production", physicalEnvironment: "eu-west-1" }, { deployment_name: "web" })];
    const removed = [
      recordKey({ logicalEnvironment: "production", physicalEnvironment: "eu-west-1" }, "gone"),
      recordKey({ logicalEnvironment: "staging" }, "odd\tname"),
    ];
    const encoded = encodeAcknowledgedState(kept, removed);
    expect(encoded.records).toBe(1);
    expect(encoded.digests.length).toBe(32);
    const decoded = decodeRecordSet(encoded);
    expect(byKey(decoded.records)).toEqual(byKey(kept));
    expect(decoded.removed.sort()).toEqual([...removed].sort());
    expect(decoded.checksum).toBe(encoded.checksum);
    // Where only records may be, removals are refused.
    expect(() => decodeAcknowledgedState(encoded)).toThrow(AcknowledgedStateFormatError);
  });

  it("v4 carries settlements (in-flight keys the service accepted) beside removals; a set without them is still v3", () => {
    const group = { logicalEnvironment: "production" };
    const settled = [recordKey(group, "web"), recordKey({ logicalEnvironment: "staging", physicalEnvironment: "eu" }, "api\tx")];
    const encoded = encodeAcknowledgedState([record(group, { deployment_name: "new" })], [recordKey(group, "gone")], settled);
    expect(gunzipSync(encoded.text).toString("utf8").split("\n")[0]).toBe("shiplog-acknowledged v4");
    expect(encoded.digests.length).toBe(32);
    const decoded = decodeRecordSet(encoded);
    expect(decoded.records.map((r) => r.entry.deployment_name)).toEqual(["new"]);
    expect(decoded.removed).toEqual([recordKey(group, "gone")]);
    expect(decoded.settled.sort()).toEqual([...settled].sort());
    expect(() => decodeAcknowledgedState(encoded)).toThrow(AcknowledgedStateFormatError);
    // A v3 reader's format does not hold settlements: the same rows under a v3 header are refused, not misread.
    const lines = gunzipSync(encoded.text).toString("utf8").split("\n");
    lines[0] = "shiplog-acknowledged v3";
    expect(() => decodeRecordSet({ text: gzipSync(lines.join("\n")), digests: encoded.digests })).toThrow(AcknowledgedStateFormatError);
    const plain = encodeAcknowledgedState([record(group, { deployment_name: "new" })], [recordKey(group, "gone")]);
    expect(gunzipSync(plain.text).toString("utf8").split("\n")[0]).toBe("shiplog-acknowledged v3");
  });

  it("is canonical: the same records in any order, with tags in any key order, give the same bytes and checksum", () => {
    const records = bigState(2_000);
    const shuffled = [...records]
      .reverse()
      .map((r) => ({ ...r, entry: { ...r.entry, tags: Object.fromEntries(Object.entries(r.entry.tags ?? {}).reverse()) } }));
    const a = encodeAcknowledgedState(records);
    const b = encodeAcknowledgedState(shuffled);
    expect(b.checksum).toBe(a.checksum);
    expect(b.text.equals(a.text)).toBe(true);
    expect(b.digests.equals(a.digests)).toBe(true);
    // The checksum is over the uncompressed form: another compression of the same text keeps it.
    expect(decodeRecordSet({ text: gzipSync(gunzipSync(a.text), { level: 1 }), digests: a.digests }).checksum).toBe(a.checksum);
    expect(encodeAcknowledgedState(records.slice(1)).checksum).not.toBe(a.checksum);
  });

  it("records sharing images share one digest (dictionary): 30,000 records, 1,000 distinct digests", () => {
    const group = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
    // 300 tenant namespaces running the same 50 two-container apps. (150,000 records: test/bench/controller-sync.)
    const digests = Array.from({ length: 1000 }, (_, i) => digest(String(i)));
    const records: AcknowledgedRecord[] = Array.from({ length: 30_000 }, (_, i) => {
      const app = `app-${Math.floor(i / 300) % 50}`;
      const container = i % 2 === 0 ? "app" : "proxy";
      return record(group, {
        deployment_name: `tenant-${i % 300}-${app}-${container}`,
        name: `ghcr.io/acme/${app}-${container}`,
        digest: digests[i % 1000]!,
        version: `1.${i % 7}.${i % 11}`,
        github_repository: "web",
      });
    });
    const encoded = encodeAcknowledgedState(records);
    expect(encoded.digests.length).toBe(1000 * 32);
    expect(encoded.text.length + encoded.digests.length).toBeLessThan(CONFIGMAP_MAX_BYTES / 8);
    expect(byKey(decodeAcknowledgedState(encoded))).toEqual(byKey(records));
  });
});
