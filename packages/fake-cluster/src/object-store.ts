import type { KubeObject, ObjectMeta } from "./kube-object.js";
import { objectKey } from "./kube-object.js";
import type { StoreEvent } from "./history-log.js";
import { HistoryLog } from "./history-log.js";
import { applyCreateDefaults, applySpecDefaults } from "./object-defaults.js";
import { validateObject } from "./validation/index.js";
import type { NameGenerator } from "./name-generator.js";
import type { ResourceKind, ResourceName } from "./resource-kinds.js";
import { RESOURCE_NAMES, apiVersionOf, resourceKind } from "./resource-kinds.js";
import type { ObjectFilter } from "./selectors.js";
import { matchesFilter } from "./selectors.js";
import { ApiError, alreadyExists, conflict, invalid, invalidObject, notFound } from "./status.js";

/** names.SimpleNameGenerator: generateName is cut so that base + 5 random characters fit a DNS label. */
const MAX_GENERATED_BASE = 58;

/** Write options the API passes through: `dryRun` validates and answers without storing or notifying. */
export interface WriteOptions {
  dryRun?: boolean;
}

/** Kubernetes timestamps have second precision. */
export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Looks up the kind for a resource name known to be valid. */
export function kindOf(resource: ResourceName): ResourceKind {
  return resourceKind(resource)!;
}

function resourceKindOrThrow(resource: ResourceName): ResourceKind {
  const k = resourceKind(resource);
  if (!k) throw new ApiError(404, "NotFound", `the server could not find the requested resource (${resource})`);
  return k;
}

/** Where an object lives, for the uid index. */
interface Location {
  resource: ResourceName;
  key: string;
}

/**
 * All objects of the cluster, one global increasing resourceVersion, bounded event history, and an index from
 * owner uid to dependents. Stored objects are immutable: every write stores a new object.
 */
export class ObjectStore {
  private rv: number;
  private readonly tables = new Map<ResourceName, Map<string, KubeObject>>();
  private readonly byUid = new Map<string, Location>();
  private readonly dependentUids = new Map<string, Set<string>>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  readonly history: HistoryLog;

  constructor(
    private readonly names: NameGenerator,
    historyLimit: number,
    startRv = 1000,
  ) {
    this.rv = startRv;
    this.history = new HistoryLog(historyLimit, startRv);
    for (const r of RESOURCE_NAMES) this.tables.set(r, new Map());
  }

  /** Current global resourceVersion. */
  currentRv(): number {
    return this.rv;
  }

  /** Registers a synchronous change listener; returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The stored object (do not mutate), or undefined. */
  get(resource: ResourceName, namespace: string | undefined, name: string): KubeObject | undefined {
    const k = kindOf(resource);
    return this.tables.get(resource)!.get(objectKey(k.namespaced ? namespace : undefined, name));
  }

  /** The stored object or a 404 ApiError. */
  getOrThrow(resource: ResourceName, namespace: string | undefined, name: string): KubeObject {
    const obj = this.get(resource, namespace, name);
    if (!obj) throw notFound(kindOf(resource), name);
    return obj;
  }

  /** Object by uid, with its resource. */
  getByUid(uid: string): { resource: ResourceName; object: KubeObject } | undefined {
    const loc = this.byUid.get(uid);
    if (!loc) return undefined;
    const object = this.tables.get(loc.resource)!.get(loc.key);
    return object ? { resource: loc.resource, object } : undefined;
  }

  /** Objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): { resource: ResourceName; object: KubeObject }[] {
    const out: { resource: ResourceName; object: KubeObject }[] = [];
    for (const d of this.dependentUids.get(uid) ?? []) {
      const found = this.getByUid(d);
      if (found) out.push(found);
    }
    return out;
  }

  /** Number of objects of a resource. */
  count(resource: ResourceName): number {
    return this.tables.get(resource)!.size;
  }

  /** Matching objects sorted by namespace/name, like the real list. */
  list(resource: ResourceName, filter: ObjectFilter = {}): KubeObject[] {
    const table = this.tables.get(resource)!;
    const keys = [...table.keys()].sort();
    const out: KubeObject[] = [];
    for (const key of keys) {
      const obj = table.get(key)!;
      if (matchesFilter(filter, obj)) out.push(obj);
    }
    return out;
  }

