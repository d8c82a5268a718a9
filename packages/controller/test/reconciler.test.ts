// The reconciler with plain data: desired state, acknowledged and in-flight sets, earlier bookkeeping and the time
// in; batches, intents and the next bookkeeping out.
import { describe, expect, it } from "vitest";
import type { AcknowledgedRecord } from "../src/state/acknowledged-state.js";
import type { DesiredRecord, DesiredState } from "../src/mapping/desired-state.js";
import { recordKey, type RecordGroup } from "../src/mapping/pod-records.js";
import {
  initialReconcilerState,
  packBatches,
  planRound,
  settleRound,
  type ReconcilerSettings,
  type ReconcilerState,
  type RoundInput,
} from "../src/flush/reconciler.js";
import type { PendingRecord } from "../src/mapping/record-diff.js";
import { HOUR_MS } from "../src/flush/write-budget.js";

const EU: RecordGroup = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const US: RecordGroup = { logicalEnvironment: "production", physicalEnvironment: "us-east-1" };
const SETTINGS: ReconcilerSettings = { batchSize: 3, retryMaxDelayMs: 1000, resyncCallsPerHour: 4, random: () => 1 };
const digest = (n: number) => `sha256:${String(n % 10).repeat(64)}` as const;

function record(name: string, version = 1, group = EU): DesiredRecord {
  return {
    key: recordKey(group, name),
    group,
    entry: { name: `ghcr.io/acme/${name}`, digest: digest(version), version: `${version}.0`, status: "deployed", deployment_name: name },
    workload: { kind: "Deployment", namespace: "shop", name },
    pod: `${name}-pod`,
    ready: true,
    revision: version,
    createdAt: "2026-01-01T00:00:00Z",
  };
}

function desired(records: DesiredRecord[], held: string[] = []): DesiredState {
  return { records: new Map(records.map((r) => [r.key, r])), held: new Set(held), conflicts: [], skipped: [], warnings: [] };
}

const ack = (r: DesiredRecord | PendingRecord): AcknowledgedRecord => ({ key: r.key, group: r.group, entry: r.entry });
const names = (records: readonly PendingRecord[]) => records.map((r) => r.entry.deployment_name);

/** A service that accepts everything: acknowledged and in-flight sets as the store keeps them. */
class World {
  acknowledged = new Map<string, AcknowledgedRecord>();
  inFlight = new Map<string, AcknowledgedRecord>();
  state: ReconcilerState = initialReconcilerState();

  round(input: Omit<RoundInput, "acknowledged" | "inFlight">, accept: (r: PendingRecord) => boolean = () => true) {
    const plan = planRound(this.state, { ...input, acknowledged: this.acknowledged, inFlight: this.inFlight }, SETTINGS);
    for (const r of plan.intents) this.inFlight.set(r.key, ack(r));
    const sent = plan.batches.flatMap((b) => b.records);
    const accepted = sent.filter(accept);
    const rejected = sent.filter((r) => !accept(r)).map((r) => ({ record: r, reason: "refused" }));
    for (const r of accepted) {
      this.inFlight.delete(r.key);
      if (r.entry.status === "decommissioned") this.acknowledged.delete(r.key);
      else this.acknowledged.set(r.key, ack(r));
    }
    this.state = settleRound(plan.state, plan, { accepted, rejected, requests: plan.batches.length }, input.now, SETTINGS);
    return plan;
  }
}

