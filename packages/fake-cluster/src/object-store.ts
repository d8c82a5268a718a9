import type { KubeObject, ObjectMeta } from "./kube-object.js";
import { objectKey } from "./kube-object.js";
import type { EventType, StoreEvent } from "./history-log.js";
import { HistoryLog } from "./history-log.js";
import { applyCreateDefaults, applySpecDefaults } from "./object-defaults.js";
import { ObjectTable, StoredObject, namespaceRange } from "./object-table.js";
import { ParseCache } from "./parse-cache.js";
import { validateObject } from "./validation/index.js";
import type { ClusterClock } from "./cluster-clock.js";
import type { NameGenerator } from "./name-generator.js";
import type { ObjectOf } from "./object-kinds.js";
import type { ResourceKind, ResourceName } from "./resource-kinds.js";
import { RESOURCE_NAMES, apiVersionOf, qualifiedResource, resourceKind } from "./resource-kinds.js";
import type { ObjectFilter } from "./selectors.js";
import { matchesFilter } from "./selectors.js";
import { ApiError, alreadyExists, conflict, invalid, invalidObject, notFound } from "./status.js";
import { sameJson, updateManagedFields } from "./managed-fields.js";

/** names.SimpleNameGenerator: generateName is cut so that base + 5 random characters fit a DNS label. */
const MAX_GENERATED_BASE = 58;

/** The ConfigMap of the cluster's CA in every namespace, and its annotation, as kube-controller-manager writes them. */
export const ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";
const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";
const ROOT_CA_PLACEHOLDER = `-----BEGIN CERTIFICATE-----\n${Buffer.from("shiplog fake cluster: plain HTTP, no CA").toString("base64")}\n-----END CERTIFICATE-----\n`;

/** Decoded objects kept for the controllers' working set (the rest of the store is JSON text). */
const DEFAULT_PARSE_CACHE = 1024;

/**
 * Write options the API passes through: `dryRun` validates and answers without storing or notifying; `manager` (the
 * request's fieldManager) records the write in metadata.managedFields, as only writes through the API do.
 */
export interface WriteOptions {
  dryRun?: boolean;
  manager?: string;
}

/** How `write` stores an update made through the API (ObjectStore.update). */
interface ApiWrite {
  manager: string | undefined;
  subresource: "status" | undefined;
  /** metadata.managedFields as the request carried them. */
  requestedManagedFields: unknown;
  /** A generation bump besides a spec change (a Deployment's annotations). */
  bumpGeneration: boolean;
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

/** The owner uids of an object and its controller's uid, as the store indexes them. */
function ownersOf(obj: KubeObject): { owners: string[] | undefined; controllerUid: string | undefined } {
  const refs = obj.metadata.ownerReferences;
  if (!refs || refs.length === 0) return { owners: undefined, controllerUid: undefined };
  return { owners: refs.map((r) => r.uid), controllerUid: refs.find((r) => r.controller === true)?.uid };
}

const sameOwners = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((uid, i) => uid === b[i]));

/**
 * All objects of the cluster, one global increasing resourceVersion, bounded event history, and an index from
 * owner uid to dependents. Objects are stored as JSON text (one string per object and revision, shared with the
 * history), decoded on demand through a bounded cache; decoded objects are never mutated: every write stores anew.
 */
export class ObjectStore {
  private rv: number;
  private readonly tables = new Map<ResourceName, ObjectTable>();
  private readonly byUid = new Map<string, StoredObject>();
  private readonly dependents = new Map<string, Set<StoredObject>>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  readonly cache: ParseCache;
  readonly history: HistoryLog;

