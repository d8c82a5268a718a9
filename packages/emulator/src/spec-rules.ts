import type { ValidationDetail } from "./service-errors.js";

/**
 * The request rules the spec (or git's object format) states and the OpenAPI description lacks, each named by
 * its section. Run after the compiled OpenAPI validators accepted the request, so shapes are known good.
 */
export function specRuleViolations(key: string, body: unknown, resource: string): ValidationDetail[] {
  const rules = RULES[key];
  if (!rules || typeof body !== "object" || body === null || Array.isArray(body)) return [];
  return rules.flatMap((rule) => rule(body as Record<string, unknown>)).map((v) => ({ resource, code: "invalid" as const, ...v }));
}

type Violation = { field: string; message: string };
type Rule = (body: Record<string, unknown>) => Violation[];

/** C0 control characters and DEL (compared by code, not by a regex of control codes). */
const hasControl = (text: string) => [...text].some((c) => c < " " || c === "\x7f");

/**
 * Artifact metadata strings are single-line names and labels (spec 2.2, 2.3): control characters (NUL, line
 * breaks, escapes) are refused. The spec is silent; see README, assumptions.
 */
function noControlCharacters(value: unknown, field: string): Violation[] {
  if (typeof value === "string") {
    return hasControl(value) ? [{ field, message: `${field} must not contain control characters (spec 2.2, single-line values)` }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => noControlCharacters(item, `${field}[${i}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [
      ...(hasControl(k) ? [{ field: `${field}`, message: `${field} has a key with control characters (spec 2.2)` }] : []),
      ...noControlCharacters(v, field ? `${field}.${k}` : k),
    ]);
  }
  return [];
}

/** Spec 4.1: `deployment_name` must be unique across the entries of the `deployments` array. */
const uniqueDeploymentNames: Rule = (body) => {
  const seen = new Map<string, number>();
  const violations: Violation[] = [];
  const entries = Array.isArray(body.deployments) ? (body.deployments as { deployment_name?: unknown }[]) : [];
  entries.forEach((entry, index) => {
    if (typeof entry?.deployment_name !== "string") return;
    const first = seen.get(entry.deployment_name);
    if (first === undefined) seen.set(entry.deployment_name, index);
    else {
      violations.push({
        field: `deployments[${index}].deployment_name`,
        message:
          `deployments[${index}].deployment_name repeats deployments[${first}].deployment_name; ` +
          "it must be unique across the entries (spec 4.1)",
      });
    }
  });
  return violations;
};

/**
 * Spec 4.2 with git's tag format: the tag name and tagger identity are header lines of the object, so they may
 * not hold line breaks or NUL, and `<`/`>` delimit the email; the date must be one git can store (seconds since
 * 1970 and an offset of at most 23:59).
 */
const storableTag: Rule = (body) => {
  const violations: Violation[] = [];
  const tagger = body.tagger as { name?: unknown; email?: unknown; date?: unknown } | undefined;
  if (!tagger || typeof tagger !== "object") return violations;
  for (const part of ["name", "email"] as const) {
    if (typeof tagger[part] === "string" && (/[<>\n]/.test(tagger[part]) || tagger[part].includes("\0"))) {
      violations.push({ field: `tagger.${part}`, message: `tagger.${part} must not contain '<', '>', NUL or line breaks (git ident)` });
    }
  }
  if (typeof tagger.date === "string") {
    const problem = gitDateProblem(tagger.date);
    if (problem) violations.push({ field: "tagger.date", message: `tagger.date ${problem} (spec 4.2; git stores seconds since 1970)` });
  }
  return violations;
};

/** Why git cannot store this ISO 8601 date, or undefined when it can. */
export function gitDateProblem(iso: string): string | undefined {
  const match = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|([+-])(\d\d):?(\d\d))$/.exec(iso);
  if (!match) return "must be an ISO 8601 timestamp";
  const [, y, mo, d, h, mi, s, , oh, om] = match;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(utc);
  if (back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return "is not a calendar date and time";
  }
  if (oh !== undefined && (Number(oh) > 23 || Number(om) > 59)) return "has an offset beyond ±23:59";
  if (Number.isNaN(Date.parse(iso)) || Date.parse(iso) < 0) return "is before 1970-01-01T00:00:00Z";
  return undefined;
}

/** Why git refuses this reference name (git-check-ref-format(1)), or undefined when it is a valid one. */
export function refFormatProblem(name: string): string | undefined {
  if (name === "" || name === "@") return "must not be empty or '@'";
  if (hasControl(name) || /[ ~^:?*[\\]/.test(name)) return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\";
  if (name.includes("..")) return "must not contain ..";
  if (name.includes("@{")) return "must not contain @{";
  if (name.includes("//") || name.startsWith("/") || name.endsWith("/")) return "must not begin or end with / or hold //";
  if (name.endsWith(".")) return "must not end with .";
  for (const part of name.split("/")) {
    if (part.startsWith(".")) return "must not have a component that begins with .";
    if (part.endsWith(".lock")) return "must not have a component that ends with .lock";
  }
  return undefined;
}

const SHA = /^[0-9a-f]{40}$/;

/** Spec 4.2: `object` is the SHA of the tagged object; the tag name becomes `refs/tags/<tag>`, so git's ref rules. */
const tagNames: Rule = (body) => {
  const violations: Violation[] = [];
  const problem = refFormatProblem(String(body.tag));
  if (problem) violations.push({ field: "tag", message: `tag ${problem} (git-check-ref-format, as refs/tags/<tag>)` });
  if (!SHA.test(String(body.object))) {
    violations.push({ field: "object", message: "object must be a 40-character hexadecimal SHA (spec 4.2)" });
  }
  return violations;
};

/**
 * Creating a reference: the OpenAPI's prose (not its schema) says a ref that does not start with `refs` and hold
 * at least two slashes is rejected; git's ref rules apply; `sha` names an object.
 */
const createRef: Rule = (body) => {
  const ref = String(body.ref);
  const violations: Violation[] = [];
  if (!ref.startsWith("refs/") || ref.split("/").length < 3) {
    violations.push({ field: "ref", message: "ref must be fully qualified: refs/ and at least two slashes (refs/heads/main)" });
  } else {
    const problem = refFormatProblem(ref);
    if (problem) violations.push({ field: "ref", message: `ref ${problem} (git-check-ref-format)` });
  }
  if (!SHA.test(String(body.sha))) violations.push({ field: "sha", message: "sha must be a 40-character hexadecimal SHA" });
  return violations;
};

const artifactStrings: Rule = (body) => noControlCharacters(body, "");

const RULES: Record<string, Rule[]> = {
  "POST /orgs/{org}/artifacts/metadata/deployment-record": [artifactStrings],
  "POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}": [artifactStrings, uniqueDeploymentNames],
  "POST /orgs/{org}/artifacts/metadata/storage-record": [artifactStrings],
  "POST /repos/{owner}/{repo}/git/tags": [tagNames, storableTag],
  "POST /repos/{owner}/{repo}/git/refs": [createRef],
};
