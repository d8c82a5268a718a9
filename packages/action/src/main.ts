import * as core from "@actions/core";
import {
  ForbiddenError,
  NotFoundError,
  ShiplogClient,
  createReleaseTags,
  redactSecrets,
  type ArtifactMetadataApi,
  type GitApi,
} from "@shiplog/client";
import PQueue from "p-queue";
import { explainFailure, missingRepositories, type FailedStep, type FailureExplanation } from "./failure-messages.js";
import { checksumsRuleKey, problemTitle } from "./input-rules.js";
import { INPUT_NAMES, type InputProblem, type RawInputs, type RunContext } from "./inputs.js";
import { planFromInputs, type ActionPlan } from "./action-plan.js";
import { storageRequest, storageRequestProblems } from "./storage-inputs.js";
import { planLog, renderSummary, runOutputs, type RunReport, type StorageRecordReport, type TagReport } from "./run-report.js";
import { appendToRunnerFile, outputFileCommands } from "./runner-files.js";
import { MAX_SUBJECTS, SubjectPathError, TooManySubjectsError, fileSubjects, matchFiles, unusableFiles, type Subject } from "./subjects.js";
import { readChecksums } from "./checksums.js";
import { collapseDuplicateDigests } from "./duplicate-subjects.js";
import { ACTION_VERSION } from "./version.js";

const USER_AGENT = `shiplog-action/${ACTION_VERSION}`;
/** core.ExitCode.Failure, spelled out: GitHub's local-action toolkit stub has no ExitCode enum. */
const FAILURE_EXIT_CODE = 1;
/** Storage records sent at a time: several, not hundreds, as the service's secondary rate limits punish bursts. */
export const RECORD_CONCURRENCY = 4;

/** Reads every input as the runner passes it (`INPUT_<NAME>`). */
function readInputs(): RawInputs {
  return Object.fromEntries(INPUT_NAMES.map((name) => [name, core.getInput(name)]));
}

/**
 * Where the step runs, from the runner's variables (as @actions/github's context reads them, without reading the
 * event file GITHUB_EVENT_PATH names: nothing of it is needed, and a file is only read under the bounded-file rule).
 */
function runContext(env: NodeJS.ProcessEnv = process.env): RunContext {
  const repository = env.GITHUB_REPOSITORY && /^[^/]+\/[^/]+$/.test(env.GITHUB_REPOSITORY) ? env.GITHUB_REPOSITORY : undefined;
  return { repository, sha: env.GITHUB_SHA || undefined, apiUrl: env.GITHUB_API_URL || "https://api.github.com" };
}

/** The subjects of the storage records: given digests, then files matched by subject-path. */
async function resolveSubjects(plan: ActionPlan, problems: InputProblem[]): Promise<Subject[]> {
  const storage = plan.storage;
  if (!storage) return [];
  const subjects: Subject[] = storage.digests.map((digest) => ({ name: storage.name ?? "", digest }));
  if (storage.checksums !== undefined) {
    const listed = readChecksums(storage.checksums);
    for (const message of listed.problems) problems.push({ input: "subject-checksums", rule: checksumsRuleKey(listed.rule), message });
    subjects.push(...listed.subjects);
  }
  // Too many before a file is hashed: each subject is one write, and the service allows 500 an hour.
  if (subjects.length > MAX_SUBJECTS) {
    const input = storage.checksums !== undefined ? "subject-checksums" : "subject-digest";
    problems.push(tooManyProblem(new TooManySubjectsError(input, `${subjects.length} subjects`)));
    return [];
  }
  if (storage.pathPatterns.length > 0) {
    try {
      const files = await matchFiles(storage.pathPatterns);
      const { problems: unusable, usable, skipped } = await unusableFiles(files);
      if (skipped.length > 0) {
        core.notice(
          `Not followed (symbolic links to directories): ${skipped.slice(0, 10).join(", ")}${skipped.length > 10 ? ", ..." : ""}`,
          {
            title: "subject-path",
          },
        );
      }
      if (usable.length === 0 && unusable.length === 0) {
        problems.push({
          input: "subject-path",
          rule: "matches a file",
          message: `subject-path matched no files: ${storage.pathPatterns.join(", ")}`,
        });
      }
      if (unusable.length > 0) {
        problems.push(...unusable.map(subjectPathProblem));
        return [];
      }
      if (subjects.length + usable.length > MAX_SUBJECTS) {
        const total = subjects.length + usable.length;
        problems.push(tooManyProblem(new TooManySubjectsError("subject-path", `${usable.length} files, ${total} subjects in all`)));
        return [];
      }
      subjects.push(...(await fileSubjects(usable, storage.name)));
    } catch (error) {
      if (error instanceof TooManySubjectsError) {
        problems.push(tooManyProblem(error));
        return [];
      }
      if (!(error instanceof SubjectPathError)) throw error;
      problems.push(subjectPathProblem(error));
      return [];
    }
  }
  const collapsed = collapseDuplicateDigests(subjects);
  for (const notice of collapsed.notices) core.notice(notice, { title: "Duplicate subject" });
  for (const subject of collapsed.subjects) problems.push(...storageRequestProblems(storage, subject.name, subject.digest));
  return collapsed.subjects;
}

