import type { z } from "zod";
import { RequestValidationError, ResponseValidationError, type FieldIssue } from "./errors.js";

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
    return [{ field, rule, message: rule === "required" ? "is required" : issue.message }];
  });
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
      return String(issue.params?.["rule"] ?? "custom");
    default:
      return issue.code;
  }
}
