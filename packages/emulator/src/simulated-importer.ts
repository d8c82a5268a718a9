import { createHash } from "node:crypto";
import { LARGE_FILE_THRESHOLD_BYTES } from "@shiplog/client/schemas";
import type { ImportProblemStatus, ImportVcs, LfsPreference, ProjectChoice, StartImportBody, UpdateImportBody } from "@shiplog/client";

/**
 * The simulated importer: the state machine of spec 3.1 as pure functions over plain data. The store
 * (import-store.ts) keeps the states and decides when a step happens (a test's explicit step, or a timer).
 */

/** The statuses the importer uses: the spec's working, complete and problem states. */
export type SimulatedStatus = "detecting" | "importing" | "mapping" | "pushing" | "complete" | ImportProblemStatus;

/** What sits at a source URL, as the importer will find it. Tests define sources; unknown URLs get a default one. */
export interface SimulatedSource {
  /** What detection finds. */
  vcs: ImportVcs;
  /** Raw commits the importing step fetches. */
  commitCount: number;
  authors: { remote_id: string; remote_name: string; email?: string }[];
  /** Files of the source; those over 100MB are the import's large files. */
  files: { path: string; size: number; ref_name?: string }[];
  /** More than one: detection stops at `detection_found_multiple` until one is chosen. */
  projects: ProjectChoice[];
  /** Credentials the source demands; without them detection needs auth and importing fails auth. */
  credentials?: { username: string; password: string };
  /** False: nothing recognizable at the URL (`detection_found_nothing`). */
  recognized: boolean;
}

export interface SimulatedAuthor {
  id: number;
  remote_id: string;
  remote_name: string;
  email: string;
  name: string;
}

export interface SimulatedLargeFile {
  ref_name: string;
  path: string;
  oid: string;
  size: number;
}

/** An import's state. Credentials are kept to compare with the source's and are never rendered. */
export interface ImportState {
  vcs: ImportVcs | null;
  vcs_url: string;
  tfvc_project?: string;
  human_name?: string;
  status: SimulatedStatus;
  commit_count?: number;
  percent?: number;
  push_percent?: number;
  failed_step?: string;
  error_message?: string;
  project_choices?: ProjectChoice[];
  projectChosen: boolean;
  use_lfs: LfsPreference;
  credentials?: { username: string; password: string };
  authors: SimulatedAuthor[];
  largeFiles: SimulatedLargeFile[];
}

/** A failure injected by a test, applied at the next step where it can happen. */
export interface InjectedFailure {
  status: ImportProblemStatus;
  message?: string;
}

/** Percent added per step while importing and pushing. */
const PROGRESS_STEP = 50;

/** The importer's step names, as `failed_step` reports them. */
const STEP_NAMES: Record<"detecting" | "importing" | "mapping" | "pushing", string> = {
  detecting: "detection",
  importing: "raw",
  mapping: "rewrite",
  pushing: "push",
};

export const STATUS_TEXTS: Record<SimulatedStatus, string> = {
  detecting: "Detecting...",
  importing: "Importing...",
  mapping: "Rewriting history...",
  pushing: "Pushing...",
  complete: "Done",
  auth_failed: "Authentication failed",
  error: "Error",
  detection_needs_auth: "Detection needs authentication",
  detection_found_nothing: "No source control found",
  detection_found_multiple: "Multiple projects found",
};

const DETECTION_FAILURES: readonly ImportProblemStatus[] = ["detection_needs_auth", "detection_found_nothing", "detection_found_multiple"];

/** Whether the importer is running (a step can change the state). */
export function isWorking(status: SimulatedStatus): status is "detecting" | "importing" | "mapping" | "pushing" {
  return status === "detecting" || status === "importing" || status === "mapping" || status === "pushing";
}

/** Whether an injected failure can happen at a step from `status`. */
export function failureApplies(status: SimulatedStatus, failure: InjectedFailure): boolean {
  if (!isWorking(status)) return false;
  return status === "detecting" || !DETECTION_FAILURES.includes(failure.status);
}

/** The source a URL holds when no test defined one: derived from the URL, so always the same. */
export function defaultSource(vcsUrl: string): SimulatedSource {
  const digest = createHash("sha256").update(vcsUrl).digest();
  const host = URL.canParse(vcsUrl) ? new URL(vcsUrl).host || "source" : "source";
  return {
    vcs: vcsFromUrl(vcsUrl),
    commitCount: 100 + (digest.readUInt16BE(0) % 900),
    authors: [
      { remote_id: `alice@${host}`, remote_name: "alice" },
      { remote_id: `bob@${host}`, remote_name: "bob", email: "bob@example.com" },
    ],
    files: [{ path: "README", size: 1024 }],
    projects: [],
    recognized: true,
  };
}

/** Guesses the version-control type from the URL, as detection would find it. */
export function vcsFromUrl(vcsUrl: string): ImportVcs {
  const url = vcsUrl.toLowerCase();
  if (url.startsWith("svn") || url.includes("/svn")) return "subversion";
  if (url.startsWith("hg") || url.includes("/hg")) return "mercurial";
  if (url.includes("/tfs") || url.includes("tfvc")) return "tfvc";
  return "git";
}

