import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The emulator's artifact-metadata answers against the official schemas (the client's schemas against the official
// examples: contract-endpoints.test.ts, for every endpoint of the registry).
import { ShiplogClient } from "@shiplog/client";
import { ENDPOINTS } from "@shiplog/client/endpoints";
import { deploymentRecordList } from "@shiplog/client/schemas";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { responseExamples, validateResponse } from "./support/openapi-contract.js";

const ROUTES = {
  single: ENDPOINTS["orgs/create-artifact-deployment-record"].route,
  cluster: ENDPOINTS["orgs/set-cluster-deployment-records"].route,
  storage: ENDPOINTS["orgs/create-artifact-storage-record"].route,
  listDeployments: ENDPOINTS["orgs/list-artifact-deployment-records"].route,
  listStorage: ENDPOINTS["orgs/list-artifact-storage-records"].route,
};

describe("the client's answer schemas", () => {
  it("a record from a newer server with unknown fields keeps them", () => {
    const parsed = deploymentRecordList.parse({
      total_count: 1,
      deployment_records: [{ id: 1, digest: "d", logical_environment: "p", deployment_name: "n", future_field: 7 }],
    });
    expect(parsed.deployment_records[0]).toMatchObject({ future_field: 7 });
  });
});

/** The fields the tests read from an answer (validateResponse checks the whole body against the official schema). */
interface AnswerBody {
  message: { repositories: unknown[] };
  total_count: number;
  storage_records: unknown[];
}

describe("every emulator response validates against the official schema", () => {
  let emulator: Emulator;
  let client: ShiplogClient;
  const digest = `sha256:${"c".repeat(64)}`;

  beforeAll(async () => {
    emulator = await startEmulator();
    client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin });
  });
  afterAll(() => emulator.stop());

  async function raw(method: string, path: string, body?: unknown) {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emulator.tokens.admin}`,
        "content-type": "application/json",
        "x-service-api-version": "2026-03-10",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as AnswerBody };
  }

  it("POST deployment-record", async () => {
    const { status, body } = await raw("POST", "/orgs/acme/artifacts/metadata/deployment-record", {
      name: "web",
      digest,
      status: "deployed",
      logical_environment: "prod",
      deployment_name: "web-1",
      github_repository: "web",
      tags: { team: "a" },
      runtime_risks: ["internet-exposed"],
    });
    expect(status).toBe(200);
    expect(validateResponse("POST", ROUTES.single, 200, body)).toEqual([]);
  });

  it("POST cluster, 200 and 207", async () => {
    const ok = await raw("POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-1", {
      logical_environment: "prod",
      physical_environment: "eu-1",
      deployments: [{ name: "web", digest, deployment_name: "web-2", github_repository: "web" }],
    });
    expect(ok.status).toBe(200);
    expect(validateResponse("POST", ROUTES.cluster, 200, ok.body)).toEqual([]);
    const partial = await raw("POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-1", {
      logical_environment: "prod",
      partial_success: true,
      deployments: [
        { name: "web", digest, deployment_name: "web-3", github_repository: "web" },
        { name: "ghost", digest, deployment_name: "ghost-1", github_repository: "no-such-repo" },
      ],
    });
    expect(partial.status).toBe(207);
    expect(validateResponse("POST", ROUTES.cluster, 207, partial.body)).toEqual([]);
  });

  it("POST cluster 404 and 403 bodies", async () => {
    const missing = await raw("POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-1", {
      logical_environment: "prod",
      deployments: [{ name: "ghost", digest, deployment_name: "g", github_repository: "no-such-repo" }],
    });
    expect(missing.status).toBe(404);
    // The official examples give these answers an object message ({cause, repositories}) while the
    // schema says string; the service sends what the examples show, so the emulator follows them.
    const [, , example404] = responseExamples("POST", ROUTES.cluster).find(([s]) => s === "404")!;
    expect(Object.keys(missing.body.message).sort()).toEqual(Object.keys((example404 as { message: object }).message).sort());
    expect(missing.body.message.repositories).toEqual(["no-such-repo"]);

    const unauthorized = await fetch(`${emulator.url}/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-1`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.tokens.webOnly}`, "content-type": "application/json" },
      body: JSON.stringify({
        logical_environment: "prod",
        deployments: [{ name: "api", digest, deployment_name: "a", github_repository: "api" }],
      }),
    });
    expect(unauthorized.status).toBe(403);
    const [, , example403] = responseExamples("POST", ROUTES.cluster).find(([s]) => s === "403")!;
    const body403 = (await unauthorized.json()) as AnswerBody;
    expect(Object.keys(body403.message).sort()).toEqual(Object.keys((example403 as { message: object }).message).sort());
    expect(body403.message.repositories).toEqual([7002]);
  });

  it("POST storage-record and both listings", async () => {
    const libDigest = `sha256:${"d".repeat(64)}`;
    const created = await raw("POST", "/orgs/acme/artifacts/metadata/storage-record", {
      name: "libfoo",
      version: "1.2.3",
      digest: libDigest,
      registry_url: "https://reg.example.com/artifactory/",
      artifact_url: "https://reg.example.com/artifactory/bar/libfoo-1.2.3",
      repository: "bar",
      status: "active",
      github_repository: "web",
    });
    expect(created.status).toBe(200);
    expect(validateResponse("POST", ROUTES.storage, 200, created.body)).toEqual([]);
    const deployments = await raw("GET", `/orgs/acme/artifacts/${digest}/metadata/deployment-records`);
    expect(deployments.body.total_count).toBeGreaterThan(0);
    expect(validateResponse("GET", ROUTES.listDeployments, 200, deployments.body)).toEqual([]);
    const storage = await raw("GET", `/orgs/acme/artifacts/${libDigest}/metadata/storage-records`);
    expect(storage.body.storage_records).toHaveLength(1);
    expect(validateResponse("GET", ROUTES.listStorage, 200, storage.body)).toEqual([]);
    // And the client reads the same answers.
    expect((await client.artifacts.listStorageRecords({ org: "acme", subject_digest: libDigest })).storage_records[0]?.name).toBe("libfoo");
  });
});
