// Leader election against the fake cluster's Lease API (409 on a stale resourceVersion, MicroTime validation).
import { CoordinationV1Api, KubeConfig, V1MicroTime } from "@kubernetes/client-node";
import { LeaseElection, leaseTimingProblems } from "@shiplog/controller";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startPausableProxy, type PausableProxy } from "./pausable-proxy.js";
import { eventually } from "./scenario-harness.js";

const TIMING = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 150 };
const NAMESPACE = "shiplog";
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let cluster: FakeCluster;
let proxy: PausableProxy;
const running: LeaseElection[] = [];
let leaseCounter = 0;

beforeAll(async () => {
  cluster = await startFakeCluster({ nodes: ["node-1"] });
  await cluster.script.ensureNamespace(NAMESPACE);
  proxy = await startPausableProxy(cluster.url);
});
afterEach(async () => {
  proxy.restore();
  await Promise.all(running.splice(0).map((e) => e.stop()));
});
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

interface Candidate {
  election: LeaseElection;
  events: { event: "started" | "stopped"; reason?: string; at: number }[];
}

function candidate(identity: string, name: string, options: { viaProxy?: boolean } = {}): Candidate {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(options.viaProxy ? proxy.kubeconfigFor(cluster.kubeconfig, cluster.url) : cluster.kubeconfig);
  const events: Candidate["events"] = [];
  const election = new LeaseElection({
    kubeConfig,
    namespace: NAMESPACE,
    name,
    identity,
    ...TIMING,
    logger: pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" }),
    onStartedLeading: () => events.push({ event: "started", at: Date.now() }),
    onStoppedLeading: (reason) => events.push({ event: "stopped", reason, at: Date.now() }),
  });
  running.push(election);
  return { election, events };
}

/** The Lease as stored (times as the wire strings). */
const lease = (name: string) =>
  cluster.store.get("leases", NAMESPACE, name) as { spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number } } | undefined;
const nextName = () => `shiplog-test-${++leaseCounter}`;

/** Waits until the lease's renewTime has changed `times` times (the leader renewing, observed from outside). */
async function renewals(name: string, times: number): Promise<void> {
  let last = lease(name)?.spec.renewTime;
  let seen = 0;
  await eventually(() => {
    const now = lease(name)?.spec.renewTime;
    if (now !== last) {
      seen += 1;
      last = now;
    }
    expect(seen).toBeGreaterThanOrEqual(times);
  });
}