/** A new import from PUT: detection first when `vcs` is absent, else straight to importing. */
export function createImport(body: StartImportBody, source: SimulatedSource): ImportState {
  const state: ImportState = {
    vcs: body.vcs ?? null,
    vcs_url: body.vcs_url,
    status: "detecting",
    projectChosen: body.tfvc_project !== undefined,
    use_lfs: "undecided",
    authors: [],
    largeFiles: [],
  };
  if (body.tfvc_project !== undefined) state.tfvc_project = body.tfvc_project;
  if (body.vcs_username !== undefined && body.vcs_password !== undefined) {
    state.credentials = { username: body.vcs_username, password: body.vcs_password };
  }
  return body.vcs ? enterImporting(state, source) : state;
}

/**
 * One step of the importer. A pending failure applies at the first step where it can happen: the
 * detection failures only while detecting, `auth_failed` and `error` in any working state.
 * Returns the new state and whether the failure was used.
 */
export function advance(
  state: ImportState,
  source: SimulatedSource,
  failure: InjectedFailure | undefined,
  nextAuthorId: () => number,
): { state: ImportState; usedFailure: boolean } {
  if (!isWorking(state.status)) return { state, usedFailure: false };
  const current = state.status;
  if (failure && failureApplies(current, failure)) {
    return { state: enterProblem(state, failure, current, source), usedFailure: true };
  }
  const authorized = !source.credentials || sameCredentials(source.credentials, state.credentials);
  const next = { ...state };
  switch (current) {
    case "detecting":
      if (!authorized) return done(enterProblem(state, { status: "detection_needs_auth" }, current, source));
      if (!source.recognized) return done(enterProblem(state, { status: "detection_found_nothing" }, current, source));
      if (source.projects.length > 1 && !state.projectChosen) {
        return done(enterProblem(state, { status: "detection_found_multiple" }, current, source));
      }
      return done(enterImporting(next, source));
    case "importing": {
      if (!authorized) return done(enterProblem(state, { status: "auth_failed" }, current, source));
      const percent = state.percent ?? 0;
      if (percent >= 100) {
        delete next.percent;
        next.status = "mapping";
        return done(next);
      }
      next.percent = Math.min(100, percent + PROGRESS_STEP);
      next.authors = discoverAuthors(state.authors, source, next.percent, nextAuthorId);
      next.largeFiles = discoverLargeFiles(source);
      return done(next);
    }
    case "mapping":
      next.status = "pushing";
      next.push_percent = 0;
      return done(next);
    case "pushing": {
      const pushed = state.push_percent ?? 0;
      if (pushed >= 100) {
        delete next.push_percent;
        next.status = "complete";
        return done(next);
      }
      next.push_percent = Math.min(100, pushed + PROGRESS_STEP);
      return done(next);
    }
  }
}

const done = (state: ImportState) => ({ state, usedFailure: false });

function sameCredentials(a: { username: string; password: string }, b: { username: string; password: string } | undefined): boolean {
  return !!b && a.username === b.username && a.password === b.password;
}

/** Enters the raw import: `commit_count` and `percent` appear. */
function enterImporting(state: ImportState, source: SimulatedSource): ImportState {
  const next = clearProgress(state);
  next.vcs = state.vcs ?? source.vcs;
  next.status = "importing";
  next.commit_count = source.commitCount;
  next.percent = 0;
  return next;
}

function enterProblem(
  state: ImportState,
  failure: InjectedFailure,
  during: "detecting" | "importing" | "mapping" | "pushing",
  source: SimulatedSource,
): ImportState {
  const next = { ...state, status: failure.status };
  delete next.percent;
  delete next.push_percent;
  if (failure.status === "error") {
    next.failed_step = STEP_NAMES[during];
    next.error_message = failure.message ?? `The ${STEP_NAMES[during]} step of the import failed`;
  }
  if (failure.status === "detection_found_multiple") {
    next.project_choices = source.projects.length > 1 ? source.projects : defaultProjectChoices(state.vcs_url);
  }
  return next;
}

/** What a URL with several projects offers when the test did not say (the shape of the OpenAPI sample). */
function defaultProjectChoices(vcsUrl: string): ProjectChoice[] {
  const name = vcsUrl.replace(/\/+$/, "").split("/").pop() || "project";
  return [
    { vcs: "tfvc", tfvc_project: `${name}1`, human_name: `${name}1 (tfs)` },
    { vcs: "tfvc", tfvc_project: `${name}2`, human_name: `${name}2 (tfs)` },
    { vcs: "git", human_name: `${name} (git)` },
  ];
}

function clearProgress(state: ImportState): ImportState {
  const next = { ...state };
  delete next.percent;
  delete next.push_percent;
  delete next.commit_count;
  delete next.failed_step;
  delete next.error_message;
  delete next.project_choices;
  return next;
}

