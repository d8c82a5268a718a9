import type { ControlLoop } from "./control-loop.js";
import type { StoreEvent } from "./history-log.js";
import type { KubeObject } from "./kube-object.js";
import type { Pod } from "./object-kinds.js";
import type { ObjectStore } from "./object-store.js";
import { kindOf } from "./object-store.js";
import type { PropagationPolicy, ResourceName } from "./resource-kinds.js";
import { RESOURCE_NAMES } from "./resource-kinds.js";
import { badRequest, conflict } from "./status.js";

const FOREGROUND = "foregroundDeletion";
const ORPHAN = "orphan";

/** DeleteOptions the API accepts (query or body). */
export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy | undefined;
  gracePeriodSeconds?: number | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
}

/** Result of a delete: `pending` when the object stays (finalizers, graceful pod termination). */
export interface DeleteResult {
  object: KubeObject;
  pending: boolean;
}

/** Validates a propagationPolicy value from the wire. */
export function parsePropagationPolicy(value: unknown): PropagationPolicy | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (value === "Background" || value === "Foreground" || value === "Orphan") return value;
  throw badRequest(`propagationPolicy: Unsupported value: "${String(value)}": supported values: "Foreground", "Background", "Orphan"`);
}

/**
 * Deletion as the API server and the garbage collector do it: finalizers keep an object (with deletionTimestamp)
 * until removed; Foreground marks the owner with `foregroundDeletion` and removes it after dependents with
 * blockOwnerDeletion are gone; Background removes the owner and then its dependents; Orphan strips owner
 * references from dependents. Scheduled pods terminate gracefully (the kubelet removes them). Namespaces delete
 * their content first.
 */
export class GarbageCollector {
  constructor(
    private readonly store: ObjectStore,
    private readonly loop: ControlLoop,
  ) {
    loop.handle("gc-owner-gone", (uid) => this.ownerGone(uid));
    loop.handle("gc-owner-deleting", (uid) => this.ownerDeleting(uid));
    loop.handle("gc-check-owners", (uid) => this.checkOwners(uid));
    loop.handle("namespace", (name) => this.namespaceContent(name));
    store.subscribe((e) => this.observe(e));
  }

