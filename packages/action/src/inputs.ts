import {
  DERIVED_TAGS,
  IF_TAG_EXISTS,
  derivedTagNames,
  releaseTags,
  serviceUrlProblem,
  type CreateStorageRecordParams,
  type CreateTagParams,
  type DerivedTags,
  type ReleaseTag,
} from "@shiplog/client";
import { createStorageRecordParams, createTagParams, toFieldIssues } from "@shiplog/client/schemas";
import { imageLocation } from "./image-subject.js";

/** What a storage record the service refuses for want of permission does to the run: fail it, or warn and go on. */
export const STORAGE_PERMISSION_MODES = ["fail", "warn"] as const;
export type StoragePermissionMode = (typeof STORAGE_PERMISSION_MODES)[number];

/** The action's inputs, kebab-case as in action.yml. */
export const INPUT_NAMES = [
  "token",
  "api-url",
  "tag",
  "tags",
  "derived-tags",
  "tag-message",
  "tag-object",
  "tag-type",
  "tagger-name",
  "tagger-email",
  "tagger-date",
  "if-tag-exists",
  "subject-digest",
  "subject-path",
  "subject-checksums",
  "subject-name",
  "subject-version",
  "registry-url",
  "artifact-url",
  "registry-repository",
  "artifact-path",
  "storage-status",
  "github-repository",
  "storage-permission-missing",
  "dry-run",
] as const;
export type InputName = (typeof INPUT_NAMES)[number];

/** Input values as the runner gives them (trimmed; empty when not set). */
export type RawInputs = Partial<Record<InputName, string>>;

/** What the workflow run tells the action about where it runs. */
export interface RunContext {
  /** `owner/repo` (GITHUB_REPOSITORY). */
  repository: string | undefined;
  /** The workflow's commit (GITHUB_SHA). */
  sha: string | undefined;
  /** The runner's API URL (GITHUB_API_URL). */
  apiUrl: string;
}

/** An input that breaks a rule; the action reports it before sending anything. */
export interface InputProblem {
  input: InputName | "GITHUB_REPOSITORY";
  rule: string;
  message: string;
}

export interface TagPlan {
  /** The first tag's request (what the single-tag outputs describe); every tag shares its object, type and tagger. */
  params: CreateTagParams;
  /** Every tag to make, in order: the given ones, then the derived floating ones. */
  tags: ReleaseTag[];
  /** The message given, if any; otherwise each tag's message is its own name. */
  message: string | undefined;
}

/** The storage record fields shared by every subject; each subject adds its digest (and name from a file). */
export interface StoragePlan {
  org: string;
  name: string | undefined;
  digests: string[];
  pathPatterns: string[];
  /** The subject-checksums input as given: a file's path, or sha256sum lines inline. */
  checksums: string | undefined;
  /** What a refused storage record (403, or 404 for an owner that is not an organization) does to the run. */
  onMissingPermission: StoragePermissionMode;
  fields: Omit<CreateStorageRecordParams, "org" | "name" | "digest">;
}

export interface ActionPlan {
  token: string;
  apiUrl: string;
  dryRun: boolean;
  owner: string;
  repo: string;
  tag: TagPlan | undefined;
  storage: StoragePlan | undefined;
}

/** Which input carries each request field, so a schema's complaint names what the user wrote. */
const TAG_FIELD_INPUTS: Record<string, InputName> = {
  tag: "tag",
  message: "tag-message",
  object: "tag-object",
  type: "tag-type",
  "tagger.name": "tagger-name",
  "tagger.email": "tagger-email",
  "tagger.date": "tagger-date",
};

const STORAGE_FIELD_INPUTS: Record<string, InputName> = {
  name: "subject-name",
  digest: "subject-digest",
  version: "subject-version",
  artifact_url: "artifact-url",
  path: "artifact-path",
  registry_url: "registry-url",
  repository: "registry-repository",
  status: "storage-status",
  github_repository: "github-repository",
};

const BOOLEAN_TRUE = ["true", "True", "TRUE"];
const BOOLEAN_FALSE = ["false", "False", "FALSE"];

