// metadata.managedFields as the API server keeps them for Update operations (create, update, patch; server-side apply
// is not served): each write's manager comes to own the fields it set or changed, those fields leave every other
// manager's set, removed fields leave all sets, and an entry whose set is empty is dropped. Only requests through the
// HTTP API record them (the simulated controllers' own writes do not), so the benchmarks' write path pays nothing.
// Simplified: the field sets follow the structured-merge-diff rules for maps (labels, annotations, data, ...: "."
// for the map itself), structs (no "."), sets (`finalizers`: `v:"x"`) and the lists keyed by name or uid
// (`k:{"name":"c"}`); any other list is atomic (one leaf), where the server's schema may know a key.
import type { JsonObject, KubeObject } from "./kube-object.js";
import { isJsonObject } from "./kube-object.js";

/** One entry of metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Update" | "Apply";
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

/** A field set: whether this path itself is a member, and its children by FieldsV1 key (`f:x`, `k:{...}`, `v:...`). */
interface FieldNode {
  self: boolean;
  children: Map<string, FieldNode>;
}

const node = (): FieldNode => ({ self: false, children: new Map() });

/**
 * Maps whose keys are data, and optional (pointer) structs: the field itself is a member (".") once set. Every other
 * object is a struct that is always there, not a member of its own.
 */
const MAP_FIELDS = new Set([
  "resourceAttributes",
  "nonResourceAttributes",
  "securityContext",
  "labels",
  "annotations",
  "data",
  "binaryData",
  "stringData",
  "nodeSelector",
  "matchLabels",
  "limits",
  "requests",
  "capacity",
  "allocatable",
]);
/** Lists of strings that are sets. */
const SET_FIELDS = new Set(["finalizers"]);
/** Lists of objects keyed by one field. */
const KEYED_LISTS: Record<string, string> = {
  ownerReferences: "uid",
  containers: "name",
  initContainers: "name",
  ephemeralContainers: "name",
  env: "name",
  volumes: "name",
};
/** Metadata the server owns or that names the object: never in a field set. */
const UNTRACKED_METADATA = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
]);

/** Deep equality of JSON values, key order ignored (an absent key and an undefined one are alike). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!sameJson(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}

function child(parent: FieldNode, key: string): FieldNode {
  let c = parent.children.get(key);
  if (!c) {
    c = node();
    parent.children.set(key, c);
  }
  return c;
}

/** Fields set or changed from `prev` to `next` (into `changed`), and fields present before but gone (into `removed`). */
function diff(prev: unknown, next: unknown, name: string, changed: FieldNode, removed: FieldNode): void {
  if (isJsonObject(next)) {
    const before = isJsonObject(prev) ? prev : undefined;
    if (!before && MAP_FIELDS.has(name)) changed.self = true;
    // An empty struct is a member as it is (f:resources: {}).
    if (Object.keys(next).length === 0 && !before && name !== "" && name !== "metadata") changed.self = true;
    for (const key of Object.keys(next)) {
      if (next[key] === undefined) continue;
      const c = node();
      const r = node();
      diff(before?.[key], next[key], key, c, r);
      if (c.self || c.children.size > 0) changed.children.set(`f:${key}`, c);
      if (r.self || r.children.size > 0) removed.children.set(`f:${key}`, r);
    }
    if (before)
      for (const key of Object.keys(before))
        if (before[key] !== undefined && next[key] === undefined) removed.children.set(`f:${key}`, selfNode());
    return;
  }
  if (Array.isArray(next) && SET_FIELDS.has(name) && next.every((v) => typeof v === "string")) {
    const before = new Set(Array.isArray(prev) ? (prev as unknown[]).map((v) => JSON.stringify(v)) : []);
    if (!Array.isArray(prev)) changed.self = true;
    const now = new Set(next.map((v) => JSON.stringify(v)));
    for (const v of now) if (!before.has(v)) child(changed, `v:${v}`).self = true;
    for (const v of before) if (!now.has(v)) child(removed, `v:${v}`).self = true;
    return;
  }
  const keyField = KEYED_LISTS[name];
  if (Array.isArray(next) && keyField && next.every((v) => isJsonObject(v) && v[keyField] !== undefined)) {
    const keyOf = (v: JsonObject) => `k:${JSON.stringify({ [keyField]: v[keyField] })}`;
    const before = new Map<string, JsonObject>();
    if (Array.isArray(prev)) for (const v of prev) if (isJsonObject(v) && v[keyField] !== undefined) before.set(keyOf(v), v);
    const now = new Set<string>();
    for (const v of next as JsonObject[]) {
      const key = keyOf(v);
      now.add(key);
      const old = before.get(key);
      const c = node();
      const r = node();
      diff(old ?? {}, v, "", c, r);
      if (!old) c.self = true;
      if (c.self || c.children.size > 0) changed.children.set(key, c);
      if (r.self || r.children.size > 0) removed.children.set(key, r);
    }
    for (const key of before.keys()) if (!now.has(key)) removed.children.set(key, selfNode());
    return;
  }
  if (next !== undefined && !sameJson(prev, next)) changed.self = true;
}

function selfNode(): FieldNode {
  const n = node();
  n.self = true;
  return n;
}

/** Adds every member of `add` to `into`. */
function union(into: FieldNode, add: FieldNode): void {
  if (add.self) into.self = true;
  for (const [key, c] of add.children) union(child(into, key), c);
}