  /** Deletes as DELETE does. */
  delete(resource: ResourceName, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const obj = this.store.getOrThrow(resource, namespace, name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(
        kindOf(resource),
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        kindOf(resource),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`,
      );
    }
    return this.deleteObject(resource, obj, options.propagationPolicy ?? kindOf(resource).defaultPropagation, options.gracePeriodSeconds);
  }

  private deleteObject(resource: ResourceName, obj: KubeObject, policy: PropagationPolicy, gracePeriodSeconds?: number): DeleteResult {
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      // Already terminating: a zero grace period forces a pending pod out; otherwise nothing changes.
      if (resource === "pods" && gracePeriodSeconds === 0 && (meta.deletionGracePeriodSeconds ?? 0) > 0) {
        const written = this.store.write(resource, { ...obj, metadata: { ...meta, deletionGracePeriodSeconds: 0 } });
        return { object: written, pending: this.store.get(resource, meta.namespace, meta.name!) !== undefined };
      }
      return { object: obj, pending: true };
    }
    const finalizers = [...(meta.finalizers ?? [])];
    if (policy === "Foreground" && !finalizers.includes(FOREGROUND)) finalizers.push(FOREGROUND);
    if (policy === "Orphan" && !finalizers.includes(ORPHAN)) finalizers.push(ORPHAN);
    let grace = 0;
    const pod = resource === "pods" ? (obj as Pod) : undefined;
    if (pod?.spec?.nodeName && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed") {
      grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    }
    if (resource === "namespaces") {
      const written = this.store.write(resource, {
        ...obj,
        metadata: { ...meta, deletionTimestamp: this.store.clock.timestamp(), deletionGracePeriodSeconds: 0, finalizers },
        // Namespace content is removed first; spec.finalizers keeps the namespace meanwhile.
        status: { ...obj.status, phase: "Terminating" },
      });
      return { object: written, pending: true };
    }
    if (finalizers.length === 0 && grace === 0) {
      return { object: this.store.remove(resource, meta.namespace, meta.name!), pending: false };
    }
    const written = this.store.write(resource, {
      ...obj,
      metadata: { ...meta, deletionTimestamp: this.store.clock.timestamp(), deletionGracePeriodSeconds: grace, finalizers },
    });
    return { object: written, pending: true };
  }

  private observe(e: StoreEvent): void {
    const meta = e.object.metadata;
    if (e.type === "DELETED") {
      this.loop.enqueue("gc-owner-gone", meta.uid!);
      for (const ref of meta.ownerReferences ?? []) this.loop.enqueue("gc-owner-deleting", ref.uid);
      if (meta.namespace) this.loop.enqueue("namespace", meta.namespace);
      return;
    }
    if (e.resource === "namespaces" && meta.deletionTimestamp) this.loop.enqueue("namespace", meta.name!);
    if (meta.deletionTimestamp && meta.finalizers?.some((f) => f === FOREGROUND || f === ORPHAN)) {
      this.loop.enqueue("gc-owner-deleting", meta.uid!);
    }
    if (e.type === "ADDED" && meta.ownerReferences?.length) this.loop.enqueue("gc-check-owners", meta.uid!);
  }

  /** An owner was removed: dependents with no owner left are deleted (background). */
  private ownerGone(uid: string): void {
    for (const dep of this.store.dependentsOf(uid)) this.checkOwners(dep.object.metadata.uid!);
  }

  /** Deletes an object whose owners are all gone; drops references to owners that are gone. */
  private checkOwners(uid: string): void {
    // The common case, every owner still there, is decided from the index without decoding anything.
    const owners = this.store.ownersOf(uid);
    if (owners === undefined || owners.every((owner) => this.store.exists(owner))) return;
    const { resource, object } = this.store.getByUid(uid)!;
    const refs = object.metadata.ownerReferences ?? [];
    const live = refs.filter((r) => this.store.exists(r.uid));
    if (live.length === 0) {
      if (!object.metadata.deletionTimestamp) this.deleteObject(resource, object, "Background");
      return;
    }
    if (live.length < refs.length) {
      this.store.write(resource, { ...object, metadata: { ...object.metadata, ownerReferences: live } });
    }
  }

  /** An owner marked for Foreground or Orphan deletion: act on dependents, then drop the finalizer. */
  private ownerDeleting(uid: string): void {
    const found = this.store.getByUid(uid);
    if (!found) return;
    const { resource, object } = found;
    const finalizers = object.metadata.finalizers ?? [];
    if (!object.metadata.deletionTimestamp) return;
    if (finalizers.includes(ORPHAN)) {
      for (const dep of this.store.dependentsOf(uid)) {
        const refs = (dep.object.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        this.store.write(dep.resource, { ...dep.object, metadata: { ...dep.object.metadata, ownerReferences: refs } });
      }
      this.dropFinalizer(resource, uid, ORPHAN);
      return;
    }
    if (finalizers.includes(FOREGROUND)) {
      let blocking = 0;
      for (const dep of this.store.dependentsOf(uid)) {
        if (!dep.object.metadata.deletionTimestamp) this.deleteObject(dep.resource, dep.object, "Foreground");
        const ref = dep.object.metadata.ownerReferences?.find((r) => r.uid === uid);
        if (ref?.blockOwnerDeletion && this.store.exists(dep.object.metadata.uid!)) blocking++;
      }
      if (blocking === 0) this.dropFinalizer(resource, uid, FOREGROUND);
    }
  }

  private dropFinalizer(resource: ResourceName, uid: string, finalizer: string): void {
    const current = this.store.getByUid(uid)?.object;
    if (!current) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.write(resource, { ...current, metadata: { ...current.metadata, finalizers } });
  }

  /** A terminating namespace deletes its content, and goes once it is empty. */
  private namespaceContent(name: string): void {
    const ns = this.store.get("namespaces", undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const resource of RESOURCE_NAMES) {
      if (!kindOf(resource).namespaced) continue;
      for (const obj of this.store.list(resource, { namespace: name })) {
        remaining++;
        if (!obj.metadata.deletionTimestamp)
          this.deleteObject(
            resource,
            obj,
            kindOf(resource).defaultPropagation === "Orphan" ? "Background" : kindOf(resource).defaultPropagation,
          );
      }
    }
    if (remaining === 0) {
      const current = this.store.get("namespaces", undefined, name)!;
      if ((current.spec?.finalizers ?? []).length > 0)
        this.store.write("namespaces", { ...current, spec: { ...current.spec, finalizers: [] } });
    }
  }
}
