import type { KubeObject } from "./kube-object.js";
import { templateHash } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import { nowTimestamp } from "./object-store.js";
import type { GarbageCollector } from "./garbage-collector.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { statusChanged } from "./pod-template.js";

const REVISION = "deployment.kubernetes.io/revision";
const HASH = "pod-template-hash";

/**
 * Deployment controller. A template change creates a ReplicaSet `<deploy>-<pod-template-hash>` at full size; once
 * all its pods are ready the old ReplicaSets are scaled to 0 (Recreate: old ones to 0 first). Old ReplicaSets
 * beyond revisionHistoryLimit are deleted.
 */
export class DeploymentController {
  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
  ) {}

  /** Reconciles one Deployment. */
  sync(namespace: string, name: string): void {
    const d = this.store.get("deployments", namespace, name);
    if (!d || d.metadata.deletionTimestamp) return;
    const template = d.spec?.template ?? {};
    const hash = templateHash(template);
    const desired: number = d.spec?.replicas ?? 1;
    const owned = controlledBy(this.store, d, "replicasets");
    let newRs = owned.find((rs) => rs.metadata.labels?.[HASH] === hash);
    const old = owned.filter((rs) => rs !== newRs);
    const maxRevision = Math.max(0, ...owned.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0)));
    const recreate = d.spec?.strategy?.type === "Recreate";

    if (!d.spec?.paused) {
      if (!newRs) {
        const oldRunning = old.some((rs) => (rs.spec?.replicas ?? 0) > 0 || (rs.status?.replicas ?? 0) > 0);
        if (recreate && oldRunning) {
          this.scaleToZero(old);
        } else {
          newRs = this.createReplicaSet(d, hash, desired, maxRevision + 1);
        }
      } else {
        if ((newRs.spec?.replicas ?? 0) !== desired || Number(newRs.metadata.annotations?.[REVISION] ?? 0) < maxRevision) {
          const revision = Number(newRs.metadata.annotations?.[REVISION] ?? 0) < maxRevision ? maxRevision + 1 : Number(newRs.metadata.annotations?.[REVISION] ?? 1);
          newRs = this.store.write("replicasets", {
            ...newRs,
            metadata: { ...newRs.metadata, annotations: { ...newRs.metadata.annotations, [REVISION]: String(revision), "deployment.kubernetes.io/desired-replicas": String(desired) } },
            spec: { ...newRs.spec, replicas: desired },
          });
        }
        const newReady = newRs.status?.readyReplicas ?? 0;
        if (newReady >= desired && newRs.status?.observedGeneration === newRs.metadata.generation) this.scaleToZero(old);
      }
      this.pruneHistory(d, old);
    }

    const current = this.store.get("deployments", namespace, name)!;
    const all = controlledBy(this.store, current, "replicasets");
    const fresh = all.find((rs) => rs.metadata.labels?.[HASH] === hash);
    const sum = (f: (rs: KubeObject) => number) => all.reduce((n, rs) => n + f(rs), 0);
    const replicas = sum((rs) => rs.status?.replicas ?? 0);
    const available = sum((rs) => rs.status?.availableReplicas ?? 0);
    const updated = fresh?.status?.replicas ?? 0;
    const complete = updated === desired && replicas === desired && available >= desired;
    const now = nowTimestamp();
    const keepTime = (type: string, status: string) => {
      const prev = (current.status?.conditions ?? []).find((c: any) => c.type === type);
      return prev && prev.status === status ? prev.lastTransitionTime : now;
    };
    const availableStatus = available >= desired ? "True" : "False";
    const status: Record<string, unknown> = {
      observedGeneration: current.metadata.generation ?? 1,
      replicas,
      updatedReplicas: updated,
      readyReplicas: sum((rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: available,
      conditions: [
        { type: "Available", status: availableStatus, reason: available >= desired ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable", lastTransitionTime: keepTime("Available", availableStatus) },
        {
          type: "Progressing",
          status: "True",
          reason: complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
          message: `ReplicaSet "${fresh?.metadata.name ?? `${name}-${hash}`}" ${complete ? "has successfully progressed" : "is progressing"}.`,
          lastTransitionTime: keepTime("Progressing", "True"),
        },
      ],
    };
    if (desired - available > 0) status.unavailableReplicas = desired - available;
    if (statusChanged(current.status, status)) this.store.write("deployments", { ...current, status });
  }

  private createReplicaSet(d: KubeObject, hash: string, replicas: number, revision: number): KubeObject | undefined {
    const namespace = d.metadata.namespace!;
    const name = `${d.metadata.name}-${hash}`;
    if (this.store.get("replicasets", namespace, name)) return undefined; // name taken by something we do not own
    const template = d.spec?.template ?? {};
    const labels = { ...template.metadata?.labels, [HASH]: hash };
    return this.store.create("replicasets", {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name,
        namespace,
        labels,
        annotations: { [REVISION]: String(revision), "deployment.kubernetes.io/desired-replicas": String(replicas), "deployment.kubernetes.io/max-replicas": String(replicas) },
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas,
        selector: { ...d.spec?.selector, matchLabels: { ...d.spec?.selector?.matchLabels, [HASH]: hash } },
        template: { ...template, metadata: { ...template.metadata, labels } },
      },
    });
  }

  private scaleToZero(replicaSets: KubeObject[]): void {
    for (const rs of replicaSets) {
      if ((rs.spec?.replicas ?? 0) !== 0 && !rs.metadata.deletionTimestamp) this.store.write("replicasets", { ...rs, spec: { ...rs.spec, replicas: 0 } });
    }
  }

  private pruneHistory(d: KubeObject, old: KubeObject[]): void {
    const limit: number = d.spec?.revisionHistoryLimit ?? 10;
    const idle = old
      .map((rs) => this.store.get("replicasets", rs.metadata.namespace, rs.metadata.name!))
      .filter((rs): rs is KubeObject => rs !== undefined && !rs.metadata.deletionTimestamp && (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0)
      .sort((a, b) => Number(a.metadata.annotations?.[REVISION] ?? 0) - Number(b.metadata.annotations?.[REVISION] ?? 0));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
      this.gc.delete("replicasets", rs.metadata.namespace, rs.metadata.name!, { propagationPolicy: "Background" });
    }
  }
}
