// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { OpenEnum } from "./open-enum.js";

export type ImportVcs = "subversion" | "git" | "mercurial" | "tfvc";

export type ImportWorkingStatus = "detecting" | "importing" | "mapping" | "pushing";

export type ImportProblemStatus = "error" | "auth_failed" | "detection_needs_auth" | "detection_found_nothing" | "detection_found_multiple";

export type ImportStatus = OpenEnum<
  | "unknown"
  | "error"
  | "detecting"
  | "importing"
  | "mapping"
  | "pushing"
  | "auth_failed"
  | "detection_needs_auth"
  | "detection_found_nothing"
  | "detection_found_multiple"
  | "complete"
  | "auth"
  | "none"
  | "choose"
  | "waiting_to_push"
  | "setup"
>;

export type LfsPreference = "opt_in" | "opt_out" | "undecided";

/** One project the importer found at the URL; its fields differ with the version-control type. */
export type ProjectChoice = {
  vcs?: string;
  tfvc_project?: string;
  human_name?: string;
};

/**
 * An import (spec 2.9). `use_lfs` is a string in the spec and in recorded answers of the service,
 * a boolean in the OpenAPI schema and its samples: both are accepted. The spec names the progress
 * and error fields `percent` and `message`, the OpenAPI schema `import_percent` and `error_message`:
 * both are accepted (see `importProgressOf` of api/import-follower.ts).
 */
export type SourceImport = {
  vcs: null | OpenEnum<"subversion" | "git" | "mercurial" | "tfvc">;
  vcs_url: string;
  status: ImportStatus;
  url: string;
  html_url: string;
  authors_url: string;
  repository_url: string;
  use_lfs?: false | true | OpenEnum<"opt_in" | "opt_out" | "undecided">;
  svc_root?: string;
  svn_root?: string;
  tfvc_project?: string;
  status_text?: null | string;
  has_large_files?: boolean;
  large_files_size?: number;
  large_files_count?: number;
  authors_count?: null | number;
  commit_count?: null | number;
  percent?: null | number;
  import_percent?: null | number;
  push_percent?: null | number;
  failed_step?: null | string;
  message?: string;
  error_message?: null | string;
  project_choices?: ProjectChoice[];
};

/** A commit author found by the importer (spec 2.9). */
export type ImportAuthor = {
  id: number;
  remote_id: string;
  remote_name: string;
  email: string;
  name: string;
  url: string;
  import_url: string;
};

/** A file over 100MB found while importing (spec 2.9). */
export type ImportLargeFile = {
  ref_name: string;
  path: string;
  oid: string;
  size: number;
};

/** Body of PUT /repos/{owner}/{repo}/import. Without `vcs` the importer adds a detection step. */
export type StartImportBody = {
  vcs_url: string;
  vcs?: ImportVcs;
  vcs_username?: string;
  vcs_password?: string;
  tfvc_project?: string;
};

/** Body of PATCH /repos/{owner}/{repo}/import: credentials, a project choice, or nothing (restart). */
export type UpdateImportBody = {
  vcs_username?: string;
  vcs_password?: string;
  vcs?: ImportVcs;
  tfvc_project?: string;
  /** Part of a `project_choices` entry sent back as the choice (the OpenAPI request sample carries it). */
  human_name?: string;
};

/** Body of PATCH /repos/{owner}/{repo}/import/authors/{author_id}. */
export type MapCommitAuthorBody = {
  email?: string;
  name?: string;
};

/** Body of PATCH /repos/{owner}/{repo}/import/lfs. */
export type SetLfsPreferenceBody = {
  use_lfs: "opt_in" | "opt_out";
};

export type ImportRepoParams = {
  owner: string;
  repo: string;
};

export type StartImportParams = {
  vcs_url: string;
  owner: string;
  repo: string;
  vcs?: ImportVcs;
  vcs_username?: string;
  vcs_password?: string;
  tfvc_project?: string;
};

export type UpdateImportParams = {
  owner: string;
  repo: string;
  vcs_username?: string;
  vcs_password?: string;
  vcs?: ImportVcs;
  tfvc_project?: string;
  /** Part of a `project_choices` entry sent back as the choice (the OpenAPI request sample carries it). */
  human_name?: string;
};

export type GetCommitAuthorsParams = {
  owner: string;
  repo: string;
  since?: number;
};

export type MapCommitAuthorParams = {
  author_id: number;
  owner: string;
  repo: string;
  email?: string;
  name?: string;
};

export type SetLfsPreferenceParams = {
  use_lfs: "opt_in" | "opt_out";
  owner: string;
  repo: string;
};

/** A project choice sent back to the importer to settle `detection_found_multiple`. */
export type ChooseProjectParams = {
  choice: {
    vcs?: string;
    tfvc_project?: string;
    human_name?: string;
  };
  owner: string;
  repo: string;
};
