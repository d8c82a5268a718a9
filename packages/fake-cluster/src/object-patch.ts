import type { Operation } from "fast-json-patch";
import fastJsonPatch from "fast-json-patch";
import { isJsonObject } from "./kube-object.js";
import { badRequest, ApiError } from "./status.js";

const { applyPatch, JsonPatchError, validator } = fastJsonPatch;

/** RFC 6901: an array index has no leading zeros ("01" is not index 1). */
function checkArrayIndexes(document: unknown, path: string | undefined): void {
  if (!path) return;
  let cur: unknown = document;
  for (const raw of path.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur) && /^0\d+$/.test(token))
      throw new ApiError(422, "Invalid", `json patch: array index "${token}" has a leading zero in path "${path}"`);
    if (cur === null || typeof cur !== "object") return;
    cur = (cur as Record<string, unknown>)[token];
  }
}

/** RFC 7386 JSON merge patch: lists are replaced (strategic merge patch is strategic-merge-patch.ts). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const out: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

// Malformed operations are the client's syntax error (400); a path that does not resolve or a failed `test` is a
// patch that does not apply to this object (422), as the API server answers them.
const MALFORMED = new Set([
  "SEQUENCE_NOT_AN_ARRAY",
  "OPERATION_NOT_AN_OBJECT",
  "OPERATION_OP_INVALID",
  "OPERATION_PATH_INVALID",
  "OPERATION_FROM_REQUIRED",
  "OPERATION_VALUE_REQUIRED",
  "OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED",
]);

/** RFC 6902 JSON patch (fast-json-patch, operations validated) on a copy of `target`. */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest("json patch: the body must be an array of operations");
  try {
    const validate = (op: Operation, index: number, document: unknown, existing: string) => {
      validator(op, index, document, existing);
      checkArrayIndexes(document, op.path);
      if ("from" in op) checkArrayIndexes(document, op.from);
    };
    return applyPatch(structuredClone(target), operations as Operation[], validate, true, false).newDocument;
  } catch (error) {
    if (!(error instanceof JsonPatchError)) throw error;
    const what = error.message.split("\n")[0];
    if (MALFORMED.has(error.name)) throw badRequest(`json patch: ${what}`);
    throw new ApiError(422, "Invalid", `json patch: ${what}`);
  }
}