/** Removes from `from` the members of `members` (they changed hands); their other children stay. */
function removeMembers(from: FieldNode, members: FieldNode): void {
  for (const [key, m] of members.children) {
    const c = from.children.get(key);
    if (!c) continue;
    if (m.self) c.self = false;
    removeMembers(c, m);
    if (isEmpty(c)) from.children.delete(key);
  }
}

/** Removes from `from` the fields in `gone` (a leaf of `gone`: the field no longer exists, with all it held). */
function removeSubtrees(from: FieldNode, gone: FieldNode): void {
  for (const [key, g] of gone.children) {
    const c = from.children.get(key);
    if (!c) continue;
    if (g.children.size === 0) from.children.delete(key);
    else {
      removeSubtrees(c, g);
      if (isEmpty(c)) from.children.delete(key);
    }
  }
}

function isEmpty(n: FieldNode): boolean {
  return !n.self && n.children.size === 0;
}

function toFieldsV1(n: FieldNode): JsonObject {
  const out: JsonObject = {};
  if (n.self && n.children.size > 0) out["."] = {};
  for (const key of [...n.children.keys()].sort()) out[key] = toFieldsV1(n.children.get(key)!);
  return out;
}

function fromFieldsV1(json: unknown): FieldNode {
  const n = node();
  if (!isJsonObject(json)) return n;
  const keys = Object.keys(json);
  if (keys.length === 0) n.self = true;
  for (const key of keys) {
    if (key === ".") n.self = true;
    else n.children.set(key, fromFieldsV1(json[key]));
  }
  return n;
}

/** The tracked part of an object: no apiVersion/kind, no server-owned metadata, status only for the status subresource. */
function tracked(obj: KubeObject | undefined, subresource: string | undefined): JsonObject {
  if (!obj) return {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (key === "status" && subresource !== "status") continue;
    if (key === "metadata") {
      const meta: JsonObject = {};
      for (const [k, v] of Object.entries(value as JsonObject)) if (!UNTRACKED_METADATA.has(k)) meta[k] = v;
      out.metadata = meta;
    } else out[key] = value;
  }
  return out;
}

/** Whether a list is usable as managedFields (else the live ones are kept, as the server ignores `[]`). */
function validEntries(value: unknown): value is ManagedFieldsEntry[] {
  return Array.isArray(value) && value.length > 0 && value.every((e) => isJsonObject(e) && typeof e.manager === "string");
}

/**
 * The managedFields after `manager` wrote `next` over `prev` (undefined on create). `requested` is what the request
 * carried in metadata.managedFields: a non-empty list replaces the live entries as the base. Undefined when no entry
 * is left (the server then leaves the field out).
 */
export function updateManagedFields(
  prev: KubeObject | undefined,
  next: KubeObject,
  requested: unknown,
  manager: string,
  apiVersion: string,
  time: string,
  subresource?: string,
): ManagedFieldsEntry[] | undefined {
  const base = validEntries(requested) ? requested : ((prev?.metadata.managedFields as ManagedFieldsEntry[] | undefined) ?? []);
  const changed = node();
  const removed = node();
  diff(tracked(prev, subresource), tracked(next, subresource), "", changed, removed);
  if (isEmpty(changed) && isEmpty(removed)) return base.length > 0 ? base : undefined;
  const out: ManagedFieldsEntry[] = [];
  let mine: FieldNode | undefined;
  const isMine = (e: ManagedFieldsEntry) =>
    e.manager === manager && e.operation === "Update" && e.apiVersion === apiVersion && (e.subresource ?? "") === (subresource ?? "");
  for (const entry of base) {
    const set = fromFieldsV1(entry.fieldsV1);
    removeSubtrees(set, removed);
    if (isMine(entry)) {
      union(set, changed);
      mine = set;
      if (!isEmpty(set)) out.push({ ...entry, time, fieldsV1: toFieldsV1(set) });
      continue;
    }
    removeMembers(set, changed);
    if (!isEmpty(set)) out.push({ ...entry, fieldsV1: toFieldsV1(set) });
  }
  if (!mine && !isEmpty(changed)) {
    out.push({
      manager,
      operation: "Update",
      apiVersion,
      time,
      fieldsType: "FieldsV1",
      fieldsV1: toFieldsV1(changed),
      ...(subresource && { subresource }),
    });
  }
  return out.length > 0 ? out.sort(byEncodedOrder) : undefined;
}

const seconds = (time: string) => Math.floor(Date.parse(time) / 1000);

/** The order the server keeps entries in (sortEncodedManagedFields): operation, time in seconds, manager, subresource. */
function byEncodedOrder(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  const ps = seconds(p.time);
  const qs = seconds(q.time);
  if (ps !== qs) return ps - qs;
  if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
  const pr = p.subresource ?? "";
  const qr = q.subresource ?? "";
  return pr === qr ? 0 : pr < qr ? -1 : 1;
}

/** The manager of a write without `fieldManager`: the User-Agent's product (before the first "/"), else "unknown". */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = "";
  for (const ch of (userAgent ?? "").split("/")[0]!) {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(ch)) continue;
    if (out.length >= 128) break;
    out += ch;
  }
  return out === "" ? "unknown" : out;
}
