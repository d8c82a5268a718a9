import { z } from "zod";
import { ownerName, repositoryName, sha256Digest, timestamp } from "./common.js";
import { openEnum } from "./open-enum.js";
import { RUNTIME_RISKS, DEPLOYMENT_STATUSES, STORAGE_STATUSES, MAX_CLUSTER_ENTRIES } from "../model/values.js";
export { RUNTIME_RISKS, DEPLOYMENT_STATUSES, STORAGE_STATUSES, MAX_CLUSTER_ENTRIES } from "../model/values.js";

export const runtimeRisk = z.enum(RUNTIME_RISKS);
export type RuntimeRisk = z.infer<typeof runtimeRisk>;

export const deploymentStatus = z.enum(DEPLOYMENT_STATUSES);
export type DeploymentStatus = z.infer<typeof deploymentStatus>;

export const storageStatus = z.enum(STORAGE_STATUSES);
export type StorageStatus = z.infer<typeof storageStatus>;

const runtimeRisks = z
  .array(runtimeRisk)
  .max(4)
  .refine((risks) => new Set(risks).size === risks.length, { message: "values must be unique", params: { rule: "uniqueItems" } });

const artifactName = z.string().min(1).max(256);
const artifactVersion = z.string().min(1).max(100);
const environmentName = z.string().min(1).max(128);
const tags = z.record(z.string(), z.string());
const httpsUrl = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^https:\/\//, { message: "must start with https://" });

export const clusterName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-zA-Z0-9._-]+$/, {
    message: "must be letters, digits, '.', '-' or '_'",
  });

// ---- requests -------------------------------------------------------------------------------

/** Body of POST /orgs/{org}/artifacts/metadata/deployment-record. */
export const deploymentRecordBody = z.strictObject({
  name: artifactName,
  digest: sha256Digest,
  version: artifactVersion.optional(),
  status: deploymentStatus,
  logical_environment: environmentName,
  physical_environment: z.string().max(128).optional(),
  cluster: z.string().max(128).optional(),
  deployment_name: z.string().min(1).max(256),
  tags: tags.refine((t) => Object.keys(t).length <= 5, { message: "at most 5 tags", params: { rule: "maxProperties 5" } }).optional(),
  runtime_risks: runtimeRisks.optional(),
  github_repository: repositoryName.optional(),
  return_records: z.boolean().optional(),
});
export type DeploymentRecordBody = z.infer<typeof deploymentRecordBody>;

/** One entry of the cluster call's `deployments`. */
export const clusterDeploymentEntry = z.strictObject({
  name: artifactName,
  digest: sha256Digest,
  version: artifactVersion.optional(),
  status: deploymentStatus.optional(),
  deployment_name: z.string().min(1).max(256),
  github_repository: repositoryName.optional(),
  tags: tags.optional(),
  runtime_risks: runtimeRisks.optional(),
});
export type ClusterDeploymentEntry = z.infer<typeof clusterDeploymentEntry>;

/** Entries whose deployment_name repeats an earlier one break the "unique within a call" rule. */
function uniqueDeploymentNames(entries: readonly ClusterDeploymentEntry[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    const first = seen.get(entry.deployment_name);
    if (first === undefined) {
      seen.set(entry.deployment_name, index);
      return;
    }
    ctx.addIssue({
      code: "custom",
      path: ["deployments", index, "deployment_name"],
      message: `"${entry.deployment_name}" repeats deployments[${first}]; deployment_name must be unique within a call`,
      params: { rule: "unique within the call" },
    });
  });
}

const clusterBodyFields = {
  logical_environment: environmentName,
  physical_environment: z.string().max(128).optional(),
  return_records: z.boolean().optional(),
  partial_success: z.boolean().optional(),
};

/** Body of POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}, as sent on the wire. */
export const clusterDeploymentRecordsBody = z
  .strictObject({ ...clusterBodyFields, deployments: z.array(clusterDeploymentEntry).min(1).max(MAX_CLUSTER_ENTRIES) })
  .superRefine((body, ctx) => uniqueDeploymentNames(body.deployments, ctx));
