import { AbortedError } from "../errors/errors.js";
import { systemClock, type TransportClock } from "../timing/clock.js";
import { IMPORT_PROBLEM_STATUSES } from "../model/values.js";
import type { ImportProblemStatus, ImportRepoParams, ImportStatus, ProjectChoice, SourceImport } from "../model/source-imports.js";

/** What settles a problem state, or a decision the import waits on (spec 3.1). */
export type ImportNextStep =
  | {
      /** `auth_failed`, `detection_needs_auth`: PATCH import with `vcs_username` and `vcs_password`. */
      kind: "provide_credentials";
      status: "auth_failed" | "detection_needs_auth";
      message: string;
    }
  | {
      /** `detection_found_multiple`: PATCH import with one of `choices` (`imports.chooseProject`). */
      kind: "choose_project";
      status: "detection_found_multiple";
      choices: ProjectChoice[];
      message: string;
    }
  | {
      /** `detection_found_nothing`: DELETE import, then PUT import with a corrected URL (`imports.restartWithUrl`). */
      kind: "correct_url";
      status: "detection_found_nothing";
      vcs_url: string;
      message: string;
    }
  | {
      /** `error`: the importer failed at `failed_step`; an empty PATCH restarts it. */
      kind: "restart_or_contact_support";
      status: "error";
      failed_step?: string;
      error?: string;
      message: string;
    }
  | {
      /** Not a problem: large files were found and `use_lfs` is undecided (`imports.setLfsPreference`). */
      kind: "choose_lfs";
      large_files_count?: number;
      large_files_size?: number;
      message: string;
    };

/** One observed state of an import. */
export interface ImportUpdate {
  status: ImportStatus;
  statusText?: string;
  /** `working` while the importer runs, `complete` when done, `problem` when it waits for the caller. */
  phase: "working" | "complete" | "problem";
  progress: ImportProgress;
  /** For a problem state always; for a working or complete import when large files await an LFS decision. */
  nextStep?: ImportNextStep;
  /** The import as the service sent it. */
  import: SourceImport;
}

export interface FollowImportOptions {
  signal?: AbortSignal;
  /** Between polls. Default 5 s. */
  intervalMs?: number;
  /**
   * The clock the waits between polls are on: `imports.follow` passes the client's; default the system's. A virtual
   * one (its sleep must reject when the signal aborts) follows an import with no real waits.
   */
  clock?: TransportClock;
  /** Yield every poll, not only changes. Default false. */
  everyPoll?: boolean;
  /** Give up after this many polls (the last one is yielded). Default: no limit. */
  maxPolls?: number;
}

/** The one method `followImport` needs: any `SourceImportsApi` has it. */
export interface ImportStatusReader {
  getImportStatus(params: ImportRepoParams, options?: { signal?: AbortSignal }): Promise<SourceImport>;
}

const PROBLEMS: readonly string[] = IMPORT_PROBLEM_STATUSES;

/** Whether a status needs the caller before the import can go on. */
export function isImportProblem(status: ImportStatus): status is ImportProblemStatus {
  return PROBLEMS.includes(status);
}

/** Describes an import: its phase, progress and the next step (pure; no I/O). */
export function describeImport(body: SourceImport): ImportUpdate {
  const status = body.status;
  const progress = importProgressOf(body);
  const phase = status === "complete" ? "complete" : isImportProblem(status) ? "problem" : "working";
  const update: ImportUpdate = { status, phase, progress, import: body };
  if (body.status_text) update.statusText = body.status_text;
  const nextStep = nextStepOf(body, progress);
  if (nextStep) update.nextStep = nextStep;
  return update;
}

