// Strategic merge patch (application/strategic-merge-patch+json) as the API server applies it to the built-in
// kinds we serve: maps merge, `null` deletes, lists whose Go field declares `patchStrategy:"merge"` merge by their
// patchMergeKey (so `kubectl set image` changes one container and keeps the others), other lists are replaced.
// Directives: `$patch: replace | delete` on maps and list elements, `$deleteFromPrimitiveList/<field>`,
// `$setElementOrder/<field>` and `$retainKeys`.
import { ApiError } from "./status.js";

type JsonMap = Record<string, unknown>;

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === "object" && !Array.isArray(v);

/** patchMergeKey of the merge lists of core/v1, apps/v1, batch/v1 and meta/v1 types, by field name. */
const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  ephemeralContainers: "name",
  volumes: "name",
  env: "name",
  ports: "containerPort",
  volumeMounts: "mountPath",
  volumeDevices: "devicePath",
  imagePullSecrets: "name",
  hostAliases: "ip",
  readinessGates: "conditionType",
  resizePolicy: "resourceName",
  topologySpreadConstraints: "topologyKey",
  conditions: "type",
  ownerReferences: "uid",
};

/** How a list field merges: by a key, as a set of primitives (metadata.finalizers), or not at all (replaced). */
function listStrategy(field: string, parent: string | undefined): { key: string } | "primitive" | undefined {
  if (field === "finalizers") return parent === "metadata" ? "primitive" : undefined;
  const key = MERGE_KEYS[field];
  return key === undefined ? undefined : { key };
}

function invalidPatch(message: string): ApiError {
  return new ApiError(422, "Invalid", message);
}

/** Drops directives from a value that is taken as is (a replaced list or a map with nothing to merge into). */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value))
    return value.filter((v) => !(isMap(v) && v.$patch !== undefined && Object.keys(v).length === 1)).map(stripDirectives);
  if (!isMap(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("$")) out[k] = stripDirectives(v);
  return out;
}

/** Applies a strategic merge patch to a copy of `target`. */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) throw invalidPatch("strategic merge patch: the patch must be a JSON object");
  const merged = mergeMap(isMap(target) ? target : {}, patch, undefined);
  if (merged === undefined) throw invalidPatch("strategic merge patch: $patch: delete may not remove the whole object");
  return merged;
}

/** Merges a patch map into a map; undefined when the patch deletes it (`$patch: delete`). */
function mergeMap(original: JsonMap, patch: JsonMap, field: string | undefined): JsonMap | undefined {
  const directive = patch.$patch;
  if (directive === "delete") return undefined;
  if (directive === "replace") return stripDirectives(patch) as JsonMap;
  if (directive !== undefined && directive !== "merge")
    throw invalidPatch(`strategic merge patch: unknown $patch directive ${JSON.stringify(directive)}`);
  const out: JsonMap = { ...original };
  const orders: [string, unknown[]][] = [];
  const removals: [string, unknown[]][] = [];
  let retain: unknown;
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch") continue;
    if (key === "$retainKeys") {
      retain = value;
      continue;
    }
    if (key.startsWith("$setElementOrder/")) {
      if (Array.isArray(value)) orders.push([key.slice("$setElementOrder/".length), value]);
      continue;
    }
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      if (Array.isArray(value)) removals.push([key.slice("$deleteFromPrimitiveList/".length), value]);
      continue;
    }
    if (value === null) delete out[key];
    else if (Array.isArray(value)) out[key] = mergeList(key, field, out[key], value);
    else if (isMap(value)) {
      const merged = mergeMap(isMap(out[key]) ? (out[key] as JsonMap) : {}, value, key);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else out[key] = value;
  }
  for (const [list, values] of removals) {
    if (Array.isArray(out[list])) out[list] = (out[list] as unknown[]).filter((v) => !values.includes(v));
  }
  for (const [list, order] of orders) {
    const strategy = listStrategy(list, field);
    if (Array.isArray(out[list]) && strategy !== undefined) out[list] = orderList(out[list] as unknown[], order, strategy);
  }
  if (Array.isArray(retain)) {
    for (const key of Object.keys(out)) if (!retain.includes(key) && !(key in patch)) delete out[key];
  }
  return out;
}

/** Merges a patch list into a list field. */
function mergeList(field: string, parent: string | undefined, original: unknown, patch: unknown[]): unknown[] {
  const strategy = listStrategy(field, parent);
  if (strategy === undefined || !Array.isArray(original)) {
    return patch.filter((v) => !(isMap(v) && v.$patch !== undefined)).map(stripDirectives);
  }
  if (patch.some((v) => isMap(v) && v.$patch === "replace")) {
    return patch.filter((v) => !(isMap(v) && v.$patch === "replace")).map(stripDirectives);
  }
  if (strategy === "primitive") {
    const out = [...original];
    for (const value of patch) if (!out.includes(value)) out.push(value);
    return out;
  }
  const { key } = strategy;
  const out: unknown[] = [...original];
  for (const element of patch) {
    if (!isMap(element) || element[key] === undefined) {
      throw invalidPatch(`strategic merge patch: ${field}: map: ${JSON.stringify(element)} does not contain declared merge key: ${key}`);
    }
    const index = out.findIndex((item) => isMap(item) && item[key] === element[key]);
    const merged = mergeMap(index >= 0 ? (out[index] as JsonMap) : {}, element, field);
    if (merged === undefined) {
      if (index >= 0) out.splice(index, 1);
    } else if (index >= 0) out[index] = merged;
    else out.push(merged);
  }
  return out;
}

/** `$setElementOrder`: the listed elements in the given order, then any others as they were. */
function orderList(list: unknown[], order: unknown[], strategy: { key: string } | "primitive"): unknown[] {
  const identity = (item: unknown) => (strategy === "primitive" ? item : isMap(item) ? item[strategy.key] : undefined);
  const wanted = order.map(identity);
  const listed = wanted.flatMap((id) => list.filter((item) => identity(item) === id));
  return [...listed, ...list.filter((item) => !wanted.includes(identity(item)))];
}