  /**
   * Matching objects as they were at resourceVersion `rv`, sorted like `list`: the current table with every later
   * change undone from the history (etcd's MVCC read at a revision). 410 Expired once `rv` is compacted away.
   */
  listAt(resource: ResourceName, rv: number, filter: ObjectFilter = {}): KubeObject[] {
    const later = this.history.since(rv);
    const state = new Map(this.tables.get(resource)!);
    const namespaced = kindOf(resource).namespaced;
    for (let i = later.length - 1; i >= 0; i--) {
      const event = later[i]!;
      if (event.resource !== resource) continue;
      const key = objectKey(namespaced ? event.object.metadata.namespace : undefined, event.object.metadata.name!);
      if (event.type === "ADDED" || event.prev === undefined) state.delete(key);
      else state.set(key, event.prev);
    }
    const out: KubeObject[] = [];
    for (const key of [...state.keys()].sort()) {
      const obj = state.get(key)!;
      if (matchesFilter(filter, obj)) out.push(obj);
    }
    return out;
  }

  /** Objects of a resource in storage order (no sorting, no copying) for controllers. */
  values(resource: ResourceName): IterableIterator<KubeObject> {
    return this.tables.get(resource)!.values();
  }

  /** Creates an object as the API does: defaults, namespace existence, validation, uid, resourceVersion; 409 if taken. */
  create(resource: ResourceName, input: KubeObject, options: WriteOptions = {}): KubeObject {
    const kind = resourceKindOrThrow(resource);
    const meta: ObjectMeta = { ...(input.metadata ?? {}) };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName.slice(0, MAX_GENERATED_BASE)}${this.names.suffix()}`;
    const name = meta.name ?? "";
    if (kind.namespaced) {
      if (!meta.namespace) throw invalid(kind, name, "metadata.namespace", "Required value");
      const ns = this.get("namespaces", undefined, meta.namespace);
      if (!ns) throw notFound(kindOf("namespaces"), meta.namespace);
      if (ns.metadata.deletionTimestamp) {
        throw new ApiError(403, "Forbidden", `${kind.resource} "${name}" is forbidden: unable to create new content in namespace ${meta.namespace} because it is being terminated`);
      }
    } else {
      delete meta.namespace;
    }
    const defaulted = applySpecDefaults(resource, { ...input, metadata: meta });
    const errors = validateObject(resource, defaulted);
    if (errors.length > 0) throw invalidObject(kind, name, errors);
    const table = this.tables.get(resource)!;
    const key = objectKey(meta.namespace, name);
    if (table.has(key)) throw alreadyExists(kind, name);
    meta.uid = this.names.uid();
    meta.creationTimestamp = nowTimestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (input.spec !== undefined) meta.generation = 1;
    else delete meta.generation;
    if (options.dryRun) delete meta.resourceVersion;
    else meta.resourceVersion = String(this.rv + 1);
    const obj = applyCreateDefaults(resource, { ...defaulted, apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: meta });
    if (options.dryRun) return obj;
    this.rv++;
    table.set(key, obj);
    this.index(resource, key, undefined, obj);
    this.emit({ type: "ADDED", resource, object: obj, prev: undefined, rv: this.rv });
    return obj;
  }

  /**
   * Updates as PUT does: 409 on a stale metadata.resourceVersion (unconditional when absent); the main resource
   * keeps the stored status, the status subresource keeps everything but status.
   */
  update(resource: ResourceName, input: KubeObject, subresource?: "status", options: WriteOptions = {}): KubeObject {
    const kind = resourceKindOrThrow(resource);
    const name = input.metadata?.name;
    if (!name) throw invalid(kind, "", "metadata.name", "Required value");
    const existing = this.getOrThrow(resource, input.metadata.namespace, name);
    const wantRv = input.metadata.resourceVersion;
    if (wantRv !== undefined && wantRv !== "" && wantRv !== existing.metadata.resourceVersion) throw conflict(kind, name);
    let next: KubeObject;
    if (subresource === "status") {
      next = { ...existing, status: input.status };
    } else {
      const defaulted = applySpecDefaults(resource, input);
      const errors = validateObject(resource, { ...defaulted, metadata: { ...defaulted.metadata, namespace: existing.metadata.namespace } }, existing);
      if (errors.length > 0) throw invalidObject(kind, name, errors);
      next = { ...defaulted, apiVersion: existing.apiVersion, kind: existing.kind };
      if (kind.hasStatus) {
        if (existing.status === undefined) delete next.status;
        else next.status = existing.status;
      }
      // Fields the server owns.
      const meta: ObjectMeta = { ...input.metadata };
      for (const f of ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"] as const) {
        if (existing.metadata[f] === undefined) delete meta[f];
        else (meta as Record<string, unknown>)[f] = existing.metadata[f];
      }
      if (kind.namespaced) meta.namespace = existing.metadata.namespace;
      else delete meta.namespace;
      next.metadata = meta;
    }
    if (options.dryRun) return this.preview(resource, next);
    return this.write(resource, next);
  }

  /** What `write` would store, without storing it (dryRun): the generation bump, the same resourceVersion. */
  private preview(resource: ResourceName, next: KubeObject): KubeObject {
    const prev = this.getOrThrow(resource, next.metadata.namespace, next.metadata.name!);
    const meta: ObjectMeta = { ...next.metadata, resourceVersion: prev.metadata.resourceVersion };
    if (next.spec !== undefined && JSON.stringify(next.spec) !== JSON.stringify(prev.spec)) meta.generation = (prev.metadata.generation ?? 0) + 1;
    return { ...next, metadata: meta };
  }

  /**
   * Stores a new version of an existing object (controllers and the API layer). Bumps generation on spec
   * changes; an object marked for deletion with no finalizers left and no grace period pending is removed.
   */
  write(resource: ResourceName, next: KubeObject): KubeObject {
    const kind = kindOf(resource);
    const key = objectKey(kind.namespaced ? next.metadata.namespace : undefined, next.metadata.name!);
    const table = this.tables.get(resource)!;
    const prev = table.get(key);
    if (!prev) throw notFound(kind, next.metadata.name!);
    const meta: ObjectMeta = { ...next.metadata };
    // Controllers write status with the stored spec object itself: no need to compare it.
    if (next.spec !== undefined && next.spec !== prev.spec && JSON.stringify(next.spec) !== JSON.stringify(prev.spec)) {
      meta.generation = (prev.metadata.generation ?? 0) + 1;
    }
    // A terminating namespace also waits for spec.finalizers (its content being removed).
    const namespaceFinalizers = resource === "namespaces" ? ((next.spec?.finalizers as unknown[] | undefined) ?? []).length : 0;
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && (meta.deletionGracePeriodSeconds ?? 0) === 0 && namespaceFinalizers === 0) {
      return this.removeStored(resource, key, prev, { ...next, metadata: meta });
    }
    if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;
    if (meta.ownerReferences && meta.ownerReferences.length === 0) delete meta.ownerReferences;
    this.rv++;
    meta.resourceVersion = String(this.rv);
    const obj: KubeObject = { ...next, metadata: meta };
    table.set(key, obj);
    this.index(resource, key, prev, obj);
    this.emit({ type: "MODIFIED", resource, object: obj, prev, rv: this.rv });
    return obj;
  }

  /** Removes an object now (no finalizers, no propagation); returns its final state. */
  remove(resource: ResourceName, namespace: string | undefined, name: string): KubeObject {
    const kind = kindOf(resource);
    const key = objectKey(kind.namespaced ? namespace : undefined, name);
    const prev = this.tables.get(resource)!.get(key);
    if (!prev) throw notFound(kind, name);
    return this.removeStored(resource, key, prev, prev);
  }

  private removeStored(resource: ResourceName, key: string, prev: KubeObject, last: KubeObject): KubeObject {
    this.rv++;
    const final: KubeObject = { ...last, metadata: { ...last.metadata, resourceVersion: String(this.rv) } };
    this.tables.get(resource)!.delete(key);
    this.index(resource, key, prev, undefined);
    this.emit({ type: "DELETED", resource, object: final, prev, rv: this.rv });
    return final;
  }

  /**
   * Restarts the resourceVersion sequence lower (an etcd restored from a backup, a cluster rebuilt under the same
   * address): every object is stamped `rv`, history is dropped, and new writes count on from there.
   */
  restartHistory(rv: number): void {
    this.rv = rv;
    for (const table of this.tables.values()) {
      for (const [key, object] of table) table.set(key, { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    }
    this.history.compact(rv);
  }

  /** Drops all watch history: older resourceVersions get 410 from now on. */
  compactHistory(): void {
    this.history.compact(this.rv);
  }

  private index(resource: ResourceName, key: string, prev: KubeObject | undefined, next: KubeObject | undefined): void {
    const uid = (next ?? prev)!.metadata.uid!;
    if (next) this.byUid.set(uid, { resource, key });
    else this.byUid.delete(uid);
    const before = prev?.metadata.ownerReferences ?? [];
    const after = next?.metadata.ownerReferences ?? [];
    if (before === after) return;
    for (const ref of before) {
      if (!after.some((r) => r.uid === ref.uid)) {
        const set = this.dependentUids.get(ref.uid);
        set?.delete(uid);
        if (set && set.size === 0) this.dependentUids.delete(ref.uid);
      }
    }
    for (const ref of after) {
      let set = this.dependentUids.get(ref.uid);
      if (!set) this.dependentUids.set(ref.uid, (set = new Set()));
      set.add(uid);
    }
  }

  private emit(event: StoreEvent): void {
    this.history.append(event);
    for (const l of this.listeners) l(event);
  }
}