/** Authors appear as the raw import proceeds; known ones keep their id and mapping. */
function discoverAuthors(
  known: readonly SimulatedAuthor[],
  source: SimulatedSource,
  percent: number,
  nextAuthorId: () => number,
): SimulatedAuthor[] {
  const found = source.authors.slice(0, Math.ceil((source.authors.length * percent) / 100));
  const out = [...known];
  for (const author of found) {
    if (out.some((a) => a.remote_id === author.remote_id)) continue;
    out.push({
      id: nextAuthorId(),
      remote_id: author.remote_id,
      remote_name: author.remote_name,
      email: author.email ?? author.remote_id,
      name: author.remote_name,
    });
  }
  return out;
}

/** Files over 100MB, as the importing step finds them. */
export function discoverLargeFiles(source: SimulatedSource): SimulatedLargeFile[] {
  return source.files
    .filter((f) => f.size > LARGE_FILE_THRESHOLD_BYTES)
    .map((f) => ({
      ref_name: f.ref_name ?? "refs/heads/main",
      path: f.path,
      oid: createHash("md5").update(`${f.path}:${f.size}`).digest("hex"),
      size: f.size,
    }));
}

/** Why an update could not be applied (the route answers 422). */
export interface UpdateRefusal {
  field: string;
  message: string;
}

/**
 * PATCH import (spec 3.1): credentials restart detection (the OpenAPI 200 sample shows `detecting`);
 * a project choice settles `detection_found_multiple` and goes on importing; an empty body restarts,
 * importing when the version-control type is known and detecting when not.
 */
export function updateImport(
  state: ImportState,
  body: UpdateImportBody,
  source: SimulatedSource,
): { ok: true; state: ImportState } | { ok: false; refusal: UpdateRefusal } {
  const next = clearProgress(state);
  const hasCredentials = body.vcs_username !== undefined && body.vcs_password !== undefined;
  const isChoice = body.vcs !== undefined || body.tfvc_project !== undefined || body.human_name !== undefined;

  if (state.status === "detection_found_multiple" && isChoice && !hasCredentials) {
    const choice = (state.project_choices ?? []).find(
      (c) =>
        (body.vcs === undefined || c.vcs === body.vcs) &&
        (body.tfvc_project === undefined || c.tfvc_project === body.tfvc_project) &&
        (body.human_name === undefined || c.human_name === body.human_name),
    );
    if (!choice) {
      return { ok: false, refusal: { field: "project_choices", message: "the choice matches none of the import's project_choices" } };
    }
    next.vcs = (choice.vcs as ImportVcs | undefined) ?? body.vcs ?? state.vcs;
    if (choice.tfvc_project !== undefined) next.tfvc_project = choice.tfvc_project;
    if (choice.human_name !== undefined) next.human_name = choice.human_name;
    next.projectChosen = true;
    return { ok: true, state: enterImporting(next, source) };
  }

  if (body.vcs !== undefined) next.vcs = body.vcs;
  if (body.tfvc_project !== undefined) {
    next.tfvc_project = body.tfvc_project;
    next.projectChosen = true;
  }
  if (body.human_name !== undefined) next.human_name = body.human_name;
  if (hasCredentials) {
    next.credentials = { username: body.vcs_username!, password: body.vcs_password! };
    next.status = "detecting";
    return { ok: true, state: next };
  }
  if (next.vcs) return { ok: true, state: enterImporting(next, source) };
  next.status = "detecting";
  return { ok: true, state: next };
}

/** The wire form of an import (spec 2.9), with the URLs of where it lives. */
export function renderImport(state: ImportState, urls: { api: string; web: string; repository: string }): Record<string, unknown> {
  const largeBytes = state.largeFiles.reduce((sum, f) => sum + f.size, 0);
  const body: Record<string, unknown> = {
    vcs: state.vcs,
    // Spec 2.9: "string or boolean ... sample responses show a boolean"; the samples show true from the start
    // import on, so only an opt-out reads false (README, divergences).
    use_lfs: state.use_lfs !== "opt_out",
    vcs_url: state.vcs_url,
  };
  if (state.tfvc_project !== undefined) body.tfvc_project = state.tfvc_project;
  Object.assign(body, {
    status: state.status,
    status_text: STATUS_TEXTS[state.status],
    has_large_files: state.largeFiles.length > 0,
    // The spec gives this in gigabytes; rounded up so that found large files never read as 0.
    large_files_size: Math.ceil(largeBytes / 1024 ** 3),
    large_files_count: state.largeFiles.length,
    authors_count: state.authors.length,
  });
  if (state.commit_count !== undefined) body.commit_count = state.commit_count;
  if (state.percent !== undefined) {
    // `percent` is the spec's name; `import_percent` the OpenAPI schema's and the one recorded answers carry.
    body.percent = state.percent;
    body.import_percent = state.percent;
  }
  if (state.push_percent !== undefined) body.push_percent = state.push_percent;
  if (state.status === "error") {
    body.failed_step = state.failed_step ?? null;
    body.message = state.error_message ?? "The import failed";
    body.error_message = state.error_message ?? "The import failed";
  }
  if (state.status === "detection_found_multiple") body.project_choices = state.project_choices ?? [];
  Object.assign(body, {
    url: urls.api,
    html_url: urls.web,
    authors_url: `${urls.api}/authors`,
    repository_url: urls.repository,
  });
  return body;
}
