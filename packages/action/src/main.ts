import * as core from "@actions/core";
import { context } from "@actions/github";
import { ArtifactMetadataApi, ForbiddenError, GitApi, NotFoundError, Transport, createReleaseTags, redactSecrets } from "@shiplog/client";
import PQueue from "p-queue";
import { explainFailure, missingRepositories, type FailedStep, type FailureExplanation } from "./failure-messages.js";
import { INPUT_NAMES, type InputProblem, type RawInputs, type RunContext } from "./inputs.js";
import { planFromInputs, type ActionPlan } from "./action-plan.js";
import { storageRequest, storageRequestProblems } from "./storage-inputs.js";
import { renderSummary, runOutputs, type RunReport, type StorageRecordReport, type TagReport } from "./run-report.js";
import { SubjectPathError, fileSubjects, matchFiles, unusableFiles, type Subject } from "./subjects.js";
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

function runContext(): RunContext {
  let repository: string | undefined;
  try {
    repository = `${context.repo.owner}/${context.repo.repo}`;
  } catch {
    repository = undefined;
  }
  return { repository, sha: context.sha || undefined, apiUrl: context.apiUrl };
}

/** The subjects of the storage records: given digests, then files matched by subject-path. */
async function resolveSubjects(plan: ActionPlan, problems: InputProblem[]): Promise<Subject[]> {
  const storage = plan.storage;
  if (!storage) return [];
  const subjects: Subject[] = storage.digests.map((digest) => ({ name: storage.name ?? "", digest }));
  if (storage.checksums !== undefined) {
    const listed = await readChecksums(storage.checksums);
    for (const message of listed.problems) problems.push({ input: "subject-checksums", rule: "sha256sum format", message });
    subjects.push(...listed.subjects);
  }
  if (storage.pathPatterns.length > 0) {
    try {
      const files = await matchFiles(storage.pathPatterns);
      if (files.length === 0) {
        problems.push({
          input: "subject-path",
          rule: "matches a file",
          message: `subject-path matched no files: ${storage.pathPatterns.join(", ")}`,
        });
      }
      const unusable = await unusableFiles(files);
      if (unusable.length > 0) {
        problems.push(...unusable.map(subjectPathProblem));
        return [];
      }
      subjects.push(...(await fileSubjects(files, storage.name)));
    } catch (error) {
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

/** A file subject-path matched that cannot be used, as an input problem naming subject-path and the file. */
function subjectPathProblem(error: SubjectPathError): InputProblem {
  return { input: "subject-path", rule: error.rule, message: error.message };
}

function reportProblems(problems: InputProblem[]): void {
  for (const problem of problems) core.error(problem.message, { title: `Invalid input: ${problem.input} (${problem.rule})` });
  core.info(`${problems.length} input problem${problems.length === 1 ? "" : "s"}: nothing was sent`);
  // Each problem is its own titled annotation already; setFailed would add an untitled duplicate.
  process.exitCode = FAILURE_EXIT_CODE;
}

/**
 * Outputs first (later steps read them), then the job summary. The work is done by now: a runner file that cannot be
 * written is a warning naming it, not a failed step.
 */
async function finish(report: RunReport): Promise<void> {
  try {
    for (const [name, value] of Object.entries(runOutputs(report))) core.setOutput(name, value);
  } catch (error) {
    core.warning(
      `The step's outputs were not written: ${runnerFileProblem("GITHUB_OUTPUT", error)}. What the step did is in its log above.`,
      {
        title: "Outputs not written",
      },
    );
  }
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  try {
    await core.summary.addRaw(renderSummary(report), true).write();
  } catch (error) {
    core.warning(`The job summary was not written: ${runnerFileProblem("GITHUB_STEP_SUMMARY", error)}.`, { title: "Summary not written" });
  }
}

/** Why a runner file could not be written, naming its variable and path. */
function runnerFileProblem(variable: string, error: unknown): string {
  const path = process.env[variable] ?? "";
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (/^Missing file at path/.test((error as Error | undefined)?.message ?? ""))
    return `the file ${variable} names (${path}) does not exist`;
  return `${variable} (${path}) cannot be written (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/** The action: validate everything, create the annotated tag, then one storage record per subject. */
export async function run(): Promise<void> {
  const raw = readInputs();
  if (raw.token) core.setSecret(raw.token);

  const planned = planFromInputs(raw, runContext());
  if (planned.problems.length > 0 || !planned.plan) return reportProblems(planned.problems);
  const plan = planned.plan;
  const problems: InputProblem[] = [];
  const subjects = await resolveSubjects(plan, problems);
  if (problems.length > 0) return reportProblems(problems);

  const repository = `${plan.owner}/${plan.repo}`;
  const report: RunReport = { dryRun: plan.dryRun, repository, storageRecords: [] };
  // The client's own engine honours the runner's HTTPS_PROXY, HTTP_PROXY and NO_PROXY.
  const transport = new Transport({ baseUrl: plan.apiUrl, token: plan.token, userAgent: USER_AGENT });
  const git = new GitApi(transport);
  const artifacts = new ArtifactMetadataApi(transport);
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
  if (failures.length > 0) {
    report.failures = failures;
    process.exitCode = FAILURE_EXIT_CODE;
  }
  await finish(report);
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
      reports: tags.map((t) => ({ outcome: "dry-run", ref: `refs/tags/${t.tag}`, object, message: message ?? t.tag })),
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
