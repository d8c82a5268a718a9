import type { GarbageCollector } from "./garbage-collector.js";
import type { KubeObject } from "./kube-object.js";
import { templateHash } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { isReadyPod, podFromTemplate, statusChanged } from "./pod-template.js";

const REVISION = "controller-revision-hash";

/**
 * StatefulSet controller: pods `<name>-0..n-1` created in order (each once the previous is ready, unless
 * podManagementPolicy Parallel), removed from the highest ordinal, and updated one pod at a time from the highest
 * ordinal (delete, then recreate from the new template).
 */
export class StatefulSetController {
  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
  ) {}

  /** Reconciles one StatefulSet. */
  sync(namespace: string, name: string): void {
    const sts = this.store.get("statefulsets", namespace, name);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const replicas: number = sts.spec?.replicas ?? 1;
    const parallel = sts.spec?.podManagementPolicy === "Parallel";
    const revision = `${name}-${templateHash(sts.spec?.template ?? {})}`;
    const byOrdinal = new Map<number, KubeObject>();
    for (const pod of controlledBy(this.store, sts, "pods")) {
      const ordinal = Number(pod.metadata.name!.slice(name.length + 1));
      if (Number.isInteger(ordinal)) byOrdinal.set(ordinal, pod);
    }
    const terminating = [...byOrdinal.values()].some((p) => p.metadata.deletionTimestamp);

    // Scale down from the top.
    const extra = [...byOrdinal.keys()].filter((o) => o >= replicas).sort((a, b) => b - a);
    for (const ordinal of parallel ? extra : extra.slice(0, 1)) {
      const pod = byOrdinal.get(ordinal)!;
      if (!pod.metadata.deletionTimestamp) this.gc.delete("pods", namespace, pod.metadata.name!, { propagationPolicy: "Background" });
    }
    // Create missing ordinals in order.
    for (let ordinal = 0; ordinal < replicas; ordinal++) {
      if (byOrdinal.has(ordinal)) {
        if (!parallel && !isReadyPod(byOrdinal.get(ordinal)!)) break;
        continue;
      }
      const podName = `${name}-${ordinal}`;
      const pod = podFromTemplate(sts.spec?.template, {
        namespace,
        name: podName,
        owner: controllerRef(sts),
        labels: { [REVISION]: revision, "statefulset.kubernetes.io/pod-name": podName, "apps.kubernetes.io/pod-index": String(ordinal) },
        hostname: podName,
        ...(sts.spec?.serviceName ? { subdomain: sts.spec.serviceName } : {}),
      });
      byOrdinal.set(ordinal, this.store.create("pods", pod));
      if (!parallel) break;
    }
    // Rolling update: one outdated pod at a time, highest ordinal first, while everything else is ready.
    if (sts.spec?.updateStrategy?.type !== "OnDelete" && !terminating) {
      const inRange = [...byOrdinal.entries()].filter(([o]) => o < replicas);
      const allReady = inRange.length === replicas && inRange.every(([, p]) => isReadyPod(p));
      const outdated = inRange.filter(([, p]) => p.metadata.labels?.[REVISION] !== revision).sort((a, b) => b[0] - a[0]);
      if (allReady && outdated[0]) this.gc.delete("pods", namespace, outdated[0][1].metadata.name!, { propagationPolicy: "Background" });
    }

    const current = this.store.get("statefulsets", namespace, name)!;
    const pods = controlledBy(this.store, current, "pods").filter((p) => !p.metadata.deletionTimestamp);
    const ready = pods.filter(isReadyPod).length;
    const updated = pods.filter((p) => p.metadata.labels?.[REVISION] === revision).length;
    const status = {
      observedGeneration: current.metadata.generation ?? 1,
      replicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      currentReplicas: updated === pods.length ? pods.length : pods.length - updated,
      updatedReplicas: updated,
      currentRevision: updated === pods.length ? revision : (current.status?.currentRevision ?? revision),
      updateRevision: revision,
      collisionCount: 0,
    };
    if (statusChanged(current.status, status)) this.store.write("statefulsets", { ...current, status });
  }
}
