import { z } from "zod";
import { ownerName, repositoryName, timestamp } from "./common.js";

/** An App's installation on an account (`GET /orgs/{org}/installation`); the client relies on `id` only. */
export const appInstallation = z.looseObject({
  id: z.number().int(),
  app_id: z.number().int(),
  target_type: z.string(),
  repository_selection: z.string(),
  permissions: z.record(z.string(), z.string().optional()),
  created_at: timestamp,
});
export type AppInstallation = z.infer<typeof appInstallation>;

/** An installation access token, as minted (`POST /app/installations/{installation_id}/access_tokens`). */
export const installationToken = z.looseObject({
  token: z.string().min(1),
  expires_at: z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: "must be a date" }),
  permissions: z.record(z.string(), z.string().optional()).optional(),
  repository_selection: z.string().optional(),
});
export type InstallationToken = z.infer<typeof installationToken>;

/** Parameters of `GET /app` (none: the JWT names the App). */
export const getAppParams = z.strictObject({});

export const orgInstallationParams = z.strictObject({ org: ownerName });
export type OrgInstallationParams = z.input<typeof orgInstallationParams>;

export const repoInstallationParams = z.strictObject({ owner: ownerName, repo: repositoryName });
export type RepoInstallationParams = z.input<typeof repoInstallationParams>;

/** Mints a token for an installation, narrowed to some repositories and permissions when given. */
export const createInstallationTokenParams = z.strictObject({
  installation_id: z.number().int().positive(),
  repositories: z.array(repositoryName).optional(),
  repository_ids: z.array(z.number().int().positive()).optional(),
  permissions: z.record(z.string(), z.string()).optional(),
});
export type CreateInstallationTokenParams = z.input<typeof createInstallationTokenParams>;