export type ClusterDeploymentRecordsBody = z.infer<typeof clusterDeploymentRecordsBody>;

/** Body of POST /orgs/{org}/artifacts/metadata/storage-record. */
export const storageRecordBody = z.strictObject({
  name: artifactName,
  digest: sha256Digest,
  version: artifactVersion.optional(),
  artifact_url: httpsUrl(152).optional(),
  path: z.string().max(512).optional(),
  registry_url: httpsUrl(256),
  repository: z.string().max(128).optional(),
  status: storageStatus.optional(),
  github_repository: repositoryName.optional(),
  return_records: z.boolean().optional(),
});
export type StorageRecordBody = z.infer<typeof storageRecordBody>;

// ---- client parameters (path parameters plus body, octokit style) ---------------------------

export const createDeploymentRecordParams = deploymentRecordBody.extend({ org: ownerName });
export type CreateDeploymentRecordParams = z.input<typeof createDeploymentRecordParams>;

/** The client splits more than 1000 entries into chunks, so its own limit is only "at least one". */
export const setClusterDeploymentRecordsParams = z
  .strictObject({ ...clusterBodyFields, org: ownerName, cluster: clusterName, deployments: z.array(clusterDeploymentEntry).min(1) })
  .superRefine((body, ctx) => uniqueDeploymentNames(body.deployments, ctx));
export type SetClusterDeploymentRecordsParams = z.input<typeof setClusterDeploymentRecordsParams>;

export const createStorageRecordParams = storageRecordBody.extend({ org: ownerName });
export type CreateStorageRecordParams = z.input<typeof createStorageRecordParams>;

export const listByDigestParams = z.strictObject({ org: ownerName, subject_digest: sha256Digest });
export type ListByDigestParams = z.input<typeof listByDigestParams>;

// ---- responses ------------------------------------------------------------------------------

/** A deployment record as the service returns it. The spec names `created`, the OpenAPI schema `created_at`. */
export const deploymentRecord = z.looseObject({
  id: z.number().int(),
  digest: z.string(),
  logical_environment: z.string(),
  physical_environment: z.string().optional(),
  cluster: z.string().optional(),
  deployment_name: z.string(),
  tags: z.record(z.string(), z.string()).optional(),
  runtime_risks: z.array(openEnum(RUNTIME_RISKS)).optional(),
  created: timestamp.optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
  attestation_id: z.number().int().nullable().optional(),
});
export type DeploymentRecord = z.infer<typeof deploymentRecord>;

export const deploymentRecordList = z.looseObject({
  total_count: z.number().int(),
  deployment_records: z.array(deploymentRecord).default([]),
});
export type DeploymentRecordList = z.infer<typeof deploymentRecordList>;

/** An entry the cluster call skipped under `partial_success`, with the reason. */
export const clusterDeploymentError = z.looseObject({
  cause: z.string(),
  deployment: z.looseObject({ deployment_name: z.string() }),
});
export type ClusterDeploymentError = z.infer<typeof clusterDeploymentError>;

export const clusterDeploymentResult = deploymentRecordList.extend({
  errors: z.array(clusterDeploymentError).optional(),
});
export type ClusterDeploymentResult = z.infer<typeof clusterDeploymentResult>;

export const storageRecord = z.looseObject({
  id: z.number().int().optional(),
  name: z.string(),
  digest: z.string(),
  artifact_url: z.string().optional(),
  registry_url: z.string().optional(),
  repository: z.string().optional(),
  status: openEnum(STORAGE_STATUSES).optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
});
export type StorageRecord = z.infer<typeof storageRecord>;

export const storageRecordList = z.looseObject({
  total_count: z.number().int().optional(),
  storage_records: z.array(storageRecord).default([]),
});
export type StorageRecordList = z.infer<typeof storageRecordList>;
