// The flush loop on a virtual clock: the coalescing window, the write budget's windows (the real pacer plugin around
// a service that accepts in memory), per-round intents, state-write retries and the last rounds on stop. No real
// waits: time moves only when the test moves it.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { InMemoryAcknowledgedStore, type PersistOptions } from "../src/state/acknowledged-state.js";
import { BatchSender } from "../src/flush/batch-sender.js";
import type { DesiredRecord, DesiredState } from "../src/mapping/desired-state.js";
import { DesiredStateReport } from "../src/mapping/desired-state-report.js";
import { FlushLoop } from "../src/flush/loop.js";
import { ControllerMetrics } from "../src/observability/metrics.js";
import { recordKey } from "../src/mapping/pod-records.js";
import { SendGate } from "../src/flush/send-gate.js";
import { StatePersistence } from "../src/state/persistence.js";
import { WriteBudget, decodeBudgetCalls, writeBudgetParticipant } from "../src/flush/write-budget.js";
import { acceptingApi } from "./accepting-api.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const logger = pino({ level: "silent" });

function record(name: string, version = 1): DesiredRecord {
  return {
    key: recordKey(GROUP, name),
    group: GROUP,
    entry: { name: `ghcr.io/acme/${name}`, digest: `sha256:${String(version % 10).repeat(64)}`, status: "deployed", deployment_name: name },
    workload: { kind: "Deployment", namespace: "shop", name },
    pod: `${name}-pod`,
    ready: true,
    revision: version,
    createdAt: "2026-01-01T00:00:00Z",
  };
}

/** A store whose writes fail while `failing` is set, and take `delayMs` on the clock when one is given. */
class Store extends InMemoryAcknowledgedStore {
  failing = false;
  writes = 0;
  /** The budget's unanswered calls each write carried. */
  unansweredByWrite: number[] = [];
  delay: ((ms: number) => Promise<void>) | undefined;
  delayMs = 0;
  override async persist(options: PersistOptions = {}): Promise<void> {
    this.writes += 1;
    const budget = options.sections?.get("budget-calls")?.text;
    this.unansweredByWrite.push(budget === undefined ? -1 : (decodeBudgetCalls(budget)?.unanswered ?? -1));
    if (this.delayMs > 0) await this.delay?.(this.delayMs);
    if (this.failing) throw new Error('configmaps "state" not found (404)');
  }
}

interface Call {
  at: number;
  names: string[];
  /** The in-flight set when the call left: the write-ahead of this round only. */
  inFlight: number;
}

function setup(
  options: {
    batchSize?: number;
    perMinute?: number;
    minIntervalMs?: number;
    windowMs?: number;
    maxWaitMs?: number;
    onCall?: (names: string[]) => void;
  } = {},
) {
  /** Every cache listed, or only the workloads' (the pods still listing). */
  const caches = { synced: true, ownersSynced: true };
  const clock = new VirtualClock();
  const records = new Map<string, DesiredRecord>();
  const desired = (): DesiredState => ({ records: new Map(records), held: new Set(), conflicts: [], skipped: [], warnings: [] });
  const store = new Store();
  store.delay = (ms) => clock.sleep(ms);
  const metrics = new ControllerMetrics();
  const budget = new WriteBudget({ perMinute: options.perMinute ?? 80, perHour: 500, minIntervalMs: options.minIntervalMs ?? 0 });
  const calls: Call[] = [];
  const api = acceptingApi(budget, clock, (params) => {
    calls.push({ at: clock.now(), names: params.deployments.map((d) => d.deployment_name), inFlight: store.inFlight().size });
    options.onCall?.(params.deployments.map((d) => d.deployment_name));
  });
  const batchSize = options.batchSize ?? 1000;
  const sender = new BatchSender({
    api,
    org: "acme",
    cluster: "c",
    batchSize,
    concurrency: 1,
    dryRun: false,
    logger,
    clock,
    gate: new SendGate({ minDelayMs: 1000, maxDelayMs: 60_000 }),
  });
  const leadership = new AbortController();
  const persistence = new StatePersistence({
    store,
    clock,
    logger,
    metrics,
    participants: [writeBudgetParticipant(budget)],
    retryMinDelayMs: 1000,
    retryMaxDelayMs: 8000,
  });
  const loop = new FlushLoop({
    clock,
    logger,
    metrics,
    source: { current: () => ({ desired: desired() }) },
    report: new DesiredStateReport(logger, metrics),
    persistence,
    sender,
    budget,
    reconciler: { batchSize, retryMaxDelayMs: 60_000, resyncCallsPerHour: 250 },
    settings: {
      windowMs: options.windowMs ?? 200,
      maxWaitMs: options.maxWaitMs ?? 1000,
      heartbeatMs: 1000,
      callsPerRound: 4,
      resyncIntervalMs: 0,
      resyncSliceRecords: 0,
      retryMinDelayMs: 1000,
      retryMaxDelayMs: 8000,
      dryRun: false,
    },
    fence: { leading: () => true, signal: leadership.signal },
    synced: () => caches.synced,
    ownersSynced: () => caches.ownersSynced,
  });
  const change = (...changed: DesiredRecord[]) => {
    for (const r of changed) records.set(r.key, r);
    loop.notifyChange();
  };
  return { clock, loop, calls, store, change, records, budget, caches };
}

