// The Lease lock against the fake cluster's Lease API (real HTTP: 409 on a stale resourceVersion or an existing
// Lease, MicroTime validation), and LeaseElection, the elector on that lock, on a virtual clock: what is asserted
// happens through real calls, but no timer waits in real time.
import { KubeLeaseLock, LeaseElection, LeaseLockError, type LeaderElectionRecord } from "@shiplog/controller/internal";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Changes } from "../../../test/kit/events.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { useFakeCluster } from "./fake-cluster-fixture.js";

const NAMESPACE = "shiplog";
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const never = new AbortController().signal;

const fake = useFakeCluster(NAMESPACE);
const kubeConfig = fake.kubeConfig;
let counter = 0;

const nextName = () => `lock-test-${++counter}`;
const lockOn = (name: string) => new KubeLeaseLock({ kubeConfig, namespace: NAMESPACE, name });
/** The Lease as stored (times as the wire strings). */
const stored = (name: string) => fake.cluster.store.get("leases", NAMESPACE, name) as { spec: Record<string, unknown> } | undefined;
const record = (holderIdentity: string, at: number, leaseTransitions = 0): LeaderElectionRecord => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: at,
  renewTime: at,
  leaseTransitions,
});

describe("KubeLeaseLock", () => {
  it("reads nothing before the Lease exists, creates it with MicroTime times, and reads back what it wrote", async () => {
    const name = nextName();
    const lock = lockOn(name);
    expect(await lock.get(never)).toBeUndefined();
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    expect(await lock.create(record("pod-a", at), never)).toEqual(record("pod-a", at));
    expect(stored(name)!.spec).toMatchObject({
      holderIdentity: "pod-a",
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: "2026-01-02T03:04:05.678000Z",
    });
    expect(stored(name)!.spec.renewTime).toMatch(MICRO_TIME);
    expect(await lockOn(name).get(never)).toEqual(record("pod-a", at));
    expect(lock.describe()).toBe(`${NAMESPACE}/${name}`);
  });

  it("refuses to create an existing Lease or update one changed since read (lease_conflict); a read makes the update pass", async () => {
    const name = nextName();
    const a = lockOn(name);
    const b = lockOn(name);
    await a.create(record("pod-a", 1_000), never);
    const duplicate = await b.create(record("pod-b", 1_000), never).catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(LeaseLockError);
    expect(duplicate).toMatchObject({ code: "lease_conflict", status: 409 });

    expect(await b.get(never)).toEqual(record("pod-a", 1_000));
    await a.update(record("pod-a", 2_000), never);
    // b writes over the version it read, which a has since replaced.
    const stale = await b.update(record("pod-b", 3_000, 1), never).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: "lease_conflict", status: 409 });
    expect(stored(name)!.spec.holderIdentity).toBe("pod-a");
    await b.get(never);
    expect(await b.update(record("pod-b", 3_000, 1), never)).toEqual(record("pod-b", 3_000, 1));
  });

  it("an update before any read is refused without a call; an aborted call fails with lease_call_failed", async () => {
    const lock = lockOn(nextName());
    await expect(lock.update(record("pod-a", 1), never)).rejects.toMatchObject({ code: "lease_call_failed" });
    const aborted = new AbortController();
    aborted.abort(new Error("deadline"));
    await expect(lock.get(aborted.signal)).rejects.toMatchObject({ code: "lease_call_failed" });
  });
});

describe("LeaseElection on the fake cluster (virtual clock)", () => {
  it("one leads, the other stands by; a release hands the Lease over at the standby's next attempt", async () => {
    const clock = new VirtualClock();
    const name = nextName();
    const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
    // What the test awaits is checked when an elector reports: it starts leading, or sees a new holder (checked on a
    // microtask, as the elector marks itself decided right after it reports the holder it read).
    const changes = new Changes();
    const election = (identity: string) =>
      new LeaseElection({
        kubeConfig,
        namespace: NAMESPACE,
        name,
        identity,
        ...timing,
        clock: clock.scope(),
        logger: pino({ level: "silent" }),
        onStartedLeading: () => changes.changed(),
        onNewLeader: () => queueMicrotask(() => changes.changed()),
      });
    const a = election("pod-a");
    const b = election("pod-b");
    try {
      a.start();
      // Time does not move while the calls of the round the timer started go over HTTP.
      await clock.advance(0);
      await changes.until(() => a.isLeader());
      b.start();
      await clock.advance(0);
      await changes.until(() => b.status().decided);
      expect(b.status()).toMatchObject({ decided: true, holder: "pod-a", leading: false });
      expect(stored(name)!.spec).toMatchObject({ holderIdentity: "pod-a", leaseDurationSeconds: 15, leaseTransitions: 0 });

      await a.stop({ release: true });
      expect(stored(name)!.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
      // b's next attempt (within one jittered retry period) finds the Lease released and takes it.
      await clock.advance(1.2 * timing.retryPeriodMs);
      await changes.until(() => b.isLeader());
      expect(stored(name)!.spec).toMatchObject({ holderIdentity: "pod-b", leaseDurationSeconds: 15, leaseTransitions: 1 });
      expect(stored(name)!.spec.acquireTime).toMatch(MICRO_TIME);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
