import type { KubeObject } from "./kube-object.js";
import type { Deployment, PodTemplate, ReplicaSet } from "./object-kinds.js";
import { templateHash } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import type { GarbageCollector } from "./garbage-collector.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { statusChanged } from "./pod-template.js";
import type { ReplicaCounts, RollingUpdateSettings } from "./rolling-update.js";
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  newReplicaSetTarget,
  oldReplicaSetTargets,
  resolveFenceposts,
  scaledValue,
} from "./rolling-update.js";

const REVISION = "deployment.kubernetes.io/revision";
const DESIRED = "deployment.kubernetes.io/desired-replicas";
const MAX = "deployment.kubernetes.io/max-replicas";
const HASH = "pod-template-hash";

const revisionOf = (rs: KubeObject) => Number(rs.metadata.annotations?.[REVISION] ?? 0);
const counts = (rs: ReplicaSet): ReplicaCounts => ({ replicas: rs.spec?.replicas ?? 0, available: rs.status?.availableReplicas ?? 0 });
/** Oldest first, as the real controller orders ReplicaSets (creation time, then name). */
const byCreation = (a: KubeObject, b: KubeObject) =>
  (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
  revisionOf(a) - revisionOf(b) ||
  a.metadata.name!.localeCompare(b.metadata.name!);

/** The rolling-update settings of a Deployment, or undefined for Recreate. */
function rollingSettings(d: Deployment): RollingUpdateSettings | undefined {
  const strategy = d.spec?.strategy;
  if (strategy?.type === "Recreate") return undefined;
  return {
    maxSurge: strategy?.rollingUpdate?.maxSurge ?? DEFAULT_MAX_SURGE,
    maxUnavailable: strategy?.rollingUpdate?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
  };
}

/**
 * Deployment controller, stepping as kube-controller-manager does. RollingUpdate: a template change creates the
 * ReplicaSet `<deploy>-<pod-template-hash>` only as large as maxSurge allows (total pods <= replicas + maxSurge),
 * old ReplicaSets shrink as new pods become available (at least replicas - maxUnavailable stay available), one
 * step per reconcile, each step triggered by the ReplicaSet status it waits for. Recreate: old ReplicaSets go to 0,
 * and once their pods are gone the new one is created at full size. Old ReplicaSets beyond revisionHistoryLimit
 * are deleted.
 */
export class DeploymentController {
  /** pod-template-hash by Deployment key, for the uid and generation it was computed at (the template is in the spec). */
  private readonly hashes = new Map<string, { uid: string; generation: number; hash: string }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
  ) {}

  /** Reconciles one Deployment. */
  sync(namespace: string, name: string): void {
    const d = this.store.get("deployments", namespace, name);
    if (!d || d.metadata.deletionTimestamp) {
      if (d === undefined) this.hashes.delete(`${namespace}/${name}`);
      return;
    }
    const hash = this.hashOf(d);
    const desired: number = d.spec?.replicas ?? 1;
    const owned = controlledBy(this.store, d, "replicasets");
    const newRs = owned.find((rs) => rs.metadata.labels?.[HASH] === hash);
    const old = owned.filter((rs) => rs !== newRs).sort(byCreation);
    const settings = rollingSettings(d);

    if (!d.spec?.paused) {
      if (settings) this.rollingStep(d, hash, desired, settings, newRs, old);
      else this.recreateStep(d, hash, desired, newRs, old);
      this.pruneHistory(d, old);
    }
    this.writeStatus(namespace, name, hash, desired, settings);
  }

  /** The pod-template-hash, computed once per generation (a template change is a spec change: a new generation). */
  private hashOf(d: Deployment): string {
    const key = `${d.metadata.namespace}/${d.metadata.name}`;
    const uid = d.metadata.uid!;
    const generation = d.metadata.generation ?? 0;
    const known = this.hashes.get(key);
    if (known?.uid === uid && known.generation === generation) return known.hash;
    const hash = templateHash(d.spec?.template ?? {});
    this.hashes.set(key, { uid, generation, hash });
    return hash;
  }

  /** One step of a rolling update: create or grow the new ReplicaSet if the surge allows, else shrink old ones. */
  private rollingStep(
    d: Deployment,
    hash: string,
    desired: number,
    settings: RollingUpdateSettings,
    newRs: ReplicaSet | undefined,
    old: ReplicaSet[],
  ): void {
    const maxReplicas = desired + scaledValue(settings.maxSurge, desired, true);
    const oldCounts = old.map(counts);
    const maxRevision = Math.max(0, ...old.map(revisionOf), newRs ? revisionOf(newRs) : 0);
    if (!newRs) {
      this.createReplicaSet(
        d,
        hash,
        newReplicaSetTarget(settings, desired, { replicas: 0, available: 0 }, oldCounts),
        maxRevision + 1,
        desired,
        maxReplicas,
      );
      return;
    }
    const current = counts(newRs);
    const target = current.replicas > desired ? desired : newReplicaSetTarget(settings, desired, current, oldCounts);
    const revision = revisionOf(newRs) < maxRevision ? maxRevision + 1 : revisionOf(newRs) || 1;
    if (target !== current.replicas || revision !== revisionOf(newRs) || newRs.metadata.annotations?.[DESIRED] !== String(desired)) {
      this.scale(newRs, target, desired, maxReplicas, revision);
      if (target !== current.replicas) return;
    }
    const targets = oldReplicaSetTargets(settings, desired, current, oldCounts);
    old.forEach((rs, i) => {
      if (targets[i] !== oldCounts[i]!.replicas) this.scale(rs, targets[i]!, desired, maxReplicas);
    });
  }

  /** One step of Recreate: old ReplicaSets to 0; once none of their pods is left, the new one at full size. */
  private recreateStep(d: Deployment, hash: string, desired: number, newRs: ReplicaSet | undefined, old: ReplicaSet[]): void {
    const active = old.filter((rs) => (rs.spec?.replicas ?? 0) > 0 && !rs.metadata.deletionTimestamp);
    if (active.length > 0) {
      for (const rs of active) this.scale(rs, 0, desired, desired);
      return;
    }
    // Terminating pods count too: Recreate guarantees old and new never run side by side.
    const oldPodsLeft = old.some((rs) =>
      controlledBy(this.store, rs, "pods").some((pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed"),
    );
    if (oldPodsLeft) return;
    const maxRevision = Math.max(0, ...old.map(revisionOf), newRs ? revisionOf(newRs) : 0);
    if (!newRs) {
      this.createReplicaSet(d, hash, desired, maxRevision + 1, desired, desired);
      return;
    }
    const revision = revisionOf(newRs) < maxRevision ? maxRevision + 1 : revisionOf(newRs) || 1;
    if ((newRs.spec?.replicas ?? 0) !== desired || revision !== revisionOf(newRs)) this.scale(newRs, desired, desired, desired, revision);
  }

  /** Sets a ReplicaSet's size with the annotations the real controller keeps on it. */
  private scale(rs: ReplicaSet, replicas: number, desired: number, maxReplicas: number, revision?: number): void {
    const annotations = {
      ...rs.metadata.annotations,
      [DESIRED]: String(desired),
      [MAX]: String(maxReplicas),
      ...(revision !== undefined && { [REVISION]: String(revision) }),
    };
    this.store.write("replicasets", { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, replicas } });
  }

  private writeStatus(namespace: string, name: string, hash: string, desired: number, settings: RollingUpdateSettings | undefined): void {
    const current = this.store.get("deployments", namespace, name)!;
    const all = controlledBy(this.store, current, "replicasets");
    const fresh = all.find((rs) => rs.metadata.labels?.[HASH] === hash);
    const sum = (f: (rs: ReplicaSet) => number) => all.reduce((n, rs) => n + f(rs), 0);
    const replicas = sum((rs) => rs.status?.replicas ?? 0);
    const available = sum((rs) => rs.status?.availableReplicas ?? 0);
    const updated = fresh?.status?.replicas ?? 0;
    const complete = updated === desired && replicas === desired && available === desired;
    // Available means "minimum availability": replicas - maxUnavailable (Recreate: all of them).
    const minAvailable = desired - (settings && desired > 0 ? resolveFenceposts(settings, desired).unavailable : 0);
    const now = this.store.clock.timestamp();
    const keepTime = (type: string, status: string) => {
      const prev = (current.status?.conditions ?? []).find((c) => c.type === type);
      return prev && prev.status === status ? prev.lastTransitionTime : now;
    };
    const availableStatus = available >= minAvailable ? "True" : "False";
    const status: Record<string, unknown> = {
      observedGeneration: current.metadata.generation ?? 1,
      replicas,
      updatedReplicas: updated,
      readyReplicas: sum((rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: available,
      conditions: [
        {
          type: "Available",
          status: availableStatus,
          reason: availableStatus === "True" ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
          message: availableStatus === "True" ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
          lastTransitionTime: keepTime("Available", availableStatus),
        },
        {
          type: "Progressing",
          status: "True",
          reason: complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
          message: `ReplicaSet "${fresh?.metadata.name ?? `${name}-${hash}`}" ${complete ? "has successfully progressed" : "is progressing"}.`,
          lastTransitionTime: keepTime("Progressing", "True"),
        },
      ],
    };
    const unavailable = sum((rs) => rs.spec?.replicas ?? 0) - available;
    if (unavailable > 0) status.unavailableReplicas = unavailable;
    // The Deployment carries its newest ReplicaSet's revision (kubectl rollout history/undo read it).
    const revision = fresh ? String(revisionOf(fresh)) : undefined;
    const annotations =
      revision && current.metadata.annotations?.[REVISION] !== revision
        ? { ...current.metadata.annotations, [REVISION]: revision }
        : undefined;
    if (annotations) this.store.write("deployments", { ...current, metadata: { ...current.metadata, annotations }, status });
    else if (statusChanged(current.status, status)) this.store.write("deployments", { ...current, status });
  }

  private createReplicaSet(
    d: Deployment,
    hash: string,
    replicas: number,
    revision: number,
    desired: number,
    maxReplicas: number,
  ): ReplicaSet | undefined {
    const namespace = d.metadata.namespace!;
    const name = `${d.metadata.name}-${hash}`;
    if (this.store.get("replicasets", namespace, name)) return undefined; // name taken by something we do not own
    const template: PodTemplate = d.spec?.template ?? {};
    const labels = { ...template.metadata?.labels, [HASH]: hash };
    return this.store.create("replicasets", {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name,
        namespace,
        labels,
        annotations: { [REVISION]: String(revision), [DESIRED]: String(desired), [MAX]: String(maxReplicas) },
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas,
        selector: { ...d.spec?.selector, matchLabels: { ...d.spec?.selector?.matchLabels, [HASH]: hash } },
        template: { ...template, metadata: { ...template.metadata, labels } },
      },
    });
  }

  private pruneHistory(d: Deployment, old: ReplicaSet[]): void {
    const limit: number = d.spec?.revisionHistoryLimit ?? 10;
    const idle = old
      .map((rs) => this.store.get("replicasets", rs.metadata.namespace, rs.metadata.name!))
      .filter(
        (rs): rs is ReplicaSet =>
          rs !== undefined && !rs.metadata.deletionTimestamp && (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0,
      )
      .sort((a, b) => Number(a.metadata.annotations?.[REVISION] ?? 0) - Number(b.metadata.annotations?.[REVISION] ?? 0));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
      this.gc.delete("replicasets", rs.metadata.namespace, rs.metadata.name!, { propagationPolicy: "Background" });
    }
  }
}
