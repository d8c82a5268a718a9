import type { CreateStorageRecordParams } from "@shiplog/client";
import { createStorageRecordParams, toFieldIssues } from "@shiplog/client/schemas";
import { imageLocation } from "./image-subject.js";
import { schemaRuleKey } from "./input-rules.js";
import {
  STORAGE_PERMISSION_MODES,
  lineInput,
  listInput,
  optional,
  setBeyondDefault,
  type InputName,
  type InputProblem,
  type RawInputs,
  type StoragePermissionMode,
} from "./inputs.js";

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

/** Which input carries each storage record field, so a schema's complaint names what the user wrote. */
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

/** Checks the storage record inputs (pushing each problem) and plans the records; undefined when no subject is given. */
export function planStorage(raw: RawInputs, owner: string, repo: string, problems: InputProblem[]): StoragePlan | undefined {
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
    problems.push({
      input: "storage-permission-missing",
      rule: "one of",
      message: `storage-permission-missing must be one of ${STORAGE_PERMISSION_MODES.join(", ")}, got ${JSON.stringify(onMissingPermission)}`,
    });
  }
  // A container image (subject-name ghcr.io/acme/web with subject-digest) names its own registry and repository.
  const image = digests.length > 0 && name !== undefined ? imageLocation(name) : undefined;
  if (image && "problem" in image) problems.push({ input: "subject-name", rule: "image name", message: `subject-name: ${image.problem}` });
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
    return { input, rule: schemaRuleKey(issue.rule), message: `${shown}: ${issue.message}` };
  });
}