  constructor(
    private readonly names: NameGenerator,
    historyLimit: number,
    /** The cluster's clock: the objects' timestamps, and the time every part of the cluster reads through the store. */
    readonly clock: ClusterClock,
    startRv = 1000,
    parseCacheSize = DEFAULT_PARSE_CACHE,
  ) {
    this.rv = startRv;
    this.history = new HistoryLog(historyLimit, startRv);
    this.cache = new ParseCache(parseCacheSize);
    for (const r of RESOURCE_NAMES) this.tables.set(r, new ObjectTable());
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

  /** The table of a resource (list pages and watches read it). */
  table(resource: ResourceName): ObjectTable {
    return this.tables.get(resource)!;
  }

  private keyOf(resource: ResourceName, namespace: string | undefined, name: string): string {
    return objectKey(kindOf(resource).namespaced ? namespace : undefined, name);
  }

  /** The stored object (do not mutate), or undefined. */
  get<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> | undefined {
    const record = this.table(resource).get(this.keyOf(resource, namespace, name));
    return record && (this.cache.decode(record) as ObjectOf<R>);
  }

  /** The stored object or a 404 ApiError. */
  getOrThrow<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> {
    const obj = this.get(resource, namespace, name);
    if (!obj) throw notFound(kindOf(resource), name);
    return obj;
  }

  /** Object by uid, with its resource. */
  getByUid(uid: string): { resource: ResourceName; object: KubeObject } | undefined {
    const record = this.byUid.get(uid);
    return record && { resource: record.resource, object: this.cache.decode(record) };
  }

  /** True while an object with this uid exists (nothing decoded). */
  exists(uid: string): boolean {
    return this.byUid.has(uid);
  }

  /** Owner uids of the object with this uid (nothing decoded); undefined when it has none or is gone. */
  ownersOf(uid: string): readonly string[] | undefined {
    return this.byUid.get(uid)?.owners;
  }

  /** Objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): { resource: ResourceName; object: KubeObject }[] {
    return [...(this.dependents.get(uid) ?? [])].map((d) => ({ resource: d.resource, object: this.cache.decode(d) }));
  }

  /** Objects of `resource` whose controller ownerReference names `uid` (only those are decoded). */
  controlledBy<R extends ResourceName>(uid: string, resource: R): ObjectOf<R>[] {
    const out: ObjectOf<R>[] = [];
    for (const d of this.dependents.get(uid) ?? []) {
      if (d.resource === resource && d.controllerUid === uid) out.push(this.cache.decode(d) as ObjectOf<R>);
    }
    return out;
  }

  /** Number of objects of a resource. */
  count(resource: ResourceName): number {
    return this.table(resource).size;
  }

  /** Keys of a resource's objects, unordered (`namespace/name`), nothing decoded. */
  keys(resource: ResourceName): string[] {
    return [...this.table(resource).values()].map((r) => r.key);
  }

  /** Matching objects sorted by namespace/name, like the real list (decoded: do not mutate). */
  list<R extends ResourceName>(resource: R, filter: ObjectFilter = {}): ObjectOf<R>[] {
    const table = this.table(resource);
    const out: ObjectOf<R>[] = [];
    for (const key of this.keysInRange(resource, filter.namespace)) {
      const obj = this.cache.decode(table.get(key)!) as ObjectOf<R>;
      if (matchesFilter(filter, obj)) out.push(obj);
    }
    return out;
  }

  /** Keys in order, only those of one namespace when given (a key range: nothing decoded). */
  keysInRange(resource: ResourceName, namespace: string | undefined): readonly string[] {
    const keys = this.table(resource).sortedKeys();
    if (namespace === undefined || !kindOf(resource).namespaced) return keys;
    return keys.slice(...namespaceRange(keys, namespace));
  }

  /** Objects of a resource in storage order (no sorting) for controllers; decoded one by one. */
  *values<R extends ResourceName>(resource: R): IterableIterator<ObjectOf<R>> {
    for (const record of [...this.table(resource).values()]) yield this.cache.decode(record) as ObjectOf<R>;
  }

  /** Creates an object as the API does: defaults, namespace existence, validation, uid, resourceVersion; 409 if taken. */
  create<R extends ResourceName>(resource: R, input: KubeObject, options: WriteOptions = {}): ObjectOf<R> {
    const kind = resourceKindOrThrow(resource);
    const meta: ObjectMeta = { ...(input.metadata ?? {}) };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName.slice(0, MAX_GENERATED_BASE)}${this.names.suffix()}`;
    const name = meta.name ?? "";
    if (kind.namespaced) {
      if (!meta.namespace) throw invalid(kind, name, "metadata.namespace", "Required value");
      const ns = this.get("namespaces", undefined, meta.namespace);
      if (!ns) throw notFound(kindOf("namespaces"), meta.namespace);
      if (ns.metadata.deletionTimestamp) {
        throw new ApiError(
          403,
          "Forbidden",
          `${kind.resource} "${name}" is forbidden: unable to create new content in namespace ${meta.namespace} because it is being terminated`,
        );
      }
    } else {
      delete meta.namespace;
    }
    const defaulted = applySpecDefaults(resource, { ...input, metadata: meta });
    const errors = validateObject(resource, defaulted);
    if (errors.length > 0) throw invalidObject(kind, name, errors);
    const table = this.table(resource);
    const key = objectKey(meta.namespace, name);
    if (table.has(key)) throw alreadyExists(kind, name);
    meta.uid = this.names.uid();
    meta.creationTimestamp = this.clock.timestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (kind.generation) meta.generation = 1;
    else delete meta.generation;
    if (options.dryRun) delete meta.resourceVersion;
    else meta.resourceVersion = String(this.rv + 1);
    // apiVersion and kind lead the stored text, so that a list can leave them out of its items cheaply (listItem).
    const typeMeta = { apiVersion: apiVersionOf(kind), kind: kind.kind };
    const obj = applyCreateDefaults(resource, { ...typeMeta, ...defaulted, ...typeMeta, metadata: meta });
    if (options.manager !== undefined) {
      const requested = meta.managedFields;
      delete meta.managedFields;
      const managed = updateManagedFields(undefined, obj, requested, options.manager, apiVersionOf(kind), meta.creationTimestamp);
      if (managed) meta.managedFields = managed;
    }
    if (options.dryRun) return obj as ObjectOf<R>;
    this.rv++;
    const { owners, controllerUid } = ownersOf(obj);
    const record = new StoredObject(resource, key, meta.uid, JSON.stringify(obj), owners, controllerUid);
    table.insert(record);
    this.byUid.set(meta.uid, record);
    this.link(record, owners);
    this.cache.remember(record, obj);
    this.emit("ADDED", record, obj, undefined);
    if (resource === "namespaces") this.publishRootCa(name);
    return obj as ObjectOf<R>;
  }

  /**
   * The kube-root-ca.crt ConfigMap kube-controller-manager's root-ca-cert-publisher puts in every namespace (here at
   * once, with the namespace). The fake serves plain HTTP: its ca.crt is a placeholder, no CA of anything.
   */
  private publishRootCa(namespace: string): void {
    this.create(
      "configmaps",
      {
        metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { "kubernetes.io/description": ROOT_CA_DESCRIPTION } },
        data: { "ca.crt": ROOT_CA_PLACEHOLDER },
      },
      { manager: "kube-controller-manager" },
    );
  }

  /**
   * Updates as PUT does: 409 on a stale metadata.resourceVersion (unconditional when absent); the main resource
   * keeps the stored status, the status subresource keeps everything but status.
   */
  update<R extends ResourceName>(resource: R, input: KubeObject, subresource?: "status", options: WriteOptions = {}): ObjectOf<R> {
    const kind = resourceKindOrThrow(resource);
    const name = input.metadata?.name;
    if (!name) throw invalid(kind, "", "metadata.name", "Required value");
    const existing = this.getOrThrow(resource, input.metadata.namespace, name);
    const wantRv = input.metadata.resourceVersion;
    if ((wantRv === undefined || wantRv === "") && kind.unconditionalUpdate === false) throw unconditionalUpdate(kind, name);
    if (wantRv !== undefined && wantRv !== "" && wantRv !== existing.metadata.resourceVersion) throw conflict(kind, name);
    let next: KubeObject;
    let bumpGeneration = false;
    if (subresource === "status") {
      next = { ...existing, status: input.status };
    } else {
      const defaulted = applySpecDefaults(resource, input);
      const errors = [
        ...finalizersWhileDeleting(existing, input),
        ...validateObject(
          resource,
          { ...defaulted, metadata: { ...defaulted.metadata, namespace: existing.metadata.namespace } },
          existing,
        ),
      ];
      if (errors.length > 0) throw invalidObject(kind, name, errors);
      // apiVersion and kind first, as every stored object has them (a request's body may have them anywhere).
      const typeMeta = { apiVersion: existing.apiVersion, kind: existing.kind };
      next = { ...typeMeta, ...defaulted, ...typeMeta };
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
      // The Deployment strategy bumps the generation on annotation changes too (they are copied to ReplicaSets).
      bumpGeneration = resource === "deployments" && !sameJson(meta.annotations ?? {}, existing.metadata.annotations ?? {});
    }
    if (options.dryRun) return this.preview(resource, next, bumpGeneration) as ObjectOf<R>;
    return this.write(resource, next, {
      manager: options.manager,
      subresource,
      requestedManagedFields: input.metadata.managedFields,
      bumpGeneration,
    });
  }

  /** What `write` would store, without storing it (dryRun): the generation bump, the same resourceVersion. */
  private preview(resource: ResourceName, next: KubeObject, bumpGeneration: boolean): KubeObject {
    const prev = this.getOrThrow(resource, next.metadata.namespace, next.metadata.name!);
    const meta: ObjectMeta = { ...next.metadata, resourceVersion: prev.metadata.resourceVersion };
    if (kindOf(resource).generation && (bumpGeneration || (next.spec !== undefined && !sameJson(next.spec, prev.spec))))
      meta.generation = (prev.metadata.generation ?? 0) + 1;
    return { ...next, metadata: meta };
  }

  /**
   * Stores a new version of an existing object (controllers and the API layer). Bumps generation on spec
   * changes (kinds that keep one); an object marked for deletion with no finalizers left and no grace period pending
   * is removed. Through the API (`api`), an update that changes nothing stores nothing: the object keeps its
   * resourceVersion and no watch event goes out, as the API server skips a write equal to what it holds.
   */
  write<R extends ResourceName>(resource: R, next: KubeObject, api?: ApiWrite): ObjectOf<R> {
    const kind = kindOf(resource);
    const record = this.table(resource).get(this.keyOf(resource, next.metadata.namespace, next.metadata.name!));
    if (!record) throw notFound(kind, next.metadata.name!);
    const prev = this.cache.decode(record);
    const meta: ObjectMeta = { ...next.metadata };
    // Controllers write status with the stored spec object itself: no need to compare it.
    if (
      kind.generation &&
      (api?.bumpGeneration ||
        (next.spec !== undefined && next.spec !== prev.spec && JSON.stringify(next.spec) !== JSON.stringify(prev.spec)))
    ) {
      meta.generation = (prev.metadata.generation ?? 0) + 1;
    }
    // A terminating namespace also waits for spec.finalizers (its content being removed).
    const namespaceFinalizers = resource === "namespaces" ? ((next.spec?.finalizers as unknown[] | undefined) ?? []).length : 0;
    if (
      meta.deletionTimestamp &&
      (meta.finalizers ?? []).length === 0 &&
      (meta.deletionGracePeriodSeconds ?? 0) === 0 &&
      namespaceFinalizers === 0
    ) {
      return this.removeStored(record, prev, { ...next, metadata: meta }) as ObjectOf<R>;
    }
    if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;
    if (meta.ownerReferences && meta.ownerReferences.length === 0) delete meta.ownerReferences;
    if (api) {
      delete meta.managedFields;
      const candidate: KubeObject = { ...next, metadata: { ...meta, resourceVersion: prev.metadata.resourceVersion } };
      const managed =
        api.manager === undefined
          ? prev.metadata.managedFields
          : updateManagedFields(
              prev,
              candidate,
              api.requestedManagedFields,
              api.manager,
              apiVersionOf(kind),
              this.clock.timestamp(),
              api.subresource,
            );
      if (managed !== undefined) candidate.metadata.managedFields = managed;
      if (sameJson(candidate, prev)) return prev as ObjectOf<R>;
      if (managed !== undefined) meta.managedFields = managed;
    }
    this.rv++;
    meta.resourceVersion = String(this.rv);
    const obj: KubeObject = { ...next, metadata: meta };
    const prevJson = record.json;
    record.json = JSON.stringify(obj);
    const { owners, controllerUid } = ownersOf(obj);
    if (!sameOwners(owners, record.owners)) {
      this.unlink(record);
      record.owners = owners;
      this.link(record, owners);
    }
    record.controllerUid = controllerUid;
    this.cache.remember(record, obj);
    this.emit("MODIFIED", record, obj, prev, prevJson);
    return obj as ObjectOf<R>;
  }

  /** Removes an object now (no finalizers, no propagation); returns its final state. */
  remove(resource: ResourceName, namespace: string | undefined, name: string): KubeObject {
    const record = this.table(resource).get(this.keyOf(resource, namespace, name));
    if (!record) throw notFound(kindOf(resource), name);
    const prev = this.cache.decode(record);
    return this.removeStored(record, prev, prev);
  }

  private removeStored(record: StoredObject, prev: KubeObject, last: KubeObject): KubeObject {
    this.rv++;
    const final: KubeObject = { ...last, metadata: { ...last.metadata, resourceVersion: String(this.rv) } };
    const prevJson = record.json;
    record.json = JSON.stringify(final);
    this.table(record.resource).delete(record.key);
    this.byUid.delete(record.uid);
    this.unlink(record);
    this.cache.forget(record);
    this.emit("DELETED", record, final, prev, prevJson);
    return final;
  }

  /**
   * Restarts the resourceVersion sequence lower (an etcd restored from a backup, a cluster rebuilt under the same
   * address): every object is stamped `rv`, history is dropped, and new writes count on from there.
   */
  restartHistory(rv: number): void {
    this.rv = rv;
    for (const table of this.tables.values()) {
      for (const record of table.values()) {
        const object = JSON.parse(record.json) as KubeObject;
        record.json = JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
        this.cache.forget(record);
      }
    }
    this.history.compact(rv);
  }

  /** Drops all watch history: older resourceVersions get 410 from now on. */
  compactHistory(): void {
    this.history.compact(this.rv);
  }

  private link(record: StoredObject, owners: readonly string[] | undefined): void {
    for (const uid of owners ?? []) {
      let set = this.dependents.get(uid);
      if (!set) {
        set = new Set();
        this.dependents.set(uid, set);
      }
      set.add(record);
    }
  }

  private unlink(record: StoredObject): void {
    for (const uid of record.owners ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(record);
      if (set && set.size === 0) this.dependents.delete(uid);
    }
  }

  private emit(type: EventType, record: StoredObject, object: KubeObject, prev: KubeObject | undefined, prevJson?: string): void {
    const { resource, key, json } = record;
    const event: StoreEvent = { type, resource, key, object, prev, json, prevJson, rv: this.rv };
    this.history.append(event);
    for (const l of this.listeners) l(event);
  }
}

/** A PUT without resourceVersion of a kind that refuses unconditional updates (Leases), as the registry words it. */
function unconditionalUpdate(kind: ResourceKind, name: string): ApiError {
  const cause = {
    reason: "FieldValueInvalid",
    message: "Invalid value: 0: must be specified for an update",
    field: "metadata.resourceVersion",
  };
  return new ApiError(422, "Invalid", `${qualifiedResource(kind)} "${name}" is invalid: ${cause.field}: ${cause.message}`, {
    name,
    group: kind.group,
    kind: kind.resource,
    causes: [cause],
  });
}

/** Go's %#v of a []string, as the API server prints it in messages. */
const goStrings = (values: string[]) => `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;

/** No finalizer may be added to an object being deleted (rest.BeforeUpdate). */
function finalizersWhileDeleting(existing: KubeObject, input: KubeObject): { reason: string; field: string; message: string }[] {
  if (!existing.metadata.deletionTimestamp) return [];
  const had = new Set(existing.metadata.finalizers ?? []);
  const added = (input.metadata.finalizers ?? []).filter((f) => !had.has(f));
  if (added.length === 0) return [];
  return [
    {
      reason: "FieldValueForbidden",
      field: "metadata.finalizers",
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added)}`,
    },
  ];
}