describe("planRound", () => {
  it("sends what the budget allows now, writes intents only for that, and keeps the rest", () => {
    const world = new World();
    const all = Array.from({ length: 8 }, (_, i) => record(`app-${i}`));
    const plan = world.round({ desired: desired(all), now: 0, calls: 1 });
    expect(plan.batches).toHaveLength(1);
    expect(plan.batches[0]!.records).toHaveLength(3);
    expect(names(plan.intents)).toEqual(names(plan.batches[0]!.records));
    expect(plan.pending).toBe(8);
    expect(plan.deferredCalls).toEqual({ budget: 2, resyncShare: 0 });
    expect(world.state.backlog.size).toBe(5);
    // The next rounds finish it, and nothing is sent twice.
    const sent = new Set(names(plan.batches[0]!.records));
    for (let now = 1; world.state.backlog.size > 0; now++) {
      for (const name of names(world.round({ desired: desired(all), now, calls: 1 }).batches.flatMap((b) => b.records))) {
        expect(sent.has(name)).toBe(false);
        sent.add(name);
      }
    }
    expect(sent.size).toBe(8);
    expect(world.inFlight.size).toBe(0);
  });

  it("when the budget is short, the most recent changes go first; an unchanged waiting entry keeps its place", () => {
    const world = new World();
    const base = ["a", "b", "c", "d", "e"].map((n) => record(n));
    world.round({ desired: desired(base), now: 0, calls: 0 });
    // Later, c and e change again (they move to the front); a new one, f, comes last of all.
    const later = [base[0]!, base[1]!, record("c", 2), base[3]!, record("e", 2)];
    world.round({ desired: desired(later), now: 10, calls: 0 });
    const plan = world.round({ desired: desired([...later, record("f")]), now: 20, calls: 2 });
    expect(plan.batches.map((b) => names(b.records))).toEqual([
      ["f", "e", "c"],
      ["d", "b", "a"],
    ]);
  });

  it("an entry already in flight with the same content needs no new intent; another content does", () => {
    const world = new World();
    const web = record("web");
    world.inFlight.set(web.key, ack(web));
    const api = record("api");
    world.inFlight.set(api.key, ack(record("api", 2)));
    const plan = world.round({ desired: desired([web, api]), now: 0, calls: 1 });
    expect(names(plan.batches[0]!.records).sort()).toEqual(["api", "web"]);
    expect(names(plan.intents)).toEqual(["api"]);
  });

  it("an in-flight entry no longer desired is decommissioned with the in-flight content; a held name is left alone", () => {
    const world = new World();
    const gone = record("gone", 3);
    world.inFlight.set(gone.key, ack(gone));
    const kept = record("kept");
    world.acknowledged.set(kept.key, ack(kept));
    const plan = world.round({ desired: desired([], [kept.key]), now: 0, calls: 1 });
    expect(plan.batches[0]!.records.map((r) => [r.entry.deployment_name, r.entry.status, r.entry.digest])).toEqual([
      ["gone", "decommissioned", digest(3)],
    ]);
    expect(plan.intents).toEqual([]);
    expect(world.inFlight.size).toBe(0);
    expect([...world.acknowledged.keys()]).toEqual([kept.key]);
  });

  it("a refused entry waits a growing delay from retryMaxDelay before it goes again, and goes at once when it changes", () => {
    const world = new World();
    const bad = record("bad");
    const refuse = (r: PendingRecord) => r.entry.deployment_name !== "bad" || r.entry.version === "2.0";
    world.round({ desired: desired([bad]), now: 0, calls: 1 }, refuse);
    expect(world.state.rejected.get(bad.key)).toMatchObject({ attempts: 1, retryAt: 1000 });
    expect(world.round({ desired: desired([bad]), now: 999, calls: 1 }, refuse).batches).toEqual([]);
    expect(world.round({ desired: desired([bad]), now: 999, calls: 1 }, refuse).nextDueAt).toBe(1000);
    expect(names(world.round({ desired: desired([bad]), now: 1000, calls: 1 }, refuse).batches[0]!.records)).toEqual(["bad"]);
    expect(world.state.rejected.get(bad.key)).toMatchObject({ attempts: 2, retryAt: 3000 });
    // Changed: sent at once, and accepted.
    expect(names(world.round({ desired: desired([record("bad", 2)]), now: 1001, calls: 1 }, refuse).batches[0]!.records)).toEqual(["bad"]);
    expect(world.state.rejected.size).toBe(0);
  });

  it("with the keys that changed, diffs only those (and the in-flight set) and carries the rest: same result as diffing all", () => {
    // A random walk of changes; two worlds, one told the changed keys, one diffing everything, must send the same.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const full = new World();
    const keyed = new World();
    let current = new Map<string, DesiredRecord>();
    for (let now = 0; now < 60; now++) {
      const changed = new Set<string>();
      for (let i = 0; i < 4; i++) {
        const name = `app-${Math.floor(random() * 12)}`;
        const key = recordKey(random() < 0.3 ? US : EU, name);
        const next = new Map(current);
        if (random() < 0.25) next.delete(key);
        else next.set(key, record(name, 1 + Math.floor(random() * 3), key.includes("us-east-1") ? US : EU));
        current = next;
        changed.add(key);
      }
      const state = desired([...current.values()]);
      const calls = 1 + Math.floor(random() * 2);
      const a = full.round({ desired: state, now, calls });
      const b = keyed.round({ desired: state, now, calls, changedKeys: changed });
      expect(
        b.batches.map((x) => names(x.records)),
        `round ${now}`,
      ).toEqual(a.batches.map((x) => names(x.records)));
    }
    expect([...keyed.acknowledged.keys()].sort()).toEqual([...full.acknowledged.keys()].sort());
  });

  it("the first round, and each round starting a resync slice, diff everything whatever keys they are told changed", () => {
    const world = new World();
    const web = record("web");
    const aaa = record("aaa");
    world.acknowledged.set(aaa.key, ack(aaa));
    // Told nothing changed, the first round still finds web.
    expect(names(world.round({ desired: desired([aaa, web]), now: 0, calls: 1, changedKeys: new Set() }).batches[0]!.records)).toEqual([
      "web",
    ]);
    // The store loses web's acknowledgement behind the reconciler's back (a merged late write): a keyed round misses
    // it; the next round starting a resync slice (of one record, aaa) finds it as a change.
    world.acknowledged.delete(web.key);
    expect(world.round({ desired: desired([aaa, web]), now: 1, calls: 1, changedKeys: new Set() }).batches).toEqual([]);
    const slice = world.round({ desired: desired([aaa, web]), now: 2, calls: 2, changedKeys: new Set(), resyncSlice: 1 });
    expect(slice.batches.map((b) => [names(b.records), b.resync])).toEqual([
      [["web"], false],
      [["aaa"], true],
    ]);
  });

  it("while the pods are still listing, rounds post what is listed and decommission nothing; the first complete round does", () => {
    const world = new World();
    const [gone, web, api] = [record("gone"), record("web"), record("api")];
    const inFlightGone = ack(record("gone-flying"));
    world.acknowledged.set(gone.key, ack(gone));
    world.inFlight.set(inFlightGone.key, inFlightGone);
    // Only web is listed so far: too few for a full batch (3), nothing goes; gone and gone-flying are only not listed yet.
    expect(world.round({ desired: desired([web]), now: 0, calls: 1, partial: true }).batches).toEqual([]);
    // api and two more are listed next: a keyed partial round posts a full batch and still nothing else.
    const [a, b] = [record("a"), record("b")];
    const listed = desired([web, api, a, b]);
    const next = world.round({ desired: listed, now: 1, calls: 2, changedKeys: new Set([api.key, a.key, b.key]), partial: true });
    expect(next.batches.map((x) => names(x.records).toSorted())).toEqual([["a", "api", "b"]]);
    // The list is complete, told nothing changed: the round diffs everything and decommissions the two.
    const complete = world.round({ desired: listed, now: 2, calls: 2, changedKeys: new Set() });
    expect(complete.batches.flatMap((x) => x.records.map((r) => `${r.entry.deployment_name} ${r.entry.status}`)).sort()).toEqual([
      "gone decommissioned",
      "gone-flying decommissioned",
      "web deployed",
    ]);
  });

  it("a store that read its state again (a new acknowledged map) makes the next round diff everything", () => {
    const world = new World();
    const web = record("web");
    world.round({ desired: desired([web]), now: 0, calls: 1 });
    expect(world.round({ desired: desired([web]), now: 1, calls: 1, changedKeys: new Set() }).batches).toEqual([]);
    // Read again, without web (a previous leader's late write merged): the same keyed round now finds it.
    const reread = new Map(world.acknowledged);
    reread.delete(web.key);
    world.acknowledged = reread;
    expect(names(world.round({ desired: desired([web]), now: 2, calls: 1, changedKeys: new Set() }).batches[0]!.records)).toEqual(["web"]);
  });

  it("the resync resends a slice per interval, in rotation, with calls no change needs, within its share of the hour", () => {
    const world = new World();
    const all = Array.from({ length: 30 }, (_, i) => record(`app-${String(i).padStart(2, "0")}`));
    // Everything acknowledged already: only the resync sends.
    for (const r of all) world.acknowledged.set(r.key, ack(r));
    const resent: string[][] = [];
    for (let interval = 0; interval < 4; interval++) {
      const now = interval * 600_000;
      // A change takes the round's only call; the slice waits for the next round.
      const changed = world.round({ desired: desired([...all.slice(1), record("app-00", 2 + interval)]), now, calls: 1, resyncSlice: 6 });
      expect(changed.batches.map((b) => b.resync)).toEqual([false]);
      all[0] = record("app-00", 2 + interval);
      const names_: string[] = [];
      for (let i = 1; i <= 4; i++)
        names_.push(...world.round({ desired: desired(all), now: now + i, calls: 1 }).batches.flatMap((b) => names(b.records)));
      resent.push(names_);
    }
    // Slices of 6 in key order, wrapping around; the change to app-00 went as a change, not again as resync.
    expect(resent[0]).toEqual(["app-01", "app-02", "app-03", "app-04", "app-05"]);
    expect(resent[1]).toEqual(["app-06", "app-07", "app-08", "app-09", "app-10", "app-11"]);
    // Two calls per interval: 4 in the hour is the share; the third interval's slice waits for the hour to move on.
    expect(resent[2]).toEqual([]);
    const waiting = world.round({ desired: desired(all), now: 1_800_010, calls: 1 });
    expect(waiting.deferredCalls.resyncShare).toBe(4);
    // The first resync call (at 1 ms) leaves the hour at HOUR_MS + 1: one call's room again.
    expect(waiting.nextDueAt).toBe(HOUR_MS + 1);
    expect(world.round({ desired: desired(all), now: HOUR_MS, calls: 1 }).batches).toEqual([]);
    expect(names(world.round({ desired: desired(all), now: HOUR_MS + 1, calls: 1 }).batches.flatMap((b) => b.records))).toEqual([
      "app-12",
      "app-13",
      "app-14",
    ]);
  });
});

describe("packBatches", () => {
  it("fills one batch per environment in priority order, at most `calls` batches of at most batchSize", () => {
    const entries = [
      record("a", 1, EU),
      record("b", 1, US),
      record("c", 1, EU),
      record("d", 1, EU),
      record("e", 1, EU),
      record("f", 1, US),
    ];
    expect(packBatches(entries, 2, 3).map(names)).toEqual([
      ["a", "c", "d"],
      ["b", "f"],
    ]);
    expect(packBatches(entries, 1, 3).map(names)).toEqual([["a", "c", "d"]]);
    expect(packBatches(entries, Number.POSITIVE_INFINITY, 3).map(names)).toEqual([["a", "c", "d"], ["b", "f"], ["e"]]);
    expect(packBatches(entries, 0, 3)).toEqual([]);
  });
});
