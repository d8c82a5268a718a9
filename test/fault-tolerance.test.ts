import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ShiplogClient, type ClusterDeploymentEntry } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";


let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ faultSeed: 7 });
});
afterAll(() => emulator.stop());

describe("with 30% of requests failing, every record arrives exactly once", () => {
  it("2,000 deployment records through cluster calls and single calls", async () => {
    // 17% dropped mid-connection, 17% of the rest answered 503 with Retry-After: about 31% fail.
    emulator.faults.add({ kind: "drop", rate: 0.17 });
    emulator.faults.add({ kind: "status", status: 503, retryAfterSeconds: 0, rate: 0.17 });
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
          await client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "prod", logical_environment: "prod", deployments: batch });
        }
      }),
    );
    // 200 more one at a time through the single-record endpoint.
    for (let i = 1800; i < 2000; i++) {
      const e = entry(i);
      await client.artifacts.createDeploymentRecord({ org: "acme", cluster: "prod", logical_environment: "prod", status: "deployed", ...e });
    }
    emulator.faults.clear();

    const failed = emulator.requests.list().filter((r) => r.status !== 200);
    const attempts = emulator.requests.count();
    console.log(`fault run: ${attempts} requests, ${failed.length} failed (${failed.filter((r) => r.status === 0).length} dropped)`);
    expect(failed.length).toBeGreaterThan(0.25 * attempts);

    const records = emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "prod" });
    expect(records).toHaveLength(2000);
    const names = new Set(records.map((r) => r.deployment_name));
    expect(names.size).toBe(2000);
    for (let i = 0; i < 2000; i++) expect(names.has(`ns-svc-${i}`)).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(2000);
  });
});