describe("LeaseElection", () => {
  it("local durations use the monotonic clock: a wall-clock step neither deposes the leader nor lets a standby take over", async () => {
    const name = nextName();
    const a = candidate("pod-a", name);
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const b = candidate("pod-b", name);
    b.election.start();
    await eventually(() => expect(b.election.status()).toMatchObject({ decided: true, holder: "pod-a" }));
    // The wall clock jumps an hour ahead (an NTP step, a VM resumed): no renewal is an hour old, no record unchanged.
    const realNow = Date.now.bind(Date);
    const jump = vi.spyOn(Date, "now").mockImplementation(() => realNow() + 3_600_000);
    try {
      expect(a.election.isLeader()).toBe(true);
      await renewals(name, 3);
      expect(a.events.map((e) => e.event)).toEqual(["started"]);
      expect(b.election.isLeader()).toBe(false);
      expect(lease(name)!.spec.holderIdentity).toBe("pod-a");
      // What is written into the Lease stays wall-clock time (MicroTime).
      expect(Date.parse(lease(name)!.spec.renewTime!)).toBeGreaterThan(realNow() + 3_000_000);
    } finally {
      jump.mockRestore();
    }
  });

  it("the first candidate creates the Lease and leads; the other stands by while it renews; times are MicroTime", async () => {
    const name = nextName();
    const a = candidate("pod-a", name);
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const b = candidate("pod-b", name);
    b.election.start();
    await renewals(name, 4);
    expect(b.events).toEqual([]);
    expect(b.election.isLeader()).toBe(false);
    expect(b.election.status().holder).toBe("pod-a");
    const spec = lease(name)!.spec;
    expect(spec).toMatchObject({ holderIdentity: "pod-a", leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(spec.acquireTime).toMatch(MICRO_TIME);
    expect(spec.renewTime).toMatch(MICRO_TIME);
    // Renewals keep the acquire time.
    expect(Date.parse(spec.renewTime!)).toBeGreaterThan(Date.parse(spec.acquireTime!));
  });

  it("stop with release empties the holder (lease duration 1 s) and the standby takes over; leaseTransitions counts it", async () => {
    const name = nextName();
    const a = candidate("pod-a", name);
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const b = candidate("pod-b", name);
    b.election.start();
    await renewals(name, 1);
    await a.election.stop({ release: true });
    expect(a.events.map((e) => [e.event, e.reason])).toEqual([["started", undefined], ["stopped", "released"]]);
    const releasedAt = Date.now();
    await eventually(() => expect(b.election.isLeader()).toBe(true));
    expect(b.events[0]!.at).toBeGreaterThanOrEqual(releasedAt);
    expect(lease(name)!.spec).toMatchObject({ holderIdentity: "pod-b", leaseDurationSeconds: 1, leaseTransitions: 1 });
  });

  it("a leader cut off from the API server stops leading at the renew deadline, before the standby can take over", async () => {
    const name = nextName();
    const a = candidate("pod-a", name, { viaProxy: true });
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const b = candidate("pod-b", name);
    b.election.start();
    await renewals(name, 1);
    const lastRenewal = Date.parse(lease(name)!.spec.renewTime!);
    proxy.cut();
    await eventually(() => expect(b.election.isLeader()).toBe(true));
    const stopped = a.events.find((e) => e.event === "stopped")!;
    expect(stopped.reason).toBe("renew-deadline");
    expect(a.election.isLeader()).toBe(false);
    // No overlap: the old leader had stopped before the new one started, and the new one waited a lease duration
    // from the last renewal it saw.
    expect(stopped.at).toBeLessThan(b.events[0]!.at);
    expect(Date.parse(lease(name)!.spec.acquireTime!) - lastRenewal).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect(lease(name)!.spec.leaseTransitions).toBe(1);
    // Reconnected, the old leader sees the new holder and stands by.
    proxy.restore();
    await renewals(name, 3);
    expect(a.election.isLeader()).toBe(false);
    expect(a.election.status().holder).toBe("pod-b");
  });

  it("isLeader() reads the clock: a leader whose event loop stalled past the renew deadline is not the leader, with no timer run", async () => {
    const name = nextName();
    const a = candidate("pod-a", name);
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const lastRenewAt = a.election.status().lastRenewAt;
    while (Date.now() - lastRenewAt < TIMING.renewDeadlineMs + 20) {
      // a synchronous stall: no timer, no I/O callback can run
    }
    expect(a.election.isLeader()).toBe(false);
    expect(a.events.at(-1)).toMatchObject({ event: "stopped", reason: "renew-deadline" });
  });

  it("a Lease taken over by another holder makes the leader step down at its next renewal", async () => {
    const name = nextName();
    const a = candidate("pod-a", name);
    a.election.start();
    await eventually(() => expect(a.election.isLeader()).toBe(true));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    const api = kubeConfig.makeApiClient(CoordinationV1Api);
    // Retried on 409: the leader may renew between our read and our write.
    await eventually(async () => {
      const current = await api.readNamespacedLease({ name, namespace: NAMESPACE });
      const now = new V1MicroTime(Date.now());
      await api.replaceNamespacedLease({ name, namespace: NAMESPACE, body: { ...current, spec: { ...current.spec, holderIdentity: "intruder", leaseDurationSeconds: 30, renewTime: now, acquireTime: now } } });
    });
    await eventually(() => expect(a.events.at(-1)).toMatchObject({ event: "stopped", reason: "lost" }));
    expect(a.election.isLeader()).toBe(false);
    expect(lease(name)!.spec.holderIdentity).toBe("intruder");
  });

  it("refuses timings client-go would refuse", () => {
    expect(leaseTimingProblems({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 })).toEqual([]);
    expect(leaseTimingProblems({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 })).toEqual(["the lease duration must be longer than the renew deadline"]);
    expect(leaseTimingProblems({ leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toEqual(["the renew deadline must be longer than 1.2 × the retry period"]);
    expect(() => candidate("x", "y-lease").election).not.toThrow();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.kubeconfig);
    expect(
      () => new LeaseElection({ kubeConfig, namespace: "n", name: "l", identity: "i", leaseDurationMs: 500, renewDeadlineMs: 400, retryPeriodMs: 100, logger: pino({ level: "silent" }) }),
    ).toThrow(/lease duration must be at least 1s/);
  });
});
