// Every rule the action enforces on an input, in words: the one source of an annotation's title ("Invalid input:
// registry-url must be an https:// URL") and of what action.yml's description of the input says (a test checks
// that each description holds the words of its input's value rules, word for word).
import { DERIVED_TAGS, IF_TAG_EXISTS, STORAGE_STATUSES, TAGGABLE_OBJECT_TYPES } from "@shiplog/client";
import { STORAGE_PERMISSION_MODES, type InputName } from "./inputs.js";
import { MAX_CHECKSUMS_FILE_BYTES } from "./checksums.js";
import { MAX_SUBJECTS } from "./subjects.js";

/** What a problem is about: an input, or the runner's GITHUB_REPOSITORY. */
export type ProblemInput = InputName | "GITHUB_REPOSITORY";

/**
 * An input's rules, by key, each as the words that follow the input's name. `value`: rules on the value alone, which
 * action.yml's description states word for word; `context`: rules tying it to other inputs, files or the runner.
 */
export interface InputRules {
  value?: Record<string, string>;
  context?: Record<string, string>;
}

const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;
const atMost = (n: number) => `must be at most ${n} characters`;
const NEEDS_TAG = { "needs tag": "needs tag" };
const NEEDS_SUBJECT = { "needs a subject": "needs subject-digest, subject-path or subject-checksums" };
const TOO_MANY = { "too many subjects": `must name at most ${MAX_SUBJECTS} subjects in all` };
const TAG_NAME = { form: "must be a valid tag name under git check-ref-format" };
const IDENT = { form: "must not contain <, > or line breaks" };
const HTTPS = { form: "must be an https:// URL" };

/** The rules of every input, in words. Keys are what `InputProblem.rule` holds. */
export const INPUT_RULES = {
  token: { context: { required: "is required" } },
  "api-url": {
    value: {
      "absolute http(s) URL": "must be an absolute http:// or https:// URL",
      "https unless loopback": "must use https:// unless its host is a loopback one (localhost, 127.0.0.0/8, ::1)",
      "no query or fragment": "must have no query (?...) or fragment (#...)",
      "no credentials in the URL": "must not contain credentials (user:password@)",
    },
  },
  GITHUB_REPOSITORY: { context: { "owner/repo": "must be owner/repo (the runner sets it)" } },
  "dry-run": { value: { "true or false": "must be true or false" } },
  tag: {
    value: TAG_NAME,
    context: { "something to do": "is empty and no subject is given: there is nothing to create" },
  },
  tags: { value: TAG_NAME },
  "derived-tags": {
    value: { "one of": oneOf(DERIVED_TAGS) },
    context: {
      ...NEEDS_TAG,
      "needs a release version tag": "needs a release version tag such as v1.4.0",
      "one version per floating tag": "must move each floating tag to one version only",
    },
  },
  "tag-message": { context: NEEDS_TAG },
  "tag-object": {
    value: { form: "must be 40 or 64 lowercase hex digits (a SHA-1 or SHA-256 object id)" },
    context: { required: "is required when GITHUB_SHA is not set" },
  },
  "tag-type": { value: { "one of": oneOf(TAGGABLE_OBJECT_TYPES) } },
  "tagger-name": { value: IDENT, context: { ...NEEDS_TAG, together: "is required with tagger-email" } },
  "tagger-email": { value: IDENT, context: { ...NEEDS_TAG, together: "is required with tagger-name" } },
  "tagger-date": {
    value: { form: "must be an ISO 8601 timestamp with Z or an offset" },
    context: { ...NEEDS_TAG, "needs tagger": "needs tagger-name and tagger-email" },
  },
  "if-tag-exists": { value: { "one of": oneOf(IF_TAG_EXISTS) } },
  "subject-digest": { value: { form: "must be sha256: followed by 64 lowercase hex digits" }, context: TOO_MANY },
  "subject-path": {
    context: {
      ...TOO_MANY,
      "matches a file": "must match a file",
      "regular files only": "must match regular files only",
      "readable files": "must match readable files",
      "pattern syntax": "must be valid glob patterns",
      "inside the workspace": "must match files inside the workspace",
    },
  },
  "subject-checksums": {
    value: { "sha256sum format": "must be in sha256sum format" },
    context: {
      ...TOO_MANY,
      "existing file": "must name an existing file",
      "regular file": "must name a regular file",
      readable: "must name a readable file",
      "non-empty": "must name a file that is not empty",
      "a path": "must name a file",
      "a path, not the content": "must be sha256sum lines or a file's path",
      "file size": `must name a file of at most ${MAX_CHECKSUMS_FILE_BYTES / 1024 / 1024} MiB`,
    },
  },
  "subject-name": {
    value: { "max length": atMost(256) },
    context: {
      ...NEEDS_SUBJECT,
      "not empty": "must not be empty",
      "required with subject-digest": "is required with subject-digest",
      "image name": "must be an image name without tag or digest",
    },
  },
  "subject-version": { value: { "max length": atMost(100) }, context: NEEDS_SUBJECT },
  "registry-url": {
    value: { ...HTTPS, "max length": atMost(256) },
    context: { ...NEEDS_SUBJECT, required: "is required for storage records (unless subject-name is an image)" },
  },
  "artifact-url": { value: { ...HTTPS, "max length": atMost(152) }, context: NEEDS_SUBJECT },
  "registry-repository": { value: { "max length": atMost(128) }, context: NEEDS_SUBJECT },
  "artifact-path": { value: { "max length": atMost(512) }, context: NEEDS_SUBJECT },
  "storage-status": { value: { "one of": oneOf(STORAGE_STATUSES) }, context: NEEDS_SUBJECT },
  "github-repository": {
    value: { form: "must be letters, digits, '.', '-' or '_' (not . or ..)", "max length": atMost(100) },
    context: NEEDS_SUBJECT,
  },
  "storage-permission-missing": { value: { "one of": oneOf(STORAGE_PERMISSION_MODES) }, context: NEEDS_SUBJECT },
} satisfies Record<ProblemInput, InputRules>;

/** The words of an input's rule, or undefined for a rule this table does not know. */
export function ruleWords(input: ProblemInput, rule: string): string | undefined {
  const rules: InputRules = INPUT_RULES[input];
  return rules.value?.[rule] ?? rules.context?.[rule];
}

/** The annotation title of an input problem: the input and its rule, in words. */
export function problemTitle(problem: { input: ProblemInput; rule: string }): string {
  const words = ruleWords(problem.input, problem.rule);
  // A rule without words would be a bug (a test sends every rule through here); its key still says something.
  return `Invalid input: ${problem.input} ${words ?? `breaks the rule "${problem.rule}"`}`;
}

/**
 * The key of a rule the client's schemas report (`toFieldIssues`): `pattern /^https:\/\//`, `format datetime` and
 * `git check-ref-format` are the value's form, `maxLength 256` its length, `one of a, b` its values.
 */
export function schemaRuleKey(rule: string): string {
  if (rule === "required") return "required";
  if (rule.startsWith("maxLength ")) return "max length";
  if (rule.startsWith("minLength ")) return "not empty";
  if (rule.startsWith("one of ")) return "one of";
  if (rule.startsWith("pattern ") || rule.startsWith("format ") || rule === "git check-ref-format") return "form";
  return rule;
}

/** The key of a rule a checksums file broke (the client's bounded-file rules; its size bound as "file size"). */
export function checksumsRuleKey(rule: string | undefined): string {
  if (rule === undefined) return "sha256sum format";
  return rule.startsWith("at most ") ? "file size" : rule;
}
