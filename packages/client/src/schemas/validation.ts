import { z } from "zod";
import { RequestValidationError, ResponseValidationError, type FieldIssue } from "../errors/errors.js";

/** Validates a request body or parameters; throws RequestValidationError naming each field and rule. */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Parsed again with reportInput (slower, so only on failure) to tell a missing field from a wrong one;
  // the input itself never reaches a message.
  const detailed = schema.safeParse(input, { reportInput: true });
  throw new RequestValidationError(operation, toFieldIssues(detailed.error ?? result.error));
}

/** Validates a response body; unknown fields pass through (schemas are loose objects). */
export function parseResponse<S extends z.ZodType>(schema: S, body: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new ResponseValidationError(operation, toFieldIssues(result.error));
  return result.data;
}

/** Turns zod's issues into field/rule pairs a person can act on. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      // One issue per unknown key, named, so a typo points at itself.
      return issue.keys.map((key) => ({
        field: formatPath([...issue.path, key]),
        rule: "no unknown fields",
        message: "is not a field of this request (misspelt?)",
      }));
    }
    const field = formatPath(issue.path) || "(body)";
    const rule = ruleOf(issue);
    return [{ field, rule, message: rule === "required" ? "is required" : messageOf(issue) }];
  });
}

/** The schema's own message, or in place of zod's generic one ("Too small: expected string to have >=1 characters") a plain one. */
function messageOf(issue: z.core.$ZodIssue): string {
  const generic = z.config().localeError?.(issue as never);
  const isGeneric = issue.message === (typeof generic === "string" ? generic : generic?.message);
  return (isGeneric && plainMessage(issue)) || issue.message;
}

function plainMessage(issue: z.core.$ZodIssue): string | undefined {
  const characters = (n: number | bigint) => `${n} character${Number(n) === 1 ? "" : "s"}`;
  switch (issue.code) {
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_type":
      return `must be ${issue.expected === "int" ? "an integer" : `of type ${issue.expected}`}`;
    case "too_small":
      if (issue.origin === "string" || issue.origin === "array") {
        if (Number(issue.minimum) === 1) return "must not be empty";
        return issue.origin === "string" ? `must be at least ${characters(issue.minimum)}` : `must hold at least ${issue.minimum} items`;
      }
      return `must be ${issue.inclusive === false ? "greater than" : "at least"} ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${characters(issue.maximum)}`;
      if (issue.origin === "array") return `must hold at most ${issue.maximum} items`;
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}`;
    case "invalid_format":
      return issue.format === "regex" && "pattern" in issue ? `must match ${String(issue.pattern)}` : `must be a valid ${issue.format}`;
    default:
      return undefined;
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function ruleOf(issue: z.core.$ZodIssue): string {
  if ((issue.code === "invalid_type" || issue.code === "invalid_value") && "input" in issue && issue.input === undefined) return "required";
  switch (issue.code) {
    case "invalid_type":
      return `type ${issue.expected}`;
    case "too_big":
      return issue.origin === "string"
        ? `maxLength ${issue.maximum}`
        : issue.origin === "array"
          ? `maxItems ${issue.maximum}`
          : `maximum ${issue.maximum}`;
    case "too_small":
      return issue.origin === "string"
        ? `minLength ${issue.minimum}`
        : issue.origin === "array"
          ? `minItems ${issue.minimum}`
          : `minimum ${issue.minimum}`;
    case "invalid_format":
      return issue.format === "regex" && "pattern" in issue ? `pattern ${String(issue.pattern)}` : `format ${issue.format}`;
    case "invalid_value":
      return `one of ${issue.values.map(String).join(", ")}`;
    case "unrecognized_keys":
      return "no unknown fields";
    case "custom":
      return String(issue.params?.rule ?? "custom");
    case "invalid_union": {
      // The rules of the forms the value could take, each once: `type int or type string`.
      const rules = issue.errors.flatMap((branch) => branch.slice(0, 1).map(ruleOf));
      return [...new Set(rules)].join(" or ") || "one of the accepted forms";
    }
    default:
      return issue.code;
  }
}
