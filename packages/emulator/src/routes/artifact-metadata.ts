import type { FastifyInstance } from "fastify";
import type { ClusterDeploymentEntry, ClusterDeploymentRecordsBody, DeploymentRecordBody, StorageRecordBody } from "./request-bodies.js";
import type { Principal } from "../access-control.js";
import {
  resolveArtifactRepository,
  type ArtifactRepositoryFacts,
  type RepositoryFailure as EntryFailure,
  type RepositoryResolution,
  type ResolvedRepository as Resolved,
} from "../artifact-repository-resolution.js";
import { deploymentRecordView, storageRecordView, type DeploymentWrite, type StoredDeploymentRecord } from "../artifact-store.js";
import type { EmulatorContext } from "../emulator-context.js";
import { sendError } from "../service-errors.js";
import { sendConditionally } from "./conditional-get.js";
import { serve } from "./route-table.js";

const DOCS = "/orgs/artifact-metadata";

/** Deployment and storage records (spec 4.1) with the service's identity and permission rules. */
export function registerArtifactMetadataRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { access, fixture, state } = ctx;

  /** What the repository resolution reads for one request: attestations, and the caller's level per repository. */
  function factsFor(org: string, principal: Principal): ArtifactRepositoryFacts {
    const repositories = (access.findOrg(org)?.repositories ?? []).map((r) => ({
      name: r.name,
      id: r.id,
      artifactMetadata: access.levelFor(principal, org, r.name, "artifact_metadata"),
    }));
    return { attestations: fixture.attestations, repositories };
  }

  function resolve(
    org: string,
    digest: string,
    githubRepository: string | undefined,
    facts: ArtifactRepositoryFacts,
  ): RepositoryResolution {
    return resolveArtifactRepository(
      { org, digest, githubRepository, linkedRepositories: state.artifacts.linkedRepositories(org, digest) },
      facts,
    );
  }

  serve<{ Params: { org: string } }>(app, "orgs/create-artifact-deployment-record", async (request, reply) => {
    // Bodies and parameters are checked by request-checks.ts (the official request schemas) before handlers.
    const body = request.body as DeploymentRecordBody;
    const org = access.findOrg(request.params.org)!.login;
    const resolved = resolve(org, body.digest, body.github_repository, factsFor(org, request.principal));
    if (!resolved.ok) return failSingle(reply, resolved.failure, resolved.repository);
    const record = state.artifacts.upsertDeployment(
      deploymentWrite(
        org,
        { cluster: body.cluster ?? "", logical_environment: body.logical_environment, physical_environment: body.physical_environment },
        body,
        resolved.value,
      ),
    );
    return reply.send(recordList([record], body.return_records ?? true));
  });

  serve<{ Params: { org: string; cluster: string } }>(app, "orgs/set-cluster-deployment-records", async (request, reply) => {
    const cluster = request.params.cluster;
    const body = request.body as ClusterDeploymentRecordsBody;
    const org = access.findOrg(request.params.org)!.login;

    // Resolve every entry before writing any, so a refused call changes nothing.
    const accepted: { entry: ClusterDeploymentEntry; resolved: Resolved }[] = [];
    const failures: { entry: ClusterDeploymentEntry; failure: EntryFailure; repository?: string | number }[] = [];
    const facts = factsFor(org, request.principal);
    for (const entry of body.deployments) {
      const result = resolve(org, entry.digest, entry.github_repository, facts);
      if (result.ok) accepted.push({ entry, resolved: result.value });
      else failures.push({ entry, failure: result.failure, repository: result.repository });
    }
    if (failures.length > 0 && !body.partial_success) return failCluster(reply, failures);

    const place = { cluster, logical_environment: body.logical_environment, physical_environment: body.physical_environment };
    const records = accepted.map(({ entry, resolved }) => state.artifacts.upsertDeployment(deploymentWrite(org, place, entry, resolved)));
    const result: Record<string, unknown> = recordList(records, body.return_records ?? true);
    if (failures.length === 0) return reply.send(result);
    // The OpenAPI enum knows two causes; an unresolvable repository and a missing attestation are both `not_found`.
    result.errors = failures.map((f) => ({ cause: f.failure === "unauthorized" ? "unauthorized" : "not_found", deployment: f.entry }));
    return reply.code(207).send(result);
  });

  serve<{ Params: { org: string } }>(app, "orgs/create-artifact-storage-record", async (request, reply) => {
    const body = request.body as StorageRecordBody;
    const org = access.findOrg(request.params.org)!.login;
    const resolved = resolve(org, body.digest, body.github_repository, factsFor(org, request.principal));
    if (!resolved.ok) return failSingle(reply, resolved.failure, resolved.repository);
    const record = state.artifacts.upsertStorage({
      org,
      repository: resolved.value.repository,
      name: body.name,
      version: body.version,
      digest: body.digest,
      artifact_url: body.artifact_url,
      path: body.path,
      registry_url: body.registry_url,
      registry_repository: body.repository,
      status: body.status ?? "active",
    });
    const returnRecords = body.return_records ?? true;
    return reply.send({ total_count: 1, ...(returnRecords && { storage_records: [storageRecordView(record)] }) });
  });

  serve<{ Params: { org: string; subject_digest: string } }>(app, "orgs/list-artifact-deployment-records", async (request, reply) => {
    const digest = request.params.subject_digest;
    const org = access.findOrg(request.params.org)!.login;
    const visible = state.artifacts
      .deploymentRecords({ org, digest })
      .filter((r) => access.levelFor(request.principal, org, r.repository, "artifact_metadata") !== undefined);
    return sendConditionally(request, reply, { total_count: visible.length, deployment_records: visible.map(deploymentRecordView) });
  });

  serve<{ Params: { org: string; subject_digest: string } }>(app, "orgs/list-artifact-storage-records", async (request, reply) => {
    const digest = request.params.subject_digest;
    const org = access.findOrg(request.params.org)!.login;
    const principal = request.principal;
    // Only repositories the caller can read; a fine-grained token also needs contents read.
    const visible = state.artifacts.storageRecords({ org, digest }).filter((r) => {
      if (access.levelFor(principal, org, r.repository, "artifact_metadata") === undefined) return false;
      if (principal.kind === "token" && principal.token.type === "fine_grained") {
        return access.levelFor(principal, org, r.repository, "contents") !== undefined;
      }
      return true;
    });
    // Spec 2.3: "The list response carries storage_records only" (create answers carry total_count too).
    return sendConditionally(request, reply, { storage_records: visible.map(storageRecordView) });
  });
}