/** Too many subjects, as an input problem naming the input and the cap. */
function tooManyProblem(error: TooManySubjectsError): InputProblem {
  return { input: error.input, rule: "too many subjects", message: error.message };
}

/** A file subject-path matched that cannot be used, as an input problem naming subject-path and the file. */
function subjectPathProblem(error: SubjectPathError): InputProblem {
  return { input: "subject-path", rule: error.rule, message: error.message };
}

function reportProblems(problems: InputProblem[], token: string | undefined): void {
  // A problem may quote what a file held (a checksums line): never the token, whatever the file was.
  for (const problem of problems) {
    core.error(redactSecrets(problem.message, [token]), { title: problemTitle(problem) });
  }
  core.info(`${problems.length} input problem${problems.length === 1 ? "" : "s"}: nothing was sent`);
  // Each problem is its own titled annotation already; setFailed would add an untitled duplicate.
  process.exitCode = FAILURE_EXIT_CODE;
}

/**
 * Outputs first (later steps read them), then the job summary. The work is done by now: a runner file that cannot be
 * written is a warning naming it, not a failed step.
 */
function finish(report: RunReport): void {
  // Only to the runner's file: never the deprecated ::set-output command.
  const outputs = appendToRunnerFile("GITHUB_OUTPUT", outputFileCommands(runOutputs(report)));
  if (outputs) {
    core.warning(`The step's outputs were not written: ${outputs}. What the step did is in its log above.`, {
      title: "Outputs not written",
    });
  }
  const summary = appendToRunnerFile("GITHUB_STEP_SUMMARY", `${renderSummary(report)}\n`);
  if (summary) core.warning(`The job summary was not written: ${summary}.`, { title: "Summary not written" });
}

/** The action: validate everything, create the annotated tag, then one storage record per subject. */
export async function run(): Promise<void> {
  const raw = readInputs();
  if (raw.token) core.setSecret(raw.token);

  const planned = planFromInputs(raw, runContext());
  if (planned.problems.length > 0 || !planned.plan) return reportProblems(planned.problems, raw.token);
  const plan = planned.plan;
  const problems: InputProblem[] = [];
  const subjects = await resolveSubjects(plan, problems);
  if (problems.length > 0) return reportProblems(problems, raw.token);

  const repository = `${plan.owner}/${plan.repo}`;
  const report: RunReport = { dryRun: plan.dryRun, repository, storageRecords: [] };
  // The client's own engine honours the runner's HTTPS_PROXY, HTTP_PROXY and NO_PROXY.
  const { git, artifacts } = new ShiplogClient({ baseUrl: plan.apiUrl, token: plan.token, userAgent: USER_AGENT });
  // The tag and the storage records do not depend on each other: they go out together.
  const tagTask = plan.tag ? tagSteps(git, plan, repository) : undefined;
  const recordTasks = plan.storage ? recordSteps(artifacts, plan, subjects) : [];
  const [tagResult, ...recordResults] = await Promise.allSettled([tagTask ?? Promise.resolve(undefined), ...recordTasks]);
  const failures: FailureExplanation[] = [];
  if (tagResult?.status === "fulfilled" && tagResult.value) {
    report.tags = tagResult.value.reports;
    report.tag = report.tags[0];
    failures.push(...tagResult.value.failures);
  }
  if (tagResult?.status === "rejected")
    failures.push(explainFailure(tagResult.reason, { kind: "tag", repository, tag: plan.tag!.params.tag }));
  recordResults.forEach((result, index) => {
    if (result.status === "fulfilled") report.storageRecords.push(result.value as StorageRecordReport);
    else {
      const subject = subjects[index]!;
      const step: FailedStep = {
        kind: "storage-record",
        org: plan.owner,
        subject: `${subject.name}@${subject.digest}`,
        githubRepository: plan.storage!.fields.github_repository ?? plan.repo,
      };
      const explained = explainFailure(result.reason, step);
      // Like actions/attest for an owner that is not an organization or a token without the permission: opt-in leniency.
      if (plan.storage!.onMissingPermission === "warn" && isMissingPermission(result.reason)) {
        const warning = {
          title: `Storage record skipped: ${explained.title}`,
          message: `${explained.message} (storage-permission-missing: warn)`,
        };
        core.warning(warning.message, { title: warning.title });
        report.warnings ??= [];
        report.warnings.push(warning);
      } else failures.push(explained);
    }
  });
  // A server may echo the token in what it answers: whatever the client did not already redact goes here.
  for (const failure of failures) {
    failure.title = redactSecrets(failure.title, [plan.token]);
    failure.message = redactSecrets(failure.message, [plan.token]);
    core.error(failure.message, { title: failure.title });
  }
  // The plan in the step's log as well as in the summary: a dry run is read where the run is read.
  if (plan.dryRun) for (const line of planLog(report, undefined, process.cwd())) core.info(line);
  if (failures.length > 0) {
    report.failures = failures;
    process.exitCode = FAILURE_EXIT_CODE;
  }
  finish(report);
}