describe("the flush loop", () => {
  it("a lone change is sent once the cluster has been quiet for the window", async () => {
    const { clock, loop, calls, change } = setup();
    loop.start();
    loop.startedLeading();
    await clock.advance(0);
    expect(calls).toEqual([]);
    const t0 = clock.now() + 5000;
    await clock.advance(5000);
    change(record("web"));
    await clock.advance(199);
    expect(calls).toEqual([]);
    await clock.advance(1);
    expect(calls).toEqual([{ at: t0 + 200, names: ["web"], inFlight: 1 }]);
  });

  it("a stream of changes (a rollout) goes out at the maximum wait, in one full call per second", async () => {
    const { clock, loop, calls, change } = setup({ batchSize: 1000 });
    loop.start();
    loop.startedLeading();
    await clock.advance(2000);
    const t0 = clock.now();
    // 3 s of changes, 100 every 100 ms: 3,000 records.
    for (let tick = 0; tick < 30; tick++) {
      change(...Array.from({ length: 100 }, (_, i) => record(`app-${tick * 100 + i}`)));
      await clock.advance(100);
    }
    await clock.advance(2000);
    expect(calls.map((c) => c.at - t0)).toEqual([1000, 2000, 3000]);
    expect(calls.map((c) => c.names.length)).toEqual([1000, 1000, 1000]);
    expect(calls.reduce((n, c) => n + c.names.length, 0)).toBe(3000);
  });

  it("a backlog goes at once while the minute has room, 4 calls a round under one intent write; then at the window's pace", async () => {
    const { clock, loop, calls, change } = setup({ batchSize: 1000, perMinute: 6 });
    change(...Array.from({ length: 9500 }, (_, i) => record(`app-${i}`)));
    loop.start();
    loop.startedLeading();
    await clock.advance(10_000);
    // Six calls at once (rounds of 4 and 2), each round's intents covering its own calls only.
    const t0 = calls[0]!.at;
    expect(calls.map((c) => c.at - t0)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(calls.map((c) => c.inFlight)).toEqual([4000, 4000, 4000, 4000, 2000, 2000]);
    expect(loop.status().pending).toBe(3500);
    // The rest once the first calls' answers are a minute old: no 60 s holds more than 6.
    await clock.advance(60_000);
    expect(calls.map((c) => c.at - t0)).toEqual([0, 0, 0, 0, 0, 0, 60_000, 60_000, 60_000, 60_000]);
    expect(calls.map((c) => c.names.length).slice(6)).toEqual([1000, 1000, 1000, 500]);
    expect(loop.status().pending).toBe(0);
  });

  it("a round held by the budget starts early by its preparation, so its call leaves at the slot", async () => {
    const { clock, loop, calls, change, store } = setup({ batchSize: 1000, perMinute: 1 });
    // Each state write takes 500 ms (a busy controller).
    store.delayMs = 500;
    change(...Array.from({ length: 3000 }, (_, i) => record(`app-${i}`)));
    loop.start();
    loop.startedLeading();
    await clock.advance(130_000);
    expect(calls.map((c) => c.at - calls[0]!.at)).toEqual([0, 60_000, 120_000]);
    expect(loop.status().pending).toBe(0);
  });

  it("with a least gap between calls, a round's calls are spaced by it", async () => {
    const { clock, loop, calls, change } = setup({ batchSize: 1000, minIntervalMs: 1000 });
    change(...Array.from({ length: 3000 }, (_, i) => record(`app-${i}`)));
    loop.start();
    loop.startedLeading();
    await clock.advance(10_000);
    expect(calls.map((c) => c.at - calls[0]!.at)).toEqual([0, 1000, 2000]);
  });

  it("in a long backlog, a round's state write carries the previous round's answers with its own intents", async () => {
    const { clock, loop, calls, change, store } = setup({ batchSize: 1000 });
    change(...Array.from({ length: 4500 }, (_, i) => record(`app-${i}`)));
    loop.start();
    loop.startedLeading();
    await clock.advance(10_000);
    expect(calls).toHaveLength(5);
    // Two rounds (4 calls and 1): one write each, and the last round's answers written at once (nothing left after it).
    expect(store.writes).toBe(3);
    expect(store.inFlight().size).toBe(0);
  });

  it("changes arriving during a round's call: its answers ride with the next round's write, written then in any case", async () => {
    let next: (() => void) | undefined;
    const { clock, loop, calls, change, store, records } = setup({ onCall: () => next?.() });
    loop.start();
    loop.startedLeading();
    await clock.advance(1000);
    // During the first call, another pod becomes Running; during the second, one that changes nothing desired.
    next = () => {
      next = () => {
        next = undefined;
        change(...records.values());
      };
      change(record("api"));
    };
    change(record("web"));
    await clock.advance(10_000);
    expect(calls.map((c) => c.names)).toEqual([["web"], ["api"]]);
    // web's intent; api's intent with web's answer; the round with nothing to send writes api's answer.
    expect(store.writes).toBe(3);
    expect(store.inFlight().size).toBe(0);
    expect(store.all().size).toBe(2);
  });

  it("while the pods are still listing, rounds post what is listed; decommissions wait for the complete list", async () => {
    // Batches of 2: a partial round sends full ones only.
    const { clock, loop, calls, change, store, caches, records } = setup({ batchSize: 2 });
    store.acknowledge([{ key: record("gone").key, group: GROUP, entry: record("gone").entry }]);
    caches.synced = false;
    caches.ownersSynced = false;
    loop.start();
    loop.startedLeading();
    change(record("web"));
    await clock.advance(5000);
    expect(calls).toEqual([]);
    caches.ownersSynced = true;
    loop.cachesSynced();
    await clock.advance(5000);
    expect(calls).toEqual([]);
    change(record("api"));
    await clock.advance(5000);
    expect(calls.map((c) => c.names.toSorted())).toEqual([["api", "web"]]);
    expect(loop.status().flushed).toBe(false);
    caches.synced = true;
    loop.cachesSynced();
    await clock.advance(1000);
    expect(calls.map((c) => c.names.toSorted())).toEqual([["api", "web"], ["gone"]]);
    expect(loop.status().flushed).toBe(true);
    expect(records.size).toBe(2);
  });

  it("a round that only decommissions writes its calls to the state before they leave (the next leader counts them)", async () => {
    const { clock, loop, calls, store } = setup();
    store.acknowledge(["gone", "old"].map((name) => ({ key: record(name).key, group: GROUP, entry: record(name).entry })));
    const unanswered = () => store.unansweredByWrite;
    loop.start();
    loop.startedLeading();
    await clock.advance(5000);
    expect(calls.map((c) => c.names.toSorted())).toEqual([["gone", "old"]]);
    // Two writes: the one before the call holds it as unanswered (no record changed: without it, a crash during the
    // call would leave it uncounted), the answer write holds it as answered.
    expect(unanswered()).toEqual([1, 0]);
    expect(store.all().size).toBe(0);
  });

  it("a failed state write: nothing is sent, the write is retried with backoff, then the round goes", async () => {
    const { clock, loop, calls, change, store } = setup();
    loop.start();
    loop.startedLeading();
    await clock.advance(1000);
    store.failing = true;
    change(record("web"));
    await clock.advance(20_000);
    expect(calls).toEqual([]);
    // Backoff 1 s, 2 s, 4 s, 8 s (capped), with jitter: at least 4 tries in 20 s, far fewer than one per heartbeat.
    expect(store.writes).toBeGreaterThanOrEqual(4);
    expect(store.writes).toBeLessThanOrEqual(10);
    store.failing = false;
    await clock.advance(10_000);
    expect(calls.map((c) => c.names)).toEqual([["web"]]);
  });

  it("stop with flush: the last rounds send what is pending, within the budget and the timeout", async () => {
    const { clock, loop, calls, change } = setup({ batchSize: 10 });
    loop.start();
    loop.startedLeading();
    await clock.advance(1000);
    change(...Array.from({ length: 35 }, (_, i) => record(`app-${i}`)));
    const stopped = loop.stop({ flush: true, timeoutMs: 10_000 });
    await clock.advance(5000);
    await stopped;
    expect(calls.reduce((n, c) => n + c.names.length, 0)).toBe(35);
    expect(calls).toHaveLength(4);
  });
});
