/**
 * The request bodies the handlers read, as TypeScript sees them. They are checked at run time by the compiled
 * official request schemas (request-checks.ts) before a handler runs; these types only name the fields.
 */

export type DeploymentStatus = "deployed" | "decommissioned";

export interface ClusterDeploymentEntry {
  name: string;
  digest: string;
  version?: string;
  status?: DeploymentStatus;
  deployment_name: string;
  github_repository?: string;
  tags?: Record<string, string>;
  runtime_risks?: string[];
}

export interface DeploymentRecordBody extends ClusterDeploymentEntry {
  status: DeploymentStatus;
  logical_environment: string;
  physical_environment?: string;
  cluster?: string;
  return_records?: boolean;
}

export interface ClusterDeploymentRecordsBody {
  logical_environment: string;
  physical_environment?: string;
  deployments: ClusterDeploymentEntry[];
  partial_success?: boolean;
  return_records?: boolean;
}

export interface StorageRecordBody {
  name: string;
  digest: string;
  version?: string;
  artifact_url?: string;
  path?: string;
  registry_url: string;
  repository?: string;
  status?: string;
  github_repository?: string;
  return_records?: boolean;
}

export interface CreateTagBody {
  tag: string;
  message: string;
  object: string;
  type: "commit" | "tree" | "blob";
  tagger?: { name: string; email: string; date?: string };
}

export interface CreateRefBody {
  ref: string;
  sha: string;
}

export interface UpdateRefBody {
  sha: string;
  force?: boolean;
}