/** Splits a list input: one item per line or comma, blanks dropped. */
export function listInput(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** Lines of a multi-line input (glob patterns may contain commas). */
function lineInput(value: string | undefined): string[] {
  return (value ?? "")
    .split("\n")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const optional = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);

/** Defaults of action.yml that say "nothing special": an input holding one was not really set. */
const NEUTRAL_DEFAULTS: Partial<Record<InputName, string>> = { "derived-tags": "none", "storage-permission-missing": "fail" };

/** Whether an input was given a value of its own (not empty, not its neutral default). */
const setBeyondDefault = (raw: RawInputs, input: InputName) => optional(raw[input]) !== undefined && raw[input] !== NEUTRAL_DEFAULTS[input];

/** Checks every input and builds what the action will send; returns every problem at once. */
export function planFromInputs(
  raw: RawInputs,
  context: RunContext,
): { plan: ActionPlan; problems: [] } | { plan?: undefined; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const [owner = "", repo = ""] = (context.repository ?? "").split("/");
  if (!owner || !repo) {
    problems.push({
      input: "GITHUB_REPOSITORY",
      rule: "owner/repo",
      message: "GITHUB_REPOSITORY must be set to owner/repo (the runner sets it)",
    });
  }

  const token = raw.token ?? "";
  if (token === "")
    problems.push({ input: "token", rule: "required", message: "token is required (the default is the workflow's GITHUB_TOKEN)" });

  const apiUrl = optional(raw["api-url"]) ?? context.apiUrl;
  const apiUrlProblem = checkApiUrl(apiUrl);
  if (apiUrlProblem) problems.push(apiUrlProblem);

  let dryRun = false;
  const dryRunRaw = optional(raw["dry-run"]) ?? "false";
  if (BOOLEAN_TRUE.includes(dryRunRaw)) dryRun = true;
  else if (!BOOLEAN_FALSE.includes(dryRunRaw)) {
    problems.push({ input: "dry-run", rule: "true or false", message: `dry-run must be true or false, got ${JSON.stringify(dryRunRaw)}` });
  }

  const tag = planTag(raw, context, owner, repo, problems);
  const storage = planStorage(raw, owner, repo, problems);
  const asked = [raw.tag, raw.tags, raw["subject-digest"], raw["subject-path"], raw["subject-checksums"]].some(
    (value) => optional(value) !== undefined,
  );
  if (!asked && !problems.some((p) => p.rule.startsWith("needs"))) {
    problems.push({
      input: "tag",
      rule: "something to do",
      message: "give tag, tags, subject-digest, subject-path or subject-checksums: there is nothing to create",
    });
  }

  if (problems.length > 0) return { problems };
  return { plan: { token, apiUrl: apiUrl.replace(/\/+$/, ""), dryRun, owner, repo, tag, storage }, problems: [] };
}

/** The API URL carries the token: the client's rule for service URLs (https unless loopback, no credentials). */
function checkApiUrl(apiUrl: string): InputProblem | undefined {
  const problem = serviceUrlProblem(apiUrl);
  return problem && { input: "api-url", rule: problem.rule, message: `api-url ${problem.message}` };
}

function planTag(raw: RawInputs, context: RunContext, owner: string, repo: string, problems: InputProblem[]): TagPlan | undefined {
  const names = [
    ...lineInput(raw.tag).map((name) => ({ name, input: "tag" as const })),
    ...lineInput(raw.tags).map((name) => ({ name, input: "tags" as const })),
  ];
  const tag = names[0]?.name;
  const tagOnly: InputName[] = ["tag-message", "tagger-name", "tagger-email", "tagger-date", "derived-tags"];
  if (!tag) {
    for (const input of tagOnly) {
      if (setBeyondDefault(raw, input))
        problems.push({ input, rule: "needs tag", message: `${input} is set but tag is empty: give the tag name to create` });
    }
    return undefined;
  }

  const ifExists = optional(raw["if-tag-exists"]) ?? "skip";
  if (!(IF_TAG_EXISTS as readonly string[]).includes(ifExists)) {
    problems.push({
      input: "if-tag-exists",
      rule: `one of ${IF_TAG_EXISTS.join(", ")}`,
      message: `if-tag-exists must be one of ${IF_TAG_EXISTS.join(", ")}, got ${JSON.stringify(ifExists)}`,
    });
  }
  const derive = optional(raw["derived-tags"]) ?? "none";
  if (!(DERIVED_TAGS as readonly string[]).includes(derive)) {
    problems.push({
      input: "derived-tags",
      rule: `one of ${DERIVED_TAGS.join(", ")}`,
      message: `derived-tags must be one of ${DERIVED_TAGS.join(", ")}, got ${JSON.stringify(derive)}`,
    });
  }
  for (const { name, input } of names) {
    const checked = createTagParams.shape.tag.safeParse(name);
    if (!checked.success)
      problems.push({
        input,
        rule: "git check-ref-format",
        message: `${input} ${JSON.stringify(name)}: ${checked.error.issues[0]?.message ?? "invalid tag name"}`,
      });
  }

  const taggerName = optional(raw["tagger-name"]);
  const taggerEmail = optional(raw["tagger-email"]);
  const taggerDate = optional(raw["tagger-date"]);
  if ((taggerName === undefined) !== (taggerEmail === undefined)) {
    const missing: InputName = taggerName === undefined ? "tagger-name" : "tagger-email";
    problems.push({
      input: missing,
      rule: "tagger-name and tagger-email together",
      message: `${missing} is required when ${missing === "tagger-name" ? "tagger-email" : "tagger-name"} is set`,
    });
  }
  if (taggerDate && taggerName === undefined && taggerEmail === undefined) {
    problems.push({
      input: "tagger-date",
      rule: "needs tagger-name and tagger-email",
      message: "tagger-date needs tagger-name and tagger-email",
    });
  }

  const object = optional(raw["tag-object"]) ?? context.sha;
  if (!object) problems.push({ input: "tag-object", rule: "required", message: "tag-object is required when GITHUB_SHA is not set" });

  const params = {
    owner,
    repo,
    tag,
    message: optional(raw["tag-message"]) ?? tag,
    object: object ?? "",
    type: optional(raw["tag-type"]) ?? "commit",
    ...(taggerName !== undefined &&
      taggerEmail !== undefined && { tagger: { name: taggerName, email: taggerEmail, ...(taggerDate && { date: taggerDate }) } }),
  };
  if (!object) return undefined;
  const checked = createTagParams.safeParse(params);
  if (!checked.success) {
    for (const issue of toFieldIssues(checked.error)) {
      const input = TAG_FIELD_INPUTS[issue.field];
      // Tag names were checked one by one above, each naming its input.
      if (input && issue.field !== "tag") problems.push({ input, rule: issue.rule, message: `${input}: ${issue.message}` });
    }
    return undefined;
  }
  if (problems.length > 0) return undefined;
  let tags: ReleaseTag[];
  try {
    tags = releaseTags(
      names.map((n) => n.name),
      derive as DerivedTags,
      ifExists as ReleaseTag["ifExists"],
    );
  } catch (error) {
    problems.push({ input: "derived-tags", rule: "one version per floating tag", message: `derived-tags: ${(error as Error).message}` });
    return undefined;
  }
  if (derive !== "none" && !names.some((n) => derivedTagNames(n.name, derive as DerivedTags).length > 0)) {
    const message = `derived-tags is ${derive} but no tag is a release version such as v1.4.0 (pre-releases never move floating tags)`;
    problems.push({ input: "derived-tags", rule: "needs a release version tag", message });
    return undefined;
  }
  return { params: checked.data, tags, message: optional(raw["tag-message"]) };
}

function planStorage(raw: RawInputs, owner: string, repo: string, problems: InputProblem[]): StoragePlan | undefined {
  const digests = listInput(raw["subject-digest"]);
  const pathPatterns = lineInput(raw["subject-path"]);
  const checksums = optional(raw["subject-checksums"]);
  const storageOnly: InputName[] = [
    "subject-name",
    "subject-version",
    "registry-url",
    "artifact-url",
    "registry-repository",
    "artifact-path",
    "storage-status",
    "github-repository",
    "storage-permission-missing",
  ];
  if (digests.length === 0 && pathPatterns.length === 0 && checksums === undefined) {
    for (const input of storageOnly) {
      if (setBeyondDefault(raw, input)) {
        problems.push({
          input,
          rule: "needs a subject",
          message: `${input} is set but no subject-digest, subject-path or subject-checksums names what to record`,
        });
      }
    }
    return undefined;
  }
  const name = optional(raw["subject-name"]);
  if (digests.length > 0 && name === undefined) {
    problems.push({
      input: "subject-name",
      rule: "required with subject-digest",
      message: "subject-name is required with subject-digest (file subjects default to the file's name)",
    });
  }
  const onMissingPermission = optional(raw["storage-permission-missing"]) ?? "fail";
  if (!(STORAGE_PERMISSION_MODES as readonly string[]).includes(onMissingPermission)) {
    const rule = `one of ${STORAGE_PERMISSION_MODES.join(", ")}`;
    problems.push({
      input: "storage-permission-missing",
      rule,
      message: `storage-permission-missing must be ${rule}, got ${JSON.stringify(onMissingPermission)}`,
    });
  }
  // A container image (subject-name ghcr.io/acme/web with subject-digest) names its own registry and repository.
  const image = digests.length > 0 && name !== undefined ? imageLocation(name) : undefined;
  if (image && "problem" in image)
    problems.push({ input: "subject-name", rule: "image name without tag or digest", message: `subject-name: ${image.problem}` });
  const imageAt = image && !("problem" in image) ? image : undefined;
  if (!optional(raw["registry-url"]) && !imageAt) {
    problems.push({
      input: "registry-url",
      rule: "required",
      message: "registry-url is required for storage records (the registry's base URL, https://...)",
    });
  }
  const fields = {
    version: optional(raw["subject-version"]),
    artifact_url: optional(raw["artifact-url"]),
    path: optional(raw["artifact-path"]),
    registry_url: optional(raw["registry-url"]) ?? imageAt?.registryUrl ?? "",
    repository: optional(raw["registry-repository"]) ?? imageAt?.repository,
    status: optional(raw["storage-status"]) as CreateStorageRecordParams["status"],
    github_repository: optional(raw["github-repository"]) ?? repo,
    return_records: true,
  };
  const plan: StoragePlan = {
    org: owner,
    name,
    digests,
    pathPatterns,
    checksums,
    onMissingPermission: onMissingPermission as StoragePermissionMode,
    fields,
  };
  // Check the shared fields and every digest now; file digests are checked once computed.
  const probes = digests.length > 0 ? digests : [`sha256:${"0".repeat(64)}`];
  const seen = new Set<string>();
  for (const digest of probes) {
    for (const problem of storageRequestProblems(plan, name ?? "subject", digest)) {
      const key = `${problem.input}\u0000${problem.message}`;
      // A missing registry-url is reported once above, not again by every rule of the schema.
      if (!seen.has(key) && !(problem.input === "registry-url" && fields.registry_url === "")) {
        seen.add(key);
        problems.push(problem);
      }
    }
  }
  return plan;
}

/** One storage record request for a subject. */
export function storageRequest(plan: StoragePlan, name: string, digest: string): CreateStorageRecordParams {
  const request: Record<string, unknown> = { org: plan.org, name, digest };
  for (const [key, value] of Object.entries(plan.fields)) if (value !== undefined) request[key] = value;
  return request as CreateStorageRecordParams;
}

/** The rules a subject's storage record request breaks, named by input. */
export function storageRequestProblems(plan: StoragePlan, name: string, digest: string): InputProblem[] {
  const checked = createStorageRecordParams.safeParse(storageRequest(plan, name, digest));
  if (checked.success) return [];
  return toFieldIssues(checked.error).map((issue) => {
    const input = STORAGE_FIELD_INPUTS[issue.field] ?? "subject-name";
    const shown = input === "subject-digest" ? `${input} ${JSON.stringify(digest)}` : input;
    return { input, rule: issue.rule, message: `${shown}: ${issue.message}` };
  });
}
