/** Owner reference as stored in metadata.ownerReferences. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata fields the fake cluster reads or maintains. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [key: string]: unknown;
}

/** A JSON object whose fields are not read as any particular type. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Any Kubernetes object as plain JSON; object-kinds.ts has the typed shapes of the kinds the code reads. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: JsonObject;
  status?: JsonObject;
  [key: string]: unknown;
}

/** Deep copy of plain JSON. */
export function cloneObject<T>(value: T): T {
  return structuredClone(value);
}

/** Namespace/name key used by the store. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

const jsonCache = new WeakMap<object, string>();

/** JSON text of a stored object, cached: stored objects are never mutated, so the text stays valid. */
export function objectJson(obj: KubeObject): string {
  let text = jsonCache.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    jsonCache.set(obj, text);
  }
  return text;
}

/** The metadata of an object as PartialObjectMetadata of meta.k8s.io `version` (a metadata-only answer, a Table's row). */
export function partialObjectMetadata(obj: KubeObject, version = "v1"): { kind: string; apiVersion: string; metadata: unknown } {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}
