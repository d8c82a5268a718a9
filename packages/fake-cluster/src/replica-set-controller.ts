import type { ObjectStore } from "./object-store.js";
import type { GarbageCollector } from "./garbage-collector.js";
import type { NameGenerator } from "./name-generator.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { isActivePod, isReadyPod, podFromTemplate, statusChanged } from "./pod-template.js";
import type { KubeObject } from "./kube-object.js";

/** Deletion preference when scaling down: unscheduled, then pending, then not ready, then newest first. */
function deletionRank(pod: KubeObject): number {
  if (!pod.spec?.nodeName) return 0;
  if (pod.status?.phase === "Pending") return 1;
  if (!isReadyPod(pod)) return 2;
  return 3;
}

/** ReplicaSet controller: keeps spec.replicas active pods named `<rs>-<5 random>`, reports status. */
export class ReplicaSetController {
  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
    private readonly names: NameGenerator,
  ) {}

  /** Reconciles one ReplicaSet ("namespace/name"). */
  sync(namespace: string, name: string): void {
    const rs = this.store.get("replicasets", namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = controlledBy(this.store, rs, "pods").filter(isActivePod);
    const desired = rs.spec?.replicas ?? 1;
    if (pods.length < desired) {
      for (let i = pods.length; i < desired; i++) {
        const base = `${name}-`.slice(0, 58);
        let podName = `${base}${this.names.suffix()}`;
        while (this.store.get("pods", namespace, podName)) podName = `${base}${this.names.suffix()}`;
        pods.push(this.store.create("pods", podFromTemplate(rs.spec?.template, { namespace, name: podName, owner: controllerRef(rs) })));
      }
    } else if (pods.length > desired) {
      const surplus = [...pods]
        .sort(
          (a, b) =>
            deletionRank(a) - deletionRank(b) ||
            (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "") ||
            b.metadata.name!.localeCompare(a.metadata.name!),
        )
        .slice(0, pods.length - desired);
      for (const pod of surplus) this.gc.delete("pods", namespace, pod.metadata.name!, { propagationPolicy: "Background" });
    }
    const current = this.store.get("replicasets", namespace, name)!;
    const live = controlledBy(this.store, current, "pods").filter(isActivePod);
    const ready = live.filter(isReadyPod).length;
    const status = {
      replicas: live.length,
      fullyLabeledReplicas: live.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: current.metadata.generation ?? 1,
    };
    if (statusChanged(current.status, status)) this.store.write("replicasets", { ...current, status });
  }
}
