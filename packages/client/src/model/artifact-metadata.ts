// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { OpenEnum } from "./open-enum.js";

export type RuntimeRisk = "critical-resource" | "internet-exposed" | "lateral-movement" | "sensitive-data";

export type DeploymentStatus = "deployed" | "decommissioned";

export type StorageStatus = "active" | "inactive" | "eol" | "deleted";

/** Body of POST /orgs/{org}/artifacts/metadata/deployment-record. */
export type DeploymentRecordBody = {
  name: string;
  digest: string;
  status: DeploymentStatus;
  logical_environment: string;
  deployment_name: string;
  version?: string;
  physical_environment?: string;
  cluster?: string;
  tags?: Record<string, string>;
  runtime_risks?: RuntimeRisk[];
  github_repository?: string;
  return_records?: boolean;
};

/** One entry of the cluster call's `deployments`. */
export type ClusterDeploymentEntry = {
  name: string;
  digest: string;
  deployment_name: string;
  version?: string;
  status?: DeploymentStatus;
  github_repository?: string;
  tags?: Record<string, string>;
  runtime_risks?: RuntimeRisk[];
};

/** Body of POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}, as sent on the wire. */
export type ClusterDeploymentRecordsBody = {
  deployments: ClusterDeploymentEntry[];
  logical_environment: string;
  physical_environment?: string;
  return_records?: boolean;
  partial_success?: boolean;
};

/** Body of POST /orgs/{org}/artifacts/metadata/storage-record. */
export type StorageRecordBody = {
  name: string;
  digest: string;
  registry_url: string;
  version?: string;
  artifact_url?: string;
  path?: string;
  repository?: string;
  status?: StorageStatus;
  github_repository?: string;
  return_records?: boolean;
};

export type CreateDeploymentRecordParams = {
  name: string;
  digest: string;
  status: DeploymentStatus;
  logical_environment: string;
  deployment_name: string;
  org: string;
  version?: string;
  physical_environment?: string;
  cluster?: string;
  tags?: Record<string, string>;
  runtime_risks?: RuntimeRisk[];
  github_repository?: string;
  return_records?: boolean;
};

/** The client splits more than 1000 entries into chunks, so its own limit is only "at least one". */
export type SetClusterDeploymentRecordsParams = {
  org: string;
  cluster: string;
  deployments: {
    name: string;
    digest: string;
    deployment_name: string;
    version?: string;
    status?: DeploymentStatus;
    github_repository?: string;
    tags?: Record<string, string>;
    runtime_risks?: RuntimeRisk[];
  }[];
  logical_environment: string;
  physical_environment?: string;
  return_records?: boolean;
  partial_success?: boolean;
};

export type CreateStorageRecordParams = {
  name: string;
  digest: string;
  registry_url: string;
  org: string;
  version?: string;
  artifact_url?: string;
  path?: string;
  repository?: string;
  status?: StorageStatus;
  github_repository?: string;
  return_records?: boolean;
};

export type ListByDigestParams = {
  org: string;
  subject_digest: string;
};

/** A deployment record as the service returns it. The spec names `created`, the OpenAPI schema `created_at`. */
export type DeploymentRecord = {
  id: number;
  digest: string;
  logical_environment: string;
  deployment_name: string;
  physical_environment?: string;
  cluster?: string;
  tags?: Record<string, string>;
  runtime_risks?: OpenEnum<RuntimeRisk>[];
  created?: string;
  created_at?: string;
  updated_at?: string;
  attestation_id?: null | number;
};

export type DeploymentRecordList = {
  total_count: number;
  deployment_records: DeploymentRecord[];
};

/** An entry the cluster call skipped under `partial_success`, with the reason. */
export type ClusterDeploymentError = {
  cause: string;
  deployment: {
    deployment_name: string;
  };
};

export type ClusterDeploymentResult = {
  total_count: number;
  deployment_records: DeploymentRecord[];
  errors?: ClusterDeploymentError[];
};

export type StorageRecord = {
  name: string;
  digest: string;
  id?: number;
  artifact_url?: string;
  registry_url?: string;
  repository?: string;
  status?: OpenEnum<"active" | "inactive" | "eol" | "deleted">;
  created_at?: string;
  updated_at?: string;
};

export type StorageRecordList = {
  storage_records: StorageRecord[];
  total_count?: number;
};
