import { ApiException, CoordinationV1Api, CoreV1Api, V1MicroTime } from "@kubernetes/client-node";
import type { V1Status } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

async function apiError(promise: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) return error;
    throw error;
  }
  throw new Error("expected an ApiException");
}

/** The Status an ApiException carries: the client keeps the answer's body as text. */
function statusOf(error: ApiException<unknown>): V1Status {
  return JSON.parse(String(error.body)) as V1Status;
}

describe("Leases and ConfigMaps: optimistic concurrency and MicroTime", () => {
  let cluster: FakeCluster;
  let leases: CoordinationV1Api;
  let core: CoreV1Api;
  beforeAll(async () => {
    cluster = await startFakeCluster();
    const kc = kubeConfigFor(cluster);
    leases = kc.makeApiClient(CoordinationV1Api);
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  const lease = (name: string, holder: string, renewTime: Date) => ({
    metadata: { name, namespace: "default" },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: new V1MicroTime(renewTime.getTime()),
      renewTime: new V1MicroTime(renewTime.getTime()),
    },
  });

  it("creates a Lease with 6-digit MicroTimes and reads it back", async () => {
    const created = await leases.createNamespacedLease({
      namespace: "default",
      body: lease("leader", "a", new Date("2025-01-02T03:04:05.678Z")),
    });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const read = await leases.readNamespacedLease({ namespace: "default", name: "leader" });
    expect(read.spec?.holderIdentity).toBe("a");
    expect(cluster.store.get("leases", "default", "leader")?.spec?.renewTime).toBe("2025-01-02T03:04:05.678000Z");
  });

  it("answers 409 AlreadyExists on create when the Lease exists", async () => {
    const err = await apiError(leases.createNamespacedLease({ namespace: "default", body: lease("leader", "b", new Date()) }));
    expect(err.code).toBe(409);
    expect(statusOf(err).reason).toBe("AlreadyExists");
  });

  it("updates with the current resourceVersion and answers 409 Conflict on a stale one", async () => {
    const current = await leases.readNamespacedLease({ namespace: "default", name: "leader" });
    const stale = structuredClone(current);
    current.spec!.holderIdentity = "b";
    current.spec!.renewTime = new V1MicroTime();
    const updated = await leases.replaceNamespacedLease({ namespace: "default", name: "leader", body: current });
    expect(updated.spec?.holderIdentity).toBe("b");
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(stale.metadata?.resourceVersion));

    stale.spec!.holderIdentity = "c";
    stale.spec!.renewTime = new V1MicroTime();
    const err = await apiError(leases.replaceNamespacedLease({ namespace: "default", name: "leader", body: stale }));
    expect(err.code).toBe(409);
    const status = statusOf(err);
    expect(status).toMatchObject({ kind: "Status", status: "Failure", reason: "Conflict", code: 409 });
    expect(cluster.store.get("leases", "default", "leader")?.spec?.holderIdentity).toBe("b");
  });

  it("rejects a renewTime sent as a plain Date (3 fractional digits) with 400, like the real server", async () => {
    const body = {
      metadata: { name: "millis", namespace: "default" },
      spec: { holderIdentity: "a", renewTime: new Date() as unknown as V1MicroTime },
    };
    const err = await apiError(leases.createNamespacedLease({ namespace: "default", body }));
    expect(err.code).toBe(400);
    expect(statusOf(err).reason).toBe("BadRequest");
    expect(cluster.store.get("leases", "default", "millis")).toBeUndefined();
  });

  it("applies the same concurrency rules to ConfigMaps", async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "state" }, data: { a: "1" } } });
    expect((await apiError(core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "state" } } }))).code).toBe(
      409,
    );
    const next = { ...cm, data: { a: "2" } };
    await core.replaceNamespacedConfigMap({ namespace: "default", name: "state", body: next });
    expect(
      (await apiError(core.replaceNamespacedConfigMap({ namespace: "default", name: "state", body: { ...cm, data: { a: "3" } } }))).code,
    ).toBe(409);
    expect((await core.readNamespacedConfigMap({ namespace: "default", name: "state" })).data).toEqual({ a: "2" });
  });

  it("answers 404 NotFound with a Status body for missing objects and namespaces", async () => {
    const err = await apiError(leases.readNamespacedLease({ namespace: "default", name: "nope" }));
    expect(err.code).toBe(404);
    expect(statusOf(err)).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
    const ns = await apiError(core.createNamespacedConfigMap({ namespace: "missing-ns", body: { metadata: { name: "x" } } }));
    expect(ns.code).toBe(404);
  });
});