/**
 * A refusal that means the token or the owner cannot have storage records (403; 404 for a non-organization owner).
 * A 404 naming repositories that do not exist is a mistake in github-repository, and fails whatever the setting.
 */
function isMissingPermission(error: unknown): boolean {
  return error instanceof ForbiddenError || (error instanceof NotFoundError && !missingRepositories(error));
}

const TAG_VERBS = { created: "Created", skipped: "Skipped (already there)", updated: "Moved" } as const;

/** Creates (or, re-run, finds; or moves) each annotated tag in order; in a dry run only describes them. */
async function tagSteps(
  git: GitApi,
  plan: ActionPlan,
  repository: string,
): Promise<{ reports: TagReport[]; failures: FailureExplanation[] }> {
  const { params, tags, message } = plan.tag!;
  const object = { type: params.type, sha: params.object };
  if (plan.dryRun) {
    return {
      reports: tags.map((t) => ({
        outcome: "dry-run",
        ref: `refs/tags/${t.tag}`,
        object,
        message: message ?? t.tag,
        ...(t.derivedFrom ? { derivedFrom: t.derivedFrom } : { ifExists: t.ifExists }),
      })),
      failures: [],
    };
  }
  const tagger = params.tagger;
  const results = await createReleaseTags(git, {
    owner: plan.owner,
    repo: plan.repo,
    tags,
    object: params.object,
    type: params.type,
    message,
    ...(tagger && { tagger }),
  });
  const reports: TagReport[] = [];
  const failures: FailureExplanation[] = [];
  for (const entry of results) {
    const ref = `refs/tags/${entry.tag}`;
    if (entry.outcome === "failed") {
      failures.push(explainFailure(entry.error, { kind: "tag", repository, tag: entry.tag }));
      reports.push({ outcome: "failed", ref, object, message: message ?? entry.tag });
    } else if (entry.outcome === "not-attempted") {
      reports.push({ outcome: "not-attempted", ref, object, message: message ?? entry.tag });
    } else {
      const { tag } = entry.result;
      core.info(`${TAG_VERBS[entry.outcome]} ${ref} in ${repository} → tag object ${tag.sha} → ${tag.object.type} ${tag.object.sha}`);
      reports.push({
        outcome: entry.outcome,
        ref: entry.result.ref.ref,
        sha: tag.sha,
        object: { type: tag.object.type, sha: tag.object.sha },
        message: tag.message,
      });
    }
  }
  return { reports, failures };
}

/** One storage record per subject (upserts, so safe to send side by side); in a dry run only described. */
function recordSteps(artifacts: ArtifactMetadataApi, plan: ActionPlan, subjects: Subject[]): Promise<StorageRecordReport>[] {
  const queue = new PQueue({ concurrency: RECORD_CONCURRENCY });
  return subjects.map((subject) =>
    queue.add(async () => {
      const request = storageRequest(plan.storage!, subject.name, subject.digest);
      const entry: StorageRecordReport = {
        outcome: plan.dryRun ? "dry-run" : "created",
        name: request.name,
        digest: request.digest,
        registry_url: request.registry_url,
        repository: request.repository,
        status: request.status,
        version: request.version,
        github_repository: request.github_repository,
        file: subject.file,
      };
      if (!plan.dryRun) {
        const result = await artifacts.createStorageRecord(request);
        entry.record = result.storage_records[0];
        core.info(`Recorded storage of ${subject.name} (${subject.digest}) in ${request.registry_url}`);
      }
      return entry;
    }),
  );
}
