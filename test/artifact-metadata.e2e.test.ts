import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, ServiceValidationError, ShiplogClient, type ClusterDeploymentEntry } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const hex = (n: number) => n.toString(16).padStart(64, "0");
const digestOf = (n: number) => `sha256:${hex(n)}`;
const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";

let emulator: Emulator;
let client: ShiplogClient;

beforeAll(async () => {
  emulator = await startEmulator({
    fixture: undefined,
  });
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: { retries: 3, minDelayMs: 1, maxDelayMs: 5 } });
});
afterAll(() => emulator.stop());
beforeEach(() => {
  emulator.state.artifacts.clear();
  emulator.requests.clear();
});

describe("deployment records", () => {
  it("creates one record and updates it on a repeated post (an upsert)", async () => {
    const base = {
      org: "acme",
      name: "web",
      status: "deployed" as const,
      logical_environment: "prod",
      physical_environment: "eu-1",
      cluster: "c1",
      deployment_name: "default-web-nginx",
      github_repository: "web",
    };
    const first = await client.artifacts.createDeploymentRecord({ ...base, digest: digestOf(1), version: "1.0" });
    const second = await client.artifacts.createDeploymentRecord({ ...base, digest: digestOf(2), version: "1.1", status: "deployed" });
    expect(second.deployment_records[0]?.id).toBe(first.deployment_records[0]?.id);
    const stored = emulator.state.artifacts.deploymentRecords({ org: "acme" });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ digest: digestOf(2), version: "1.1", status: "deployed" });
  });

  it("keys records by cluster, logical and physical environment and deployment name", async () => {
    const entry = { name: "web", digest: digestOf(3), deployment_name: "web", github_repository: "web" };
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      physical_environment: "eu-1",
      deployments: [entry],
    });
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      physical_environment: "us-1",
      deployments: [entry],
    });
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c2",
      logical_environment: "prod",
      physical_environment: "eu-1",
      deployments: [entry],
    });
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "staging",
      physical_environment: "eu-1",
      deployments: [entry],
    });
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      physical_environment: "eu-1",
      deployments: [{ ...entry, status: "decommissioned" }],
    });
    const stored = emulator.state.artifacts.deploymentRecords({ org: "acme" });
    expect(stored).toHaveLength(4);
    expect(stored.filter((r) => r.status === "decommissioned")).toHaveLength(1);
  });

  it("gives an artifact one name and version: the entry processed first wins", async () => {
    const digest = digestOf(4);
    const result = await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      deployments: [
        { name: "registry.example.com/web", version: "1.0", digest, deployment_name: "a", github_repository: "web" },
        { name: "web-renamed", version: "9.9", digest, deployment_name: "b", github_repository: "web" },
      ],
    });
    expect(result.total_count).toBe(2);
    const names = emulator.state.artifacts.deploymentRecords({ org: "acme" }).map((r) => [r.deployment_name, r.name, r.version]);
    expect(names.sort()).toEqual([
      ["a", "registry.example.com/web", "1.0"],
      ["b", "registry.example.com/web", "1.0"],
    ]);
  });

  it("splits more than 1000 entries into ordered chunks and merges the answers", async () => {
    const deployments: ClusterDeploymentEntry[] = Array.from({ length: 2500 }, (_, i) => ({
      name: "web",
      digest: digestOf(10_000 + i),
      deployment_name: `ns-web-${String(i).padStart(4, "0")}`,
      github_repository: "web",
    }));
    const result = await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "big",
      logical_environment: "prod",
      deployments,
    });
    expect(result.total_count).toBe(2500);
    expect(result.deployment_records.map((r) => r.deployment_name)).toEqual(deployments.map((d) => d.deployment_name));
    expect(emulator.requests.list({ route: CLUSTER_ROUTE }).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(emulator.state.artifacts.deploymentRecords({ cluster: "big" })).toHaveLength(2500);
  });

  it("returns only the count when return_records is false", async () => {
    const result = await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      return_records: false,
      deployments: [{ name: "web", digest: digestOf(5), deployment_name: "x", github_repository: "web" }],
    });
    expect(result).toEqual({ total_count: 1, deployment_records: [] });
  });

  it("refuses the whole call when a repository is missing, writing nothing", async () => {
    const call = client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      deployments: [
        { name: "web", digest: digestOf(6), deployment_name: "ok", github_repository: "web" },
        { name: "ghost", digest: digestOf(7), deployment_name: "ghost", github_repository: "no-such-repo" },
      ],
    });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).body).toMatchObject({ message: { repositories: ["no-such-repo"] } });
    // The message names what to fix, not only that something is missing.
    expect((error as NotFoundError).serviceMessage).toBe("One or more repositories do not exist: no-such-repo");
    expect(emulator.state.artifacts.deploymentRecords()).toHaveLength(0);
  });

  it("a cluster call naming a repository the token cannot write: 403 naming the repository, writing nothing", async () => {
    const webOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.webOnly, retry: false });
    const error = await webOnly.artifacts
      .setClusterDeploymentRecords({
        org: "acme",
        cluster: "c403",
        logical_environment: "prod",
        deployments: [{ name: "api", digest: digestOf(12), deployment_name: "api", github_repository: "api" }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    const { repositories } = ((error as ForbiddenError).body as { message: { repositories: unknown[] } }).message;
    expect(repositories.length).toBe(1);
    expect((error as ForbiddenError).serviceMessage).toMatch(new RegExp(`: ${String(repositories[0])}$`));
    expect(emulator.state.artifacts.deploymentRecords().filter((r) => r.cluster === "c403")).toEqual([]);
  });

  it("with partial_success records what it can and reports the rest", async () => {
    const webOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.webOnly });
    const result = await webOnly.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c1",
      logical_environment: "prod",
      partial_success: true,
      deployments: [
        { name: "web", digest: digestOf(8), deployment_name: "web", github_repository: "web" },
        { name: "api", digest: digestOf(9), deployment_name: "api", github_repository: "api" },
      ],
    });
    expect(result.total_count).toBe(1);
    expect(result.errors).toEqual([
      expect.objectContaining({ cause: "unauthorized", deployment: expect.objectContaining({ deployment_name: "api" }) }),
    ]);
  });

  it("a token without write on the repository gets 403", async () => {
    const webOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.webOnly });
    const error = await webOnly.artifacts
      .createDeploymentRecord({
        org: "acme",
        name: "api",
        digest: digestOf(10),
        status: "deployed",
        logical_environment: "prod",
        deployment_name: "api",
        github_repository: "api",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
  });

  it("needs a repository: an attestation, github_repository or an existing link", async () => {
    const error = await client.artifacts
      .createDeploymentRecord({
        org: "acme",
        name: "orphan",
        digest: digestOf(11),
        status: "deployed",
        logical_environment: "prod",
        deployment_name: "orphan",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect((error as ServiceValidationError).errors[0]?.field).toBe("github_repository");
  });
});

