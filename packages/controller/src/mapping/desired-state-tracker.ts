// The desired state kept up to date from the informers' events, so that between two flushes of a quiet cluster the
// work is proportional to what changed, not to the cluster. Its result always equals computeDesiredState over the
// same caches: it uses the same pieces (resolveMember, workloadOfObject, contributeWorkload, settleKey), only
// recomputing the workloads an event touches:
// - a pod change touches its workload (the old one too, if it moved);
// - a workload object change touches the workload it stands for, and, unless what they read of it is unchanged
//   (resolvesAlike: a ReplicaSet scaled from 4 to 3, a new template), its dependents are resolved again (a
//   Deployment's ReplicaSets, their pods): their workload, annotations or activity may follow from it;
// - a relist touches what changed in it (the reflector reports only that).
// Events only mark objects dirty; the work happens in state(), once per flush, whatever the number of events.
import type { AnnotationWarning } from "./annotations.js";
import {
  contributeWorkload,
  resolveMember,
  settleKey,
  workloadId,
  workloadOfObject,
  type Claim,
  type ClusterSnapshot,
  type DesiredRecord,
  type DesiredState,
  type DesiredStateOptions,
  type NameConflict,
  type WorkloadContribution,
  type WorkloadKind,
  type WorkloadMember,
} from "./desired-state.js";
import type { CronJob, Job, Pod, WatchedKind, Workload } from "../kube/objects.js";
import type { SkippedItem } from "./pod-records.js";
import { sameEntry } from "./record-diff.js";
import { controllerOf, type WorkloadRef } from "./workload-owner.js";

/** The informer caches, with lookup of any watched object. */
export interface TrackedSnapshot extends ClusterSnapshot {
  object(kind: WatchedKind, namespace: string, name: string): Pod | Workload | Job | CronJob | undefined;
}

/** One cached object the tracker has placed: the workload it belongs to and the owner it is indexed under. */
interface Source {
  kind: WatchedKind;
  namespace: string;
  name: string;
  workload: TrackedWorkload | undefined;
  /** Position in workload.members (swap-removed in O(1)). */
  memberAt: number;
  /** The dependents of the owner this one names, this one at dependentAt. */
  siblings: Dependents | undefined;
  dependentAt: number;
}

/** The sources naming one controlling owner (kind, namespace, name: the key), which need not exist. */
interface Dependents {
  key: string;
  sources: Source[];
}

interface TrackedWorkload {
  id: string;
  ref: WorkloadRef;
  members: Source[];
  contribution: WorkloadContribution | undefined;
}

const NO_CLAIMS: readonly Claim[] = [];
/** One flat string (kept as long as the owner has dependents), not a tree of concatenations. */
const ownerKey = (kind: string, namespace: string, name: string) => [kind, namespace, name].join("\u0000");

/** The desired state over the informer caches, updated incrementally from their change events. */
export class DesiredStateTracker {
  readonly #snapshot: TrackedSnapshot;
  readonly #options: DesiredStateOptions;
  readonly #allowed: (namespace: string) => boolean;
  #built = false;
  /** Objects changed since the last state(), by kind, namespace and name: whether the change reaches dependents. */
  readonly #dirty = new Map<WatchedKind, Map<string, Map<string, boolean>>>();
  #dirtyCount = 0;
  /** Namespaces whose metadata the mapping reads changed since the last state(): their workloads are recomputed. */
  readonly #dirtyNamespaces = new Set<string>();
  readonly #sources = new Map<WatchedKind, Map<string, Map<string, Source>>>();
  /** Sources by the controlling owner they name. */
  readonly #dependents = new Map<string, Dependents>();
  readonly #workloads = new Map<string, TrackedWorkload>();
  /** Workloads claiming each key: one, or several (a conflict). */
  readonly #claimants = new Map<string, TrackedWorkload | TrackedWorkload[]>();
  readonly #records = new Map<string, DesiredRecord>();
  readonly #held = new Set<string>();
  readonly #conflicts = new Map<string, NameConflict>();
  /** Workloads with skipped items or warnings, and pods whose owner is not in the cache (why). */
  readonly #reported = new Set<TrackedWorkload>();
  readonly #unresolved = new Map<Source, SkippedItem>();
  #changed: Set<string> | "all" = "all";
  /** What this state() call placed: the object and its membership, so recomputing does not look them up again. */
  readonly #placed = new Map<Source, WorkloadMember>();
  #listsStale = true;
  #skipped: SkippedItem[] = [];
  #warnings: (AnnotationWarning & { subject: string })[] = [];

