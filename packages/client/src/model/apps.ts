// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.

/** An App's installation on an account (`GET /orgs/{org}/installation`); the client relies on `id` only. */
export type AppInstallation = {
  id: number;
  app_id: number;
  target_type: string;
  repository_selection: string;
  permissions: Record<string, undefined | string>;
  created_at: string;
};

/** An installation access token, as minted (`POST /app/installations/{installation_id}/access_tokens`). */
export type InstallationToken = {
  token: string;
  expires_at: string;
  permissions?: Record<string, undefined | string>;
  repository_selection?: string;
};

export type OrgInstallationParams = {
  org: string;
};

export type RepoInstallationParams = {
  owner: string;
  repo: string;
};

/** Mints a token for an installation, narrowed to some repositories and permissions when given. */
export type CreateInstallationTokenParams = {
  installation_id: number;
  repositories?: string[];
  repository_ids?: number[];
  permissions?: Record<string, "read" | "write" | "admin">;
};
