import { createHash } from "node:crypto";
// The library user's view: storage records, cluster deployment records and listings through the client.
import { ShiplogClient } from "@shiplog/client";
import type { Emulator } from "@shiplog/emulator";
import { printTable } from "./table.js";

/** A realistic-looking digest for demo content. */
const digest = (content: string) => `sha256:${createHash("sha256").update(content).digest("hex")}`;

/** Records a release's storage and deployments with the client, then lists them back. */
export async function runClientFlow(emulator: Emulator): Promise<void> {
  const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.installation, userAgent: "shiplog-demo" });
  const release = { name: "ghcr.io/acme/api", version: "2.4.0", digest: digest("acme/api:2.4.0") };

  await client.artifacts.createStorageRecord({
    org: "acme",
    ...release,
    registry_url: "https://ghcr.io/",
    artifact_url: "https://ghcr.io/acme/api:2.4.0",
    repository: "acme/api",
    github_repository: "api",
  });
  const deployments = ["eu-west", "us-east"].map((region, i) => ({
    ...release,
    deployment_name: `payments-api-${region}`,
    github_repository: "api",
    tags: { team: "payments" },
    runtime_risks: i === 0 ? (["internet-exposed"] as const) : (["sensitive-data"] as const),
  }));
  const set = await client.artifacts.setClusterDeploymentRecords({
    org: "acme",
    cluster: "prod-main",
    logical_environment: "production",
    physical_environment: "multi-region",
    deployments: deployments.map((d) => ({ ...d, runtime_risks: [...d.runtime_risks] })),
  });
  console.log(`client: stored 1 storage record and set ${set.total_count} deployment records for ${release.name}@${release.version}`);

  const listedDeployments = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: release.digest });
  printTable(
    `Deployment records of ${release.digest.slice(0, 19)}… (GET .../deployment-records)`,
    listedDeployments.deployment_records.map((r) => ({
      id: r.id,
      cluster: r.cluster,
      env: r.logical_environment,
      deployment: r.deployment_name,
      risks: r.runtime_risks?.join(","),
      tags: r.tags,
    })),
  );
  const listedStorage = await client.artifacts.listStorageRecords({ org: "acme", subject_digest: release.digest });
  printTable(
    "Storage records (GET .../storage-records)",
    listedStorage.storage_records.map((r) => ({ name: r.name, registry: r.registry_url, artifact: r.artifact_url, status: r.status })),
  );
}