/** The store write for one entry at one place (cluster and environments); cluster entries default to deployed. */
function deploymentWrite(
  org: string,
  place: { cluster: string; logical_environment: string; physical_environment: string | undefined },
  entry: Omit<ClusterDeploymentEntry, "status"> & { status?: "deployed" | "decommissioned" },
  resolved: Resolved,
): DeploymentWrite {
  return {
    org,
    cluster: place.cluster,
    logical_environment: place.logical_environment,
    physical_environment: place.physical_environment ?? "",
    deployment_name: entry.deployment_name,
    name: entry.name,
    version: entry.version,
    digest: entry.digest,
    status: entry.status ?? "deployed",
    tags: entry.tags,
    runtime_risks: entry.runtime_risks,
    repository: resolved.repository,
    attestation_id: resolved.attestationId,
  };
}

function recordList(records: StoredDeploymentRecord[], returnRecords: boolean) {
  return { total_count: records.length, ...(returnRecords && { deployment_records: records.map(deploymentRecordView) }) };
}

function failSingle(reply: import("fastify").FastifyReply, failure: EntryFailure, repository?: string | number) {
  if (failure === "repository_not_found") {
    return sendError(reply, 404, { cause: "One or more repositories do not exist", repositories: [repository] }, { docs: DOCS });
  }
  if (failure === "unauthorized") {
    return sendError(
      reply,
      403,
      { cause: "artifact metadata write permission required on one or more repositories", repositories: [repository] },
      { docs: DOCS },
    );
  }
  return sendError(reply, 422, "Validation Failed", {
    docs: DOCS,
    errors: [
      {
        resource: "Artifact",
        field: "github_repository",
        code: "missing_field",
        message: "no provenance attestation links this digest to a repository of the organization; give github_repository",
      },
    ],
  });
}

function failCluster(
  reply: import("fastify").FastifyReply,
  failures: { entry: ClusterDeploymentEntry; failure: EntryFailure; repository?: string | number }[],
) {
  const missing = failures.filter((f) => f.failure === "repository_not_found");
  if (missing.length > 0) {
    return sendError(
      reply,
      404,
      { cause: "One or more repositories do not exist", repositories: unique(missing.map((f) => f.repository)) },
      { docs: DOCS },
    );
  }
  const unauthorized = failures.filter((f) => f.failure === "unauthorized");
  if (unauthorized.length > 0) {
    return sendError(
      reply,
      403,
      {
        cause: "artifact metadata write permission required on one or more repositories",
        repositories: unique(unauthorized.map((f) => f.repository)),
      },
      { docs: DOCS },
    );
  }
  return sendError(reply, 422, "Validation Failed", {
    docs: DOCS,
    errors: failures.map((f) => ({
      resource: "DeploymentRecord",
      field: `deployments[deployment_name=${f.entry.deployment_name}].github_repository`,
      code: "missing_field" as const,
      message: "no provenance attestation links this digest to a repository of the organization; give github_repository",
    })),
  });
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
