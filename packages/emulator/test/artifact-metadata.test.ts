import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.stop());

const entry = { name: "web", digest: `sha256:${"3".repeat(64)}`, deployment_name: "web", github_repository: "web" };

async function postCluster(cluster: string) {
  const response = await fetch(`${emu.url}/orgs/acme/artifacts/metadata/deployment-record/cluster/${encodeURIComponent(cluster)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.tokens.installation}`, "content-type": "application/json" },
    body: JSON.stringify({ logical_environment: "prod", deployments: [entry] }),
  });
  return { status: response.status, body: (await response.json()) as { errors?: { field: string; code: string; message: string }[] } };
}

describe("storage records", () => {
  it("the listing carries storage_records only (spec 2.3); the create answer has total_count", async () => {
    const digest = `sha256:${"4".repeat(64)}`;
    const auth = { authorization: `Bearer ${emu.tokens.installation}`, "content-type": "application/json" };
    const created = await fetch(`${emu.url}/orgs/acme/artifacts/metadata/storage-record`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "web", digest, registry_url: "https://registry.example.com", github_repository: "web" }),
    });
    expect(Object.keys((await created.json()) as object).sort()).toEqual(["storage_records", "total_count"]);
    const listed = await fetch(`${emu.url}/orgs/acme/artifacts/${digest}/metadata/storage-records`, { headers: auth });
    const body = (await listed.json()) as { storage_records: unknown[] };
    expect(Object.keys(body)).toEqual(["storage_records"]);
    expect(body.storage_records).toHaveLength(1);
  });
});

describe("the cluster in the path", () => {
  it("is checked with the OpenAPI's cluster parameter schema (pattern, 128 characters at most)", async () => {
    for (const [cluster, rule] of [
      ["prod 1", "pattern"],
      ["c".repeat(129), "128"],
    ] as const) {
      const answer = await postCluster(cluster);
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual([expect.objectContaining({ field: "cluster", code: "invalid" })]);
      expect(answer.body.errors?.[0]?.message).toContain(rule);
    }
    for (const cluster of ["prod-eu.1_a", "c".repeat(128)]) expect((await postCluster(cluster)).status, cluster).toBe(200);
  });
});

describe("a deployment record's identity", () => {
  it("matches the organization case-insensitively, and cluster, environments and deployment name exactly", async () => {
    const post = (org: string, cluster: string, deployment_name: string) =>
      fetch(`${emu.url}/orgs/${org}/artifacts/metadata/deployment-record/cluster/${cluster}`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.tokens.installation}`, "content-type": "application/json" },
        body: JSON.stringify({ logical_environment: "prod", deployments: [{ ...entry, deployment_name }] }),
      });
    for (const [org, cluster, name] of [
      ["acme", "ident", "api"],
      ["ACME", "ident", "api"],
      ["acme", "ident", "API"],
      ["acme", "IDENT", "api"],
    ]) {
      expect((await post(org!, cluster!, name!)).status).toBe(200);
    }
    const records = emu.state.artifacts.deploymentRecords({ org: "acme" }).filter((r) => r.cluster.toLowerCase() === "ident");
    expect(records.map((r) => [r.cluster, r.deployment_name, r.writes])).toEqual([
      ["ident", "api", 2],
      ["ident", "API", 1],
      ["IDENT", "api", 1],
    ]);
  });
});
