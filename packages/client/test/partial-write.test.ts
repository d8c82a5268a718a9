// A cluster call of more than 1000 entries goes out as chunks; one that fails after others were written says what
// was written and what was not, over real HTTP against the emulator.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inspect } from "node:util";
import { NetworkError, NotFoundError, PartialClusterWriteError, ShiplogClient, type ClusterDeploymentEntry } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const digestOf = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const entries = (count: number, repository = (_: number) => "web"): ClusterDeploymentEntry[] =>
  Array.from({ length: count }, (_, i) => ({
    name: "web",
    digest: digestOf(50_000 + i),
    deployment_name: `web-${String(i).padStart(4, "0")}`,
    github_repository: repository(i),
  }));

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => {
  emulator.state.artifacts.clear();
  emulator.requests.clear();
});
afterEach(() => emulator.faults.clear());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("the call succeeded"),
    (error: unknown) => error,
  );
}

describe("setClusterDeploymentRecords, split into chunks", () => {
  it("1,500 entries, the second chunk refused (404): a typed error with the 1,000 written and the 500 not", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    // Entry 1200 names a repository the organization does not have: the service refuses its whole chunk.
    const deployments = entries(1500, (i) => (i === 1200 ? "no-such-repository" : "web"));
    const error = await rejection(
      client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "split", logical_environment: "prod", deployments }),
    );

    expect(error).toBeInstanceOf(PartialClusterWriteError);
    const partial = error as PartialClusterWriteError;
    expect(partial.code).toBe("partial_write");
    expect(partial.writtenEntries).toBe(1000);
    expect(partial.written.total_count).toBe(1000);
    expect(partial.written.deployment_records.map((r) => r.deployment_name)).toEqual(
      deployments.slice(0, 1000).map((d) => d.deployment_name),
    );
    expect(partial.notWritten).toEqual(deployments.slice(1000));
    expect(partial.failedChunk).toEqual({ index: 1, start: 1000, count: 500, outcome: "refused" });
    expect(partial.cause).toBeInstanceOf(NotFoundError);
    expect(partial.message).toMatch(
      /chunk 2 of 2 \(entries 1000 to 1499\) was refused; 1000 entries were written before it, 500 were not\. not_found: /,
    );
    // What the error says is what the service holds.
    expect(
      emulator.state.artifacts
        .deploymentRecords({ cluster: "split" })
        .map((r) => r.deployment_name)
        .sort(),
    ).toEqual(deployments.slice(0, 1000).map((d) => d.deployment_name));
    expect(emulator.requests.list({ route: CLUSTER_ROUTE }).map((r) => r.status)).toEqual([200, 404]);
    // Serialised: counts and the cause, not thousands of entries.
    expect(JSON.parse(JSON.stringify(partial))).toMatchObject({
      code: "partial_write",
      writtenEntries: 1000,
      notWrittenEntries: 500,
      failedChunk: { index: 1, outcome: "refused" },
      cause: { code: "not_found", status: 404 },
    });
    expect(inspect(partial)).toContain("partial_write");

    // Sending what was not written again, once the cause is fixed, completes the set (each chunk is an upsert).
    const fixed = partial.notWritten.map((d) => ({ ...d, github_repository: "web" }));
    const rest = await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "split",
      logical_environment: "prod",
      deployments: fixed,
    });
    expect(rest.total_count).toBe(500);
    expect(emulator.state.artifacts.deploymentRecords({ cluster: "split" })).toHaveLength(1500);
  });

  it("the first chunk refused: the service's own error, and nothing was written", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    const deployments = entries(1500, (i) => (i === 5 ? "no-such-repository" : "web"));
    const error = await rejection(
      client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "first", logical_environment: "prod", deployments }),
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(emulator.state.artifacts.deploymentRecords({ cluster: "first" })).toEqual([]);
    expect(emulator.requests.list({ route: CLUSTER_ROUTE })).toHaveLength(1);
  });

  it("a connection lost on the third chunk: outcome unknown, the earlier chunks written, the rest not sent", async () => {
    let answered = 0;
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.admin,
      retry: false,
      // After the second answer, the emulator starts dropping connections.
      hooks: { onResponse: () => void (++answered === 2 && emulator.faults.add({ kind: "drop", route: CLUSTER_ROUTE })) },
    });
    const deployments = entries(2500);
    const error = await rejection(
      client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "lost", logical_environment: "prod", deployments }),
    );
    expect(error).toBeInstanceOf(PartialClusterWriteError);
    const partial = error as PartialClusterWriteError;
    expect(partial.cause).toBeInstanceOf(NetworkError);
    expect(partial.failedChunk).toEqual({ index: 2, start: 2000, count: 500, outcome: "unknown" });
    expect(partial.writtenEntries).toBe(2000);
    expect(partial.notWritten).toHaveLength(500);
    expect(partial.message).toContain("got no usable answer");
    expect(emulator.state.artifacts.deploymentRecords({ cluster: "lost" })).toHaveLength(2000);
  });
});
