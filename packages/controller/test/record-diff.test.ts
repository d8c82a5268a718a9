import { describe, expect, it } from "vitest";
import { InMemoryAcknowledgedStore, type AcknowledgedRecord } from "@shiplog/controller";
import { chunk, computeDesiredState, diffRecords, entryFingerprint, groupRecords, recordKey } from "@shiplog/controller/internal";
import { DIGEST_A, DIGEST_B, DIGEST_C, MAPPING, deploymentWithPods, snapshot } from "./kube-fixtures.js";
import { random } from "./random-cluster.js";

const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const acked = (name: string, digest = DIGEST_A, extra: Partial<AcknowledgedRecord["entry"]> = {}): AcknowledgedRecord => ({
  key: recordKey(GROUP, name),
  group: GROUP,
  entry: {
    name: "docker.io/library/nginx",
    version: "1.25",
    digest: digest as `sha256:${string}`,
    status: "deployed",
    deployment_name: name,
    ...extra,
  },
});

describe("diffRecords", () => {
  const web = deploymentWithPods("web");
  const desired = computeDesiredState(snapshot({ pods: web.pods, workloads: web.workloads }), MAPPING);

  it("sends what is new or changed, nothing for what was acknowledged", () => {
    expect(diffRecords(desired, new Map()).map((p) => p.entry.deployment_name)).toEqual(["shop-web-app"]);
    const same = new Map([[recordKey(GROUP, "shop-web-app"), acked("shop-web-app")]]);
    expect(diffRecords(desired, same)).toEqual([]);
    const changed = new Map([[recordKey(GROUP, "shop-web-app"), acked("shop-web-app", DIGEST_B)]]);
    expect(diffRecords(desired, changed)[0]!.entry.digest).toBe(DIGEST_A);
  });

  it("decommissions acknowledged records no longer desired nor held, with their last digest", () => {
    const store = new Map([[recordKey(GROUP, "shop-old-app"), acked("shop-old-app", DIGEST_B)]]);
    const pending = diffRecords(desired, store).filter((p) => p.entry.deployment_name === "shop-old-app");
    expect(pending).toEqual([
      {
        key: recordKey(GROUP, "shop-old-app"),
        group: GROUP,
        entry: { ...acked("shop-old-app", DIGEST_B).entry, status: "decommissioned" },
      },
    ]);
    const held = { ...desired, held: new Set([recordKey(GROUP, "shop-old-app")]) };
    expect(diffRecords(held, store).filter((p) => p.entry.deployment_name === "shop-old-app")).toEqual([]);
  });

  it("resends everything on a full resync, and skips rejected fingerprints until they change", () => {
    const same = new Map([[recordKey(GROUP, "shop-web-app"), acked("shop-web-app")]]);
    expect(diffRecords(desired, same, { resendAll: true })).toHaveLength(1);
    const entry = desired.records.get(recordKey(GROUP, "shop-web-app"))!.entry;
    expect(diffRecords(desired, new Map(), { rejected: new Map([[recordKey(GROUP, "shop-web-app"), entryFingerprint(entry)]]) })).toEqual(
      [],
    );
    expect(diffRecords(desired, new Map(), { rejected: new Map([[recordKey(GROUP, "shop-web-app"), "older"]]) })).toHaveLength(1);
  });

  it("write-ahead: an in-flight entry may exist at the service; resent while it differs, decommissioned once not desired", () => {
    const web = recordKey(GROUP, "shop-web-app");
    const entry = desired.records.get(web)!.entry;
    const flying = (digest: string) => new Map([[web, acked("shop-web-app", digest)]]);
    // Acknowledged and in flight with the desired content: nothing to do, whatever the answer was.
    expect(diffRecords(desired, new Map([[web, acked("shop-web-app")]]), { inFlight: flying(DIGEST_A) })).toEqual([]);
    // In flight with another entry: the service may hold either, so the desired one goes again.
    expect(diffRecords(desired, new Map([[web, acked("shop-web-app")]]), { inFlight: flying(DIGEST_B) }).map((p) => p.entry)).toEqual([
      entry,
    ]);
    // In flight only (never acknowledged): sent again.
    expect(diffRecords(desired, new Map(), { inFlight: flying(DIGEST_A) }).map((p) => p.entry)).toEqual([entry]);
    // No longer desired: decommissioned with the in-flight entry (the latest the service may hold), acknowledged or not.
    const nothing = { ...desired, records: new Map() };
    const gone = (ack: Map<string, AcknowledgedRecord>) => diffRecords(nothing, ack, { inFlight: flying(DIGEST_B) });
    for (const ack of [new Map<string, AcknowledgedRecord>(), new Map([[web, acked("shop-web-app")]])]) {
      expect(gone(ack)).toEqual([
        { key: web, group: GROUP, entry: { ...acked("shop-web-app", DIGEST_B).entry, status: "decommissioned" } },
      ]);
    }
    // Held names are left alone, in flight or not.
    expect(diffRecords({ ...nothing, held: new Set([web]) }, new Map(), { inFlight: flying(DIGEST_B) })).toEqual([]);
  });

  it("with keys: the full diff's entries for those keys and every in-flight key, nothing else", () => {
    const text = (list: ReturnType<typeof diffRecords>) =>
      list.map((p) => JSON.stringify([p.key, p.group, entryFingerprint(p.entry)])).sort();
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
      const names = Array.from({ length: 12 }, (_, i) => `shop-svc-${i}-app`);
      const entryOf = (name: string, status: "deployed" | "decommissioned" = "deployed") =>
        acked(name, pick([DIGEST_A, DIGEST_B, DIGEST_C]), { status });
      const candidate = (name: string) => ({
        workload: { kind: "Deployment", namespace: "shop", name },
        pod: "p",
        ready: true,
        revision: 1,
        createdAt: "",
      });
      const state = { records: new Map(), held: new Set<string>(), conflicts: [], skipped: [], warnings: [] } as Parameters<
        typeof diffRecords
      >[0];
      const acknowledged = new Map<string, AcknowledgedRecord>();
      const inFlight = new Map<string, AcknowledgedRecord>();
      const rejected = new Map<string, string>();
      for (const name of names) {
        const key = recordKey(GROUP, name);
        const roll = next();
        if (roll < 0.4) state.records.set(key, { ...entryOf(name), ...candidate(name) });
        else if (roll < 0.55) state.held.add(key);
        if (next() < 0.6) acknowledged.set(key, entryOf(name, next() < 0.8 ? "deployed" : "decommissioned"));
        if (next() < 0.2) inFlight.set(key, entryOf(name));
        if (next() < 0.1) rejected.set(key, entryFingerprint((state.records.get(key) ?? entryOf(name, "decommissioned")).entry));
      }
      const keys = names.map((n) => recordKey(GROUP, n)).filter(() => next() < 0.5);
      const options = { rejected, inFlight, resendAll: next() < 0.1 };
      const full = diffRecords(state, acknowledged, options);
      const looked = new Set([...keys, ...inFlight.keys()]);
      expect(text(diffRecords(state, acknowledged, { ...options, keys })), `seed ${seed}`).toEqual(
        text(full.filter((p) => looked.has(p.key))),
      );
    }
  });

  it("fingerprints ignore tag and risk order", () => {
    const a = acked("x", DIGEST_A, { tags: { a: "1", b: "2" }, runtime_risks: ["internet-exposed", "sensitive-data"] }).entry;
    const b = acked("x", DIGEST_A, { tags: { b: "2", a: "1" }, runtime_risks: ["sensitive-data", "internet-exposed"] }).entry;
    expect(entryFingerprint(a)).toBe(entryFingerprint(b));
    expect(entryFingerprint(a)).not.toBe(entryFingerprint({ ...b, version: "2" }));
  });
});

describe("acknowledged store, grouping and chunking", () => {
  it("forgets a record once its decommission is acknowledged", () => {
    const store = new InMemoryAcknowledgedStore();
    store.acknowledge([acked("a"), acked("b")]);
    store.acknowledge([{ ...acked("a"), entry: { ...acked("a").entry, status: "decommissioned" } }]);
    expect([...store.all().keys()]).toEqual([recordKey(GROUP, "b")]);
  });

  it("groups by logical and physical environment and chunks at the batch size", () => {
    const other = { logicalEnvironment: "staging" };
    const groups = groupRecords([
      { key: "1", group: GROUP, entry: acked("a").entry },
      { key: "2", group: other, entry: acked("b").entry },
      { key: "3", group: { ...GROUP }, entry: acked("c").entry },
    ]);
    expect(groups.map((g) => [g.group.logicalEnvironment, g.records.length])).toEqual([
      ["production", 2],
      ["staging", 1],
    ]);
    expect(
      chunk(
        Array.from({ length: 2500 }, (_, i) => i),
        1000,
      ).map((c) => c.length),
    ).toEqual([1000, 1000, 500]);
  });
});