describe("storage records", () => {
  it("creates a storage record with the status defaulting to active, and updates it on repeat", async () => {
    const params = {
      org: "acme",
      name: "libfoo",
      version: "1.2.3",
      digest: digestOf(20),
      registry_url: "https://reg.example.com/",
      repository: "bar",
      github_repository: "web",
    };
    const first = await client.artifacts.createStorageRecord(params);
    expect(first.storage_records[0]).toMatchObject({ name: "libfoo", status: "active" });
    await client.artifacts.createStorageRecord({ ...params, status: "eol" });
    const stored = emulator.state.artifacts.storageRecords({ org: "acme" });
    expect(stored).toHaveLength(1);
    expect(stored[0]?.status).toBe("eol");
  });

  it("uses an attestation's repository over github_repository", async () => {
    const attested = await startEmulator({
      fixture: {
        users: [{ login: "octo", id: 1 }],
        orgs: [
          {
            login: "acme",
            id: 5,
            members: ["octo"],
            repositories: [
              { name: "web", id: 10 },
              { name: "api", id: 11 },
            ],
          },
        ],
        tokens: [
          {
            name: "admin",
            token: "emu_fg_admin_00000000",
            type: "fine_grained",
            user: "octo",
            grants: [{ org: "acme", permissions: { artifact_metadata: "write", contents: "read" } }],
          },
        ],
        attestations: [{ org: "acme", repository: "api", digest: digestOf(21), id: 456 }],
      },
    });
    try {
      const c = new ShiplogClient({ baseUrl: attested.url, token: attested.tokens.admin });
      const result = await c.artifacts.createDeploymentRecord({
        org: "acme",
        name: "api",
        digest: digestOf(21),
        status: "deployed",
        logical_environment: "prod",
        deployment_name: "api",
        github_repository: "web",
      });
      expect(result.deployment_records[0]?.attestation_id).toBe(456);
      expect(attested.state.artifacts.deploymentRecords()[0]?.repository).toBe("api");
    } finally {
      await attested.stop();
    }
  });

  it("lists only records of repositories the caller can read", async () => {
    const digest = digestOf(22);
    await client.artifacts.createStorageRecord({
      org: "acme",
      name: "img",
      digest,
      registry_url: "https://r.example/",
      github_repository: "web",
    });
    await client.artifacts.createStorageRecord({
      org: "acme",
      name: "img",
      digest,
      registry_url: "https://r2.example/",
      github_repository: "api",
    });
    const all = await client.artifacts.listStorageRecords({ org: "acme", subject_digest: digest });
    expect(all.storage_records).toHaveLength(2);
    const webOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.webOnly });
    const some = await webOnly.artifacts.listStorageRecords({ org: "acme", subject_digest: digest });
    expect(some.storage_records.map((r) => r.registry_url)).toEqual(["https://r.example/"]);
  });

  it("lists deployment records by digest", async () => {
    const digest = digestOf(23);
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "c9",
      logical_environment: "prod",
      deployments: [
        { name: "web", digest, deployment_name: "a", github_repository: "web" },
        { name: "web", digest, deployment_name: "b", github_repository: "web" },
      ],
    });
    const readOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly });
    const listed = await readOnly.artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest });
    expect(listed.total_count).toBe(2);
    expect(listed.deployment_records.map((r) => r.deployment_name).sort()).toEqual(["a", "b"]);
  });
});