  constructor(snapshot: TrackedSnapshot, options: DesiredStateOptions) {
    this.#snapshot = snapshot;
    this.#options = options;
    this.#allowed = options.namespaceAllowed ?? (() => true);
  }

  /**
   * Notes that an object was added, updated or deleted; it is looked at in the next state(), and so are its
   * dependents unless `reachesDependents` is false (the update leaves them resolving alike).
   */
  objectChanged(kind: WatchedKind, namespace: string, name: string, reachesDependents = true): void {
    if (!this.#built) return; // the first state() reads everything
    let byNamespace = this.#dirty.get(kind);
    if (!byNamespace) {
      byNamespace = new Map();
      this.#dirty.set(kind, byNamespace);
    }
    let names = byNamespace.get(namespace);
    if (!names) {
      names = new Map();
      byNamespace.set(namespace, names);
    }
    const reached = names.get(name);
    if (reached === undefined) this.#dirtyCount += 1;
    if (!reached) names.set(name, reachesDependents);
  }

  /**
   * Notes that a namespace's metadata changed (the repository it names): every workload in it is recomputed in the
   * next state().
   */
  namespaceChanged(namespace: string): void {
    if (!this.#built) return;
    if (!this.#dirtyNamespaces.has(namespace)) this.#dirtyCount += 1;
    this.#dirtyNamespaces.add(namespace);
  }

  /** Objects changed since the last state(): what the next state() has to look at. */
  get pendingChanges(): number {
    return this.#dirtyCount;
  }

  /**
   * The desired state over the caches as they are now. Its maps are the tracker's own, updated in place by the next
   * call: read them before the next state(), or copy.
   */
  state(): DesiredState {
    try {
      const touched = new Set<TrackedWorkload>();
      if (!this.#built) this.#build(touched);
      else this.#applyChanges(touched);
      if (this.#dirtyNamespaces.size > 0) {
        for (const workload of this.#workloads.values()) if (this.#dirtyNamespaces.has(workload.ref.namespace)) touched.add(workload);
        this.#dirtyNamespaces.clear();
      }
      const keys = new Set<string>();
      for (const workload of touched) this.#recompute(workload, keys);
      this.#placed.clear();
      for (const key of keys) this.#settle(key);
      if (this.#listsStale) this.#collectLists();
    } catch (error) {
      // The changes it had taken are gone with it: the next call builds everything afresh rather than go on wrong.
      this.#reset();
      throw error;
    }
    const conflicts = [...this.#conflicts.values()];
    return { records: this.#records, held: this.#held, conflicts, skipped: this.#skipped, warnings: this.#warnings };
  }

  #reset(): void {
    this.#built = false;
    this.#dirty.clear();
    this.#dirtyNamespaces.clear();
    this.#dirtyCount = 0;
    for (const map of [this.#sources, this.#dependents, this.#workloads, this.#claimants, this.#records, this.#conflicts]) map.clear();
    for (const set of [this.#held, this.#reported]) set.clear();
    this.#unresolved.clear();
    this.#placed.clear();
    this.#changed = "all";
    this.#listsStale = true;
  }

  /**
   * The record keys whose desired record or held status changed since the last call (it brings the state up to
   * date first); "all" on the first call, when there is nothing to compare with.
   */
  changedKeys(): ReadonlySet<string> | "all" {
    this.state();
    const changed = this.#changed;
    this.#changed = new Set();
    return changed;
  }

  #build(touched: Set<TrackedWorkload>): void {
    this.#built = true;
    for (const pod of this.#snapshot.pods()) this.#place("Pod", pod, touched);
    for (const { kind, object } of this.#snapshot.workloads()) this.#place(kind, object, touched);
  }

  #applyChanges(touched: Set<TrackedWorkload>): void {
    const queue: [WatchedKind, string, string, boolean][] = [];
    for (const [kind, byNamespace] of this.#dirty) {
      for (const [namespace, names] of byNamespace) {
        for (const [name, reaches] of names) queue.push([kind, namespace, name, reaches]);
      }
    }
    this.#dirty.clear();
    this.#dirtyCount = 0;
    /** Objects placed again, and whether their dependents were too. */
    const done = new Map<string, boolean>();
    for (let i = 0; i < queue.length; i++) {
      const [kind, namespace, name, reaches] = queue[i]!;
      const id = ownerKey(kind, namespace, name);
      const placed = done.get(id);
      if (placed === true || (placed === false && !reaches)) continue;
      done.set(id, reaches);
      const source = this.#sources.get(kind)?.get(namespace)?.get(name);
      if (source) this.#remove(source, touched);
      const object = this.#snapshot.object(kind, namespace, name);
      if (object) this.#place(kind, object, touched);
      // Its dependents resolve through it: place them again (a Deployment's ReplicaSets, then their pods, which
      // resolve through both).
      const dependents = kind === "Pod" || !reaches ? [] : (this.#dependents.get(id)?.sources ?? []);
      for (const dependent of dependents) queue.push([dependent.kind, dependent.namespace, dependent.name, true]);
    }
  }

  #place(kind: WatchedKind, object: Pod | Workload | Job | CronJob, touched: Set<TrackedWorkload>): void {
    const namespace = object.metadata.namespace ?? "";
    if (!this.#allowed(namespace)) return;
    const name = object.metadata.name;
    const source: Source = {
      kind,
      namespace,
      name,
      workload: undefined,
      memberAt: -1,
      siblings: undefined,
      dependentAt: -1,
    };
    let byNamespace = this.#sources.get(kind);
    if (!byNamespace) {
      byNamespace = new Map();
      this.#sources.set(kind, byNamespace);
    }
    let byName = byNamespace.get(namespace);
    if (!byName) {
      byName = new Map();
      byNamespace.set(namespace, byName);
    }
    byName.set(source.name, source);
    const owner = controllerOf(object.metadata);
    if (owner) {
      const key = ownerKey(owner.kind, namespace, owner.name);
      let siblings = this.#dependents.get(key);
      if (!siblings) {
        siblings = { key, sources: [] };
        this.#dependents.set(key, siblings);
      }
      source.siblings = siblings;
      source.dependentAt = siblings.sources.length;
      siblings.sources = added(siblings.sources, source);
    }
    let ref: WorkloadRef | undefined;
    if (kind === "Pod") {
      const resolved = resolveMember(object as Pod, this.#snapshot);
      if ("owner" in resolved) {
        ref = resolved.owner.workload;
        this.#placed.set(source, { pod: object as Pod, owner: resolved.owner });
      } else if (resolved.skipped) {
        this.#unresolved.set(source, resolved.skipped);
        this.#listsStale = true;
      }
    } else {
      ref = workloadOfObject(kind, object as Workload);
      if (ref) this.#placed.set(source, { kind: kind as WorkloadKind, object: object as Workload });
    }
    if (!ref) return;
    const id = workloadId(ref);
    let workload = this.#workloads.get(id);
    if (!workload) {
      workload = { id, ref, members: [], contribution: undefined };
      this.#workloads.set(id, workload);
    }
    source.workload = workload;
    source.memberAt = workload.members.length;
    workload.members = added(workload.members, source);
    touched.add(workload);
  }

  #remove(source: Source, touched: Set<TrackedWorkload>): void {
    this.#sources.get(source.kind)?.get(source.namespace)?.delete(source.name);
    const siblings = source.siblings;
    if (siblings) {
      siblings.sources = removed(siblings.sources, source.dependentAt, (moved, at) => (moved.dependentAt = at));
      if (siblings.sources.length === 0) this.#dependents.delete(siblings.key);
    }
    if (this.#unresolved.delete(source)) this.#listsStale = true;
    const workload = source.workload;
    if (!workload) return;
    workload.members = removed(workload.members, source.memberAt, (moved, at) => (moved.memberAt = at));
    touched.add(workload);
  }

  /** Recomputes one workload's contribution from its members; the keys it claimed or claims are to be settled. */
  #recompute(workload: TrackedWorkload, keys: Set<string>): void {
    const before = workload.contribution?.claims ?? NO_CLAIMS;
    const members: WorkloadMember[] = [];
    for (const source of workload.members) {
      const placed = this.#placed.get(source);
      if (placed) {
        members.push(placed);
        continue;
      }
      const object = this.#snapshot.object(source.kind, source.namespace, source.name);
      if (!object) continue;
      if (source.kind === "Pod") {
        const resolved = resolveMember(object as Pod, this.#snapshot);
        if ("owner" in resolved) members.push({ pod: object as Pod, owner: resolved.owner });
      } else {
        members.push({ kind: source.kind as WorkloadKind, object: object as Workload });
      }
    }
    const contribution = members.length > 0 ? contributeWorkload(workload.ref, members, this.#options, before) : undefined;
    workload.contribution = contribution;
    const after = contribution?.claims ?? NO_CLAIMS;
    for (const claim of before) {
      keys.add(claim.key);
      if (!after.some((c) => c.key === claim.key)) this.#unclaim(claim.key, workload);
    }
    for (const claim of after) {
      keys.add(claim.key);
      if (!before.some((c) => c.key === claim.key)) this.#claim(claim.key, workload);
    }
    const reports = (contribution?.skipped.length ?? 0) + (contribution?.warnings.length ?? 0) > 0;
    if (reports || this.#reported.has(workload)) this.#listsStale = true;
    if (reports) this.#reported.add(workload);
    else this.#reported.delete(workload);
    if (workload.members.length === 0) this.#workloads.delete(workload.id);
  }

  #claim(key: string, workload: TrackedWorkload): void {
    const current = this.#claimants.get(key);
    if (!current) this.#claimants.set(key, workload);
    else if (Array.isArray(current)) current.push(workload);
    else this.#claimants.set(key, [current, workload]);
  }

  #unclaim(key: string, workload: TrackedWorkload): void {
    const current = this.#claimants.get(key);
    if (current === workload) this.#claimants.delete(key);
    else if (Array.isArray(current)) {
      const rest = current.filter((w) => w !== workload);
      this.#claimants.set(key, rest.length === 1 ? rest[0]! : rest);
    }
  }

  /** Brings one key's record, held status and conflict up to date, noting it when its record or hold changed. */
  #settle(key: string): void {
    const current = this.#claimants.get(key);
    const workloads = current === undefined ? [] : Array.isArray(current) ? current : [current];
    const claimants = workloads.map((w) => ({ workload: w.ref, claim: w.contribution!.claims.find((c) => c.key === key)! }));
    const settled = settleKey(key, claimants);
    const before = this.#records.get(key);
    const wasHeld = this.#held.has(key);
    const record = settled && "record" in settled ? settled.record : undefined;
    const held = settled !== undefined && !("record" in settled);
    if (record) this.#records.set(key, record);
    else this.#records.delete(key);
    if (held) this.#held.add(key);
    else this.#held.delete(key);
    const conflict = settled && "conflict" in settled ? settled.conflict : undefined;
    if (conflict) this.#conflicts.set(key, conflict);
    else this.#conflicts.delete(key);
    // The key names the environments: an equal entry under it is an equal record for the service.
    const recordChanged = before !== record && (!before || !record || !sameEntry(before.entry, record.entry));
    if ((recordChanged || wasHeld !== held) && this.#changed !== "all") this.#changed.add(key);
  }

  #collectLists(): void {
    this.#listsStale = false;
    const skipped: SkippedItem[] = [];
    const warnings: (AnnotationWarning & { subject: string })[] = [];
    for (const workload of this.#reported) {
      skipped.push(...(workload.contribution?.skipped ?? []));
      warnings.push(...(workload.contribution?.warnings ?? []));
    }
    skipped.push(...this.#unresolved.values());
    this.#skipped = skipped;
    this.#warnings = warnings;
  }
}

// Most lists here are short (a workload's few pods, an owner's few dependents) and there are many of them: V8 gives
// a short array that is pushed to 16 spare slots, so short lists are copied at their exact size instead.
const SHORT = 16;

/** `list` with `item` appended (a new array while the list is short). */
function added(list: Source[], item: Source): Source[] {
  if (list.length < SHORT) return list.concat([item]);
  list.push(item);
  return list;
}

/** `list` without list[at], the last element moved into its place (and told its new position). */
function removed(list: Source[], at: number, moved: (source: Source, at: number) => void): Source[] {
  if (at < 0) return list;
  const last = list.pop()!;
  if (at < list.length) {
    list[at] = last;
    moved(last, at);
  }
  return list.length < SHORT ? list.slice() : list;
}
