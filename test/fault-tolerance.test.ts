import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ShiplogClient, type ClusterDeploymentEntry } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

let emulator: Emulator;
beforeAll(async () => {
  // 36 cluster calls and 200 single creates, with their retries, within seconds on purpose: over 80 writes a minute.
  emulator = await startEmulator({ faultSeed: 7, secondaryLimits: false });
});
afterAll(() => emulator.stop());

describe("with 30% of requests failing, every record arrives exactly once", () => {
  it("2,000 deployment records through cluster calls and single calls", async () => {
    // Each fault hits 15% of requests, independently: about 39% fail. A drop before the handler applies nothing;
    // a drop after it applies the write and loses the answer, so the client's retry delivers the same records again.
    emulator.faults.add({ kind: "drop", rate: 0.15 });
    emulator.faults.add({ kind: "drop_after", rate: 0.15 });
    emulator.faults.add({ kind: "status", status: 503, retryAfterSeconds: 0, rate: 0.15 });
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.installation,
      retry: { retries: 12, minDelayMs: 1, maxDelayMs: 20 },
    });
    const entry = (i: number): ClusterDeploymentEntry => ({
      name: `docker.io/acme/svc-${i % 50}`,
      digest: `sha256:${i.toString(16).padStart(64, "0")}`,
      deployment_name: `ns-svc-${i}`,
      github_repository: "web",
    });

    // 1,800 records in 36 cluster calls of 50, four at a time.
    const batches = Array.from({ length: 36 }, (_, b) => Array.from({ length: 50 }, (_, i) => entry(b * 50 + i)));
    const queue = [...batches];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let batch = queue.shift(); batch; batch = queue.shift()) {
          await client.artifacts.setClusterDeploymentRecords({
            org: "acme",
            cluster: "prod",
            logical_environment: "prod",
            deployments: batch,
          });
        }
      }),
    );
    // 200 more one at a time through the single-record endpoint.
    for (let i = 1800; i < 2000; i++) {
      const e = entry(i);
      await client.artifacts.createDeploymentRecord({
        org: "acme",
        cluster: "prod",
        logical_environment: "prod",
        status: "deployed",
        ...e,
      });
    }
    emulator.faults.clear();

    const failed = emulator.requests.list().filter((r) => r.status !== 200);
    const attempts = emulator.requests.count();
    const dropped = failed.filter((r) => r.status === 0).length;
    console.log(`fault run: ${attempts} requests, ${failed.length} failed (${dropped} dropped, ${failed.length - dropped} answered 503)`);
    expect(failed.length / attempts).toBeGreaterThanOrEqual(0.3);
    expect(failed.some((r) => r.status === 503)).toBe(true);

    const records = emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "prod" });
    // Repeated deliveries did happen (answers lost after the write), so a store that appended instead of
    // upserting would show more than 2,000 records here.
    const redelivered = records.filter((r) => r.writes > 1);
    console.log(`fault run: ${redelivered.length} records written more than once`);
    expect(redelivered.length).toBeGreaterThan(0);
    expect(redelivered.some((r) => Number(r.deployment_name.slice("ns-svc-".length)) >= 1800)).toBe(true);
    // Every record exactly once, with a unique id.
    expect(records).toHaveLength(2000);
    const names = new Set(records.map((r) => r.deployment_name));
    expect(names.size).toBe(2000);
    for (let i = 0; i < 2000; i++) expect(names.has(`ns-svc-${i}`)).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(2000);
  });
});
