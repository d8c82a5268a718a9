// The action's inputs as the runner gives them, and how a value is read; each input group is checked by its own
// module (tag-inputs.ts, storage-inputs.ts), and action-plan.ts puts them together.

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

/** What a storage record the service refuses for want of permission does to the run: fail it, or warn and go on. */
export const STORAGE_PERMISSION_MODES = ["fail", "warn"] as const;
export type StoragePermissionMode = (typeof STORAGE_PERMISSION_MODES)[number];

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

/** Splits a list input: one item per line or comma, blanks dropped. */
export function listInput(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** Lines of a multi-line input (glob patterns may contain commas). */
export function lineInput(value: string | undefined): string[] {
  return (value ?? "")
    .split("\n")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** The value of an input, undefined when empty. */
export const optional = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);

/** Defaults of action.yml that say "nothing special": an input holding one was not really set. */
const NEUTRAL_DEFAULTS: Partial<Record<InputName, string>> = { "derived-tags": "none", "storage-permission-missing": "fail" };

/** Whether an input was given a value of its own (not empty, not its neutral default). */
export const setBeyondDefault = (raw: RawInputs, input: InputName) =>
  optional(raw[input]) !== undefined && raw[input] !== NEUTRAL_DEFAULTS[input];
