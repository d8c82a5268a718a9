import { badRequest, ApiError } from "./status.js";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** RFC 7386 JSON merge patch: lists are replaced (strategic merge patch is strategic-merge-patch.ts). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw badRequest(`json patch: path "${path}" must start with "/"`);
  return path
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: any; key: string } {
  let cur: any = doc;
  for (const t of tokens.slice(0, -1)) {
    if (cur === null || typeof cur !== "object" || !(t in cur)) throw new ApiError(422, "Invalid", `json patch: path "${path}" does not exist`);
    cur = Array.isArray(cur) ? cur[Number(t)] : cur[t];
  }
  if (cur === null || typeof cur !== "object") throw new ApiError(422, "Invalid", `json patch: path "${path}" does not exist`);
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function read(doc: unknown, path: string): unknown {
  let cur: any = doc;
  for (const t of pointer(path)) {
    if (cur === null || typeof cur !== "object" || !(t in cur)) throw new ApiError(422, "Invalid", `json patch: path "${path}" does not exist`);
    cur = Array.isArray(cur) ? cur[Number(t)] : cur[t];
  }
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new ApiError(422, "Invalid", `json patch: index "${key}" out of range`);
    parent.splice(index, 0, value);
  } else parent[key] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length) throw new ApiError(422, "Invalid", `json patch: index "${key}" out of range`);
    parent.splice(index, 1);
  } else {
    if (!(key in parent)) throw new ApiError(422, "Invalid", `json patch: path "${path}" does not exist`);
    delete parent[key];
  }
  return doc;
}

/** RFC 6902 JSON patch on a deep copy of `target`. */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest("json patch: body must be an array of operations");
  let doc = structuredClone(target);
  for (const raw of operations as Operation[]) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") throw badRequest("json patch: each operation needs string op and path");
    switch (raw.op) {
      case "add":
        doc = add(doc, raw.path, structuredClone(raw.value));
        break;
      case "remove":
        doc = remove(doc, raw.path);
        break;
      case "replace":
        doc = remove(doc, raw.path);
        doc = add(doc, raw.path, structuredClone(raw.value));
        break;
      case "move": {
        const value = read(doc, raw.from ?? "");
        doc = remove(doc, raw.from ?? "");
        doc = add(doc, raw.path, value);
        break;
      }
      case "copy":
        doc = add(doc, raw.path, structuredClone(read(doc, raw.from ?? "")));
        break;
      case "test":
        if (JSON.stringify(read(doc, raw.path)) !== JSON.stringify(raw.value)) throw new ApiError(422, "Invalid", `json patch: test failed at "${raw.path}"`);
        break;
      default:
        throw badRequest(`json patch: unsupported op "${raw.op}"`);
    }
  }
  return doc;
}
