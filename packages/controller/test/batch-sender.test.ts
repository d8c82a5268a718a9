// The batch sender against the emulator: one bad entry is isolated by halving the batch, whether the service
// refuses it (422) or the client does before sending (nothing sent); only calls really sent count as requests.
import type { ClusterRecordsApi } from "@shiplog/controller";
import { BatchSender, SendGate, recordKey, type PendingRecord } from "@shiplog/controller/internal";
import { ShiplogClient, type ClusterDeploymentResult, type SetClusterDeploymentRecordsParams } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const logger = pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" });

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.stop();
});
beforeEach(() => emulator.requests.clear());

function pending(names: string[], bad: string): PendingRecord[] {
  return names.map((name, i) => ({
    key: recordKey(GROUP, name),
    group: GROUP,
    entry: {
      name: `ghcr.io/acme/${name}`,
      // The bad entry's digest is not a sha256 digest: the body rule the service (and the client) enforce.
      digest: name === bad ? "sha256:not-a-digest" : `sha256:${String(i).repeat(64).slice(0, 64)}`,
      status: "deployed",
      deployment_name: name,
      github_repository: "web",
    },
  }));
}

function client(): ShiplogClient {
  return new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin!, retry: { retries: 0 } });
}

/** The cluster call through the client's generic request: no client-side validation, the service decides. */
function unvalidatedApi(c: ShiplogClient): ClusterRecordsApi {
  return {
    async setClusterDeploymentRecords(params: SetClusterDeploymentRecordsParams, options?: { signal?: AbortSignal }) {
      const { org, cluster, ...body } = params;
      const response = await c.request<ClusterDeploymentResult>({
        method: "POST",
        route: "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}",
        params: { org, cluster },
        body,
        safeToRetry: true,
        ...(options?.signal ? { signal: options.signal } : {}),
      });
      return response.data;
    },
  };
}

function sender(api: ClusterRecordsApi, calls: { ok: boolean; code?: string }[]): BatchSender {
  return new BatchSender({
    api,
    org: "acme",
    cluster: "bisect",
    batchSize: 8,
    concurrency: 1,
    dryRun: false,
    logger,
    onRequest: ({ ok, code }) => calls.push({ ok, ...(code ? { code } : {}) }),
  });
}

const names = Array.from({ length: 8 }, (_, i) => `app-${i}`);

describe("BatchSender", () => {
  it("isolates the one entry the service refuses with 422 by halving the batch; the other seven are accepted", async () => {
    const calls: { ok: boolean; code?: string }[] = [];
    const result = await sender(unvalidatedApi(client()), calls).send(pending(names, "app-5"));
    expect(result.rejected.map((r) => r.record.entry.deployment_name)).toEqual(["app-5"]);
    expect(result.rejected[0]!.reason).toMatch(/422/);
    expect(result.accepted.map((r) => r.entry.deployment_name).sort()).toEqual(names.filter((n) => n !== "app-5"));
    expect(result.failed).toEqual([]);
    // [0-7] 422, [0-3] ok, [4-7] 422, [4,5] 422, [4] ok, [5] 422 (isolated), [6,7] ok.
    const logged = emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE });
    expect(logged.map((r) => r.status)).toEqual([422, 200, 422, 422, 200, 422, 200]);
    expect(result.requests).toBe(7);
    expect(result.succeeded).toBe(3);
    expect(calls.filter((c) => !c.ok)).toEqual(Array.from({ length: 4 }, () => ({ ok: false, code: "validation_failed" })));
    const stored = emulator.state.artifacts
      .deploymentRecords({ org: "acme", cluster: "bisect" })
      .map((r) => r.deployment_name)
      .sort();
    expect(stored).toEqual(names.filter((n) => n !== "app-5"));
  });

  it("a batch the client refuses before sending is bisected too, and counts no request", async () => {
    const calls: { ok: boolean; code?: string }[] = [];
    const result = await sender(client().artifacts, calls).send(pending(names, "app-2"));
    expect(result.rejected.map((r) => r.record.entry.deployment_name)).toEqual(["app-2"]);
    expect(result.rejected[0]!.reason).toMatch(/nothing was sent/);
    expect(result.accepted).toHaveLength(7);
    // Only the calls that reached the service count ([0,1], [3], [4-7]); the four holding app-2 were never sent.
    const logged = emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE });
    expect(logged.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(result.requests).toBe(3);
    expect(result.succeeded).toBe(3);
    expect(calls).toEqual(logged.map(() => ({ ok: true })));
  });

  it("a 422 saying the endpoint is spammed: no bisection, at most one call per concurrent slot, the sender backs off", async () => {
    const many = Array.from({ length: 40 }, (_, i) => `svc-${i}`);
    const records = pending(many, "none");
    const clock = new VirtualClock(0);
    const gate = new SendGate({ minDelayMs: 1000, maxDelayMs: 8000, random: () => 0 });
    const make = () =>
      new BatchSender({
        api: client().artifacts,
        org: "acme",
        cluster: "spam",
        batchSize: 4,
        concurrency: 2,
        dryRun: false,
        logger,
        gate,
        clock,
      });
    const fault = emulator.faults.add({ kind: "status", status: 422, message: "The endpoint has been spammed.", route: CLUSTER_ROUTE });
    try {
      const first = await make().send(records);
      // 10 batches, 2 in flight: both refused, the gate closes, the 8 others are held without a call.
      expect(first.requests).toBe(2);
      expect(first.held).toBe(32);
      expect(first.failed).toHaveLength(40);
      expect(first.rejected).toEqual([]);
      // While the gate is closed nothing goes at all.
      await clock.advance(100);
      expect((await make().send(records)).requests).toBe(0);
      await clock.advance(gate.notBefore - clock.now());
      expect((await make().send(records)).requests).toBe(2);
      expect(gate.closures).toBe(2);
      if (process.env.SHIPLOG_TEST_FIGURES) console.log(`spammed 422: 4 calls in 3 sends of 10 batches (bisection would make ${10 * 15})`);
    } finally {
      emulator.faults.remove(fault);
    }
    await clock.advance(gate.notBefore - clock.now());
    const after = await make().send(records);
    expect(after.accepted).toHaveLength(40);
    expect(after.requests).toBe(10);
    expect(gate.closures).toBe(0);
  });
});