function nextStepOf(body: SourceImport, progress: ImportUpdate["progress"]): ImportNextStep | undefined {
  switch (body.status) {
    case "auth_failed":
      return {
        kind: "provide_credentials",
        status: "auth_failed",
        message: "The importer could not authenticate to the source: update the import with vcs_username and vcs_password",
      };
    case "detection_needs_auth":
      return {
        kind: "provide_credentials",
        status: "detection_needs_auth",
        message: "Detection needs credentials for the source: update the import with vcs_username and vcs_password",
      };
    case "detection_found_multiple":
      return {
        kind: "choose_project",
        status: "detection_found_multiple",
        choices: body.project_choices ?? [],
        message: `The importer found ${body.project_choices?.length ?? "several"} projects at ${body.vcs_url}: update the import with one of project_choices`,
      };
    case "detection_found_nothing":
      return {
        kind: "correct_url",
        status: "detection_found_nothing",
        vcs_url: body.vcs_url,
        message: `No source control was recognized at ${body.vcs_url}: cancel the import and start again with the correct URL`,
      };
    case "error": {
      const failedStep = body.failed_step ?? undefined;
      const error = body.message ?? body.error_message ?? undefined;
      const step: ImportNextStep = {
        kind: "restart_or_contact_support",
        status: "error",
        message:
          `The import failed${failedStep ? ` at step ${failedStep}` : ""}${error ? `: ${error}` : ""}; ` +
          "restart it (an update with no parameters) or contact support",
      };
      if (failedStep) step.failed_step = failedStep;
      if (error) step.error = error;
      return step;
    }
    default:
      if (progress.has_large_files && (body.use_lfs === undefined || body.use_lfs === "undecided")) {
        return {
          kind: "choose_lfs",
          large_files_count: progress.large_files_count,
          large_files_size: progress.large_files_size,
          message: "Files over 100MB were found: opt in to Git LFS to keep them, or opt out to remove them",
        };
      }
      return undefined;
  }
}

/** Two updates are the same when nothing a caller watches changed. */
function sameUpdate(a: ImportUpdate, b: ImportUpdate): boolean {
  return a.status === b.status && JSON.stringify(a.progress) === JSON.stringify(b.progress) && a.nextStep?.kind === b.nextStep?.kind;
}

/**
 * Polls an import until it is `complete` or in a problem state. Yields the first state and every change
 * (status or progress); the last update is the complete or problem one, with `nextStep` for a problem.
 * Abort with `options.signal` (the iterator then throws `AbortedError`), or stop iterating early.
 */
export async function* followImport(
  api: ImportStatusReader,
  params: ImportRepoParams,
  options: FollowImportOptions = {},
): AsyncGenerator<ImportUpdate, void, undefined> {
  const intervalMs = options.intervalMs ?? 5_000;
  const clock = options.clock ?? systemClock;
  const { signal } = options;
  let previous: ImportUpdate | undefined;
  for (let poll = 1; ; poll++) {
    if (signal?.aborted) throw new AbortedError("follow import", { cause: signal.reason });
    const update = describeImport(await api.getImportStatus(params, { signal }));
    const last = update.phase !== "working" || (options.maxPolls !== undefined && poll >= options.maxPolls);
    if (options.everyPoll || last || !previous || !sameUpdate(previous, update)) yield update;
    if (last) return;
    previous = update;
    try {
      await clock.sleep(intervalMs, signal);
    } catch (reason) {
      throw new AbortedError("follow import", { cause: reason });
    }
  }
}

/** The progress figures of an import, under one name each. */
export interface ImportProgress {
  percent?: number;
  push_percent?: number;
  commit_count?: number;
  authors_count?: number;
  has_large_files: boolean;
  large_files_count?: number;
  large_files_size?: number;
}

/** The progress figures of an import, whichever name the service used for them. */
export function importProgressOf(body: SourceImport): ImportProgress {
  const pick = (value: number | null | undefined) => (value === null ? undefined : value);
  return {
    percent: pick(body.percent ?? body.import_percent),
    push_percent: pick(body.push_percent),
    commit_count: pick(body.commit_count),
    authors_count: pick(body.authors_count),
    has_large_files: body.has_large_files ?? false,
    large_files_count: body.large_files_count,
    large_files_size: body.large_files_size,
  };
}
