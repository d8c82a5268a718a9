import { z } from "zod";
import { ownerName, repositoryName } from "./common.js";
import { openEnum, type OpenEnum } from "./open-enum.js";
import {
  type IMPORT_WORKING_STATUSES,
  type IMPORT_PROBLEM_STATUSES,
  IMPORT_STATUSES,
  IMPORT_OTHER_STATUSES,
  LFS_PREFERENCES,
} from "../model/values.js";
export {
  SOURCE_IMPORTS_RETIRED_AT,
  IMPORT_WORKING_STATUSES,
  IMPORT_PROBLEM_STATUSES,
  IMPORT_STATUSES,
  IMPORT_OTHER_STATUSES,
  LFS_PREFERENCES,
} from "../model/values.js";

/** Version-control systems the importer reads (spec 2.9). */
export const IMPORT_VCS_TYPES = ["subversion", "git", "mercurial", "tfvc"] as const;
export const importVcs = z.enum(IMPORT_VCS_TYPES);
export type ImportVcs = z.infer<typeof importVcs>;

export type ImportWorkingStatus = (typeof IMPORT_WORKING_STATUSES)[number];

export type ImportProblemStatus = (typeof IMPORT_PROBLEM_STATUSES)[number];

/** An import's `status`: a known one or, from a newer service, any other string (a follower treats it as working). */
export const importStatus = openEnum([...IMPORT_STATUSES, ...IMPORT_OTHER_STATUSES]);
export type ImportStatus = OpenEnum<(typeof IMPORT_STATUSES)[number] | (typeof IMPORT_OTHER_STATUSES)[number]>;

export type LfsPreference = (typeof LFS_PREFERENCES)[number];

/** Files over this size are "large files" (spec section 8: 100MB). */
export const LARGE_FILE_THRESHOLD_BYTES = 100 * 1024 * 1024;

// ---- responses ------------------------------------------------------------------------------

/** One project the importer found at the URL; its fields differ with the version-control type. */
export const projectChoice = z.looseObject({
  vcs: z.string().optional(),
  tfvc_project: z.string().optional(),
  human_name: z.string().optional(),
});
export type ProjectChoice = z.infer<typeof projectChoice>;

const count = z.number().int().nullable().optional();

/**
 * An import (spec 2.9). `use_lfs` is a string in the spec and in recorded answers of the service,
 * a boolean in the OpenAPI schema and its samples: both are accepted. The spec names the progress
 * and error fields `percent` and `message`, the OpenAPI schema `import_percent` and `error_message`:
 * both are accepted (see `importProgressOf` of api/import-follower.ts).
 */
export const sourceImport = z.looseObject({
  vcs: openEnum(IMPORT_VCS_TYPES).nullable(),
  use_lfs: z.union([openEnum(LFS_PREFERENCES), z.boolean()]).optional(),
  vcs_url: z.string(),
  svc_root: z.string().optional(),
  svn_root: z.string().optional(),
  tfvc_project: z.string().optional(),
  status: importStatus,
  status_text: z.string().nullable().optional(),
  has_large_files: z.boolean().optional(),
  large_files_size: z.number().int().optional(),
  large_files_count: z.number().int().optional(),
  authors_count: count,
  commit_count: count,
  percent: count,
  import_percent: count,
  push_percent: count,
  failed_step: z.string().nullable().optional(),
  message: z.string().optional(),
  error_message: z.string().nullable().optional(),
  project_choices: z.array(projectChoice).optional(),
  url: z.string(),
  html_url: z.string(),
  authors_url: z.string(),
  repository_url: z.string(),
});
export type SourceImport = z.infer<typeof sourceImport>;

/** A commit author found by the importer (spec 2.9). */
export const importAuthor = z.looseObject({
  id: z.number().int(),
  remote_id: z.string(),
  remote_name: z.string(),
  email: z.string(),
  name: z.string(),
  url: z.string(),
  import_url: z.string(),
});
export type ImportAuthor = z.infer<typeof importAuthor>;
export const importAuthorList = z.array(importAuthor);

/** A file over 100MB found while importing (spec 2.9). */
export const importLargeFile = z.looseObject({
  ref_name: z.string(),
  path: z.string(),
  oid: z.string(),
  size: z.number().int(),
});
export type ImportLargeFile = z.infer<typeof importLargeFile>;
export const importLargeFileList = z.array(importLargeFile);

// ---- request bodies (as sent on the wire; the emulator validates with these too) -----------

const vcsUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((value) => URL.canParse(value), { message: "must be an absolute URL", params: { rule: "format uri" } });

const credential = z.string().min(1).max(1024);

/** Username and password only make sense together. */
function credentialsTogether(body: { vcs_username?: string | undefined; vcs_password?: string | undefined }, ctx: z.RefinementCtx): void {
  const hasUser = body.vcs_username !== undefined;
  const hasPassword = body.vcs_password !== undefined;
  if (hasUser === hasPassword) return;
  const missing = hasUser ? "vcs_password" : "vcs_username";
  ctx.addIssue({
    code: "custom",
    path: [missing],
    message: `${missing} is required when ${hasUser ? "vcs_username" : "vcs_password"} is given`,
    params: { rule: "vcs_username and vcs_password go together" },
  });
}

const startImportFields = {
  vcs_url: vcsUrl,
  vcs: importVcs.optional(),
  vcs_username: credential.optional(),
  vcs_password: credential.optional(),
  tfvc_project: z.string().min(1).max(255).optional(),
};

/** Body of PUT /repos/{owner}/{repo}/import. Without `vcs` the importer adds a detection step. */
export const startImportBody = z.strictObject(startImportFields).superRefine(credentialsTogether);
export type StartImportBody = z.infer<typeof startImportBody>;

const updateImportFields = {
  vcs_username: credential.optional(),
  vcs_password: credential.optional(),
  vcs: importVcs.optional(),
  tfvc_project: z.string().min(1).max(255).optional(),
  /** Part of a `project_choices` entry sent back as the choice (the OpenAPI request sample carries it). */
  human_name: z.string().max(255).optional(),
};

/** Body of PATCH /repos/{owner}/{repo}/import: credentials, a project choice, or nothing (restart). */
export const updateImportBody = z.strictObject(updateImportFields).superRefine(credentialsTogether);
export type UpdateImportBody = z.infer<typeof updateImportBody>;

const authorFields = {
  email: z.string().min(1).max(255).optional(),
  name: z.string().min(1).max(255).optional(),
};

/** At least one of `email` and `name`: an empty mapping changes nothing. */
function someAuthorField(body: { email?: string | undefined; name?: string | undefined }, ctx: z.RefinementCtx): void {
  if (body.email !== undefined || body.name !== undefined) return;
  ctx.addIssue({ code: "custom", path: [], message: "give email, name or both", params: { rule: "minProperties 1" } });
}

/** Body of PATCH /repos/{owner}/{repo}/import/authors/{author_id}. */
export const mapCommitAuthorBody = z.strictObject(authorFields).superRefine(someAuthorField);
export type MapCommitAuthorBody = z.infer<typeof mapCommitAuthorBody>;

/** Body of PATCH /repos/{owner}/{repo}/import/lfs. */
export const setLfsPreferenceBody = z.strictObject({ use_lfs: z.enum(["opt_in", "opt_out"]) });
export type SetLfsPreferenceBody = z.infer<typeof setLfsPreferenceBody>;

// ---- client parameters (path parameters plus body, octokit style) ---------------------------

const repoFields = { owner: ownerName, repo: repositoryName };

export const importRepoParams = z.strictObject(repoFields);
export type ImportRepoParams = z.input<typeof importRepoParams>;

export const startImportParams = z.strictObject({ ...repoFields, ...startImportFields }).superRefine(credentialsTogether);
export type StartImportParams = z.input<typeof startImportParams>;

export const updateImportParams = z.strictObject({ ...repoFields, ...updateImportFields }).superRefine(credentialsTogether);
export type UpdateImportParams = z.input<typeof updateImportParams>;

export const getCommitAuthorsParams = z.strictObject({ ...repoFields, since: z.number().int().min(0).optional() });
export type GetCommitAuthorsParams = z.input<typeof getCommitAuthorsParams>;

export const mapCommitAuthorParams = z
  .strictObject({ ...repoFields, author_id: z.number().int().min(1), ...authorFields })
  .superRefine(someAuthorField);
export type MapCommitAuthorParams = z.input<typeof mapCommitAuthorParams>;

export const setLfsPreferenceParams = z.strictObject({ ...repoFields, use_lfs: z.enum(["opt_in", "opt_out"]) });
export type SetLfsPreferenceParams = z.input<typeof setLfsPreferenceParams>;

/** A project choice sent back to the importer to settle `detection_found_multiple`. */
export const chooseProjectParams = z.strictObject({ ...repoFields, choice: projectChoice });
export type ChooseProjectParams = z.input<typeof chooseProjectParams>;
