import type { GarbageCollector } from "./garbage-collector.js";
import type { KubeObject } from "./kube-object.js";
import type { NameGenerator } from "./name-generator.js";
import { templateHash } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { isReadyPod, podFromTemplate, statusChanged } from "./pod-template.js";

const REVISION = "controller-revision-hash";

/** DaemonSet controller: one pod `<ds>-<5 random>` per node; template changes replace pods one node at a time. */
export class DaemonSetController {
  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
    private readonly names: NameGenerator,
  ) {}

  /** Reconciles one DaemonSet. */
  sync(namespace: string, name: string): void {
    const ds = this.store.get("daemonsets", namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const revision = templateHash(ds.spec?.template ?? {});
    const nodes = [...this.store.values("nodes")].map((n) => n.metadata.name!);
    const podsByNode = new Map<string, KubeObject[]>();
    for (const pod of controlledBy(this.store, ds, "pods")) {
      const node = pod.spec?.nodeName ?? "";
      podsByNode.set(node, [...(podsByNode.get(node) ?? []), pod]);
    }
    for (const [node, pods] of podsByNode) {
      if (!nodes.includes(node))
        for (const p of pods)
          if (!p.metadata.deletionTimestamp) this.gc.delete("pods", namespace, p.metadata.name!, { propagationPolicy: "Background" });
    }
    for (const node of nodes) {
      if ((podsByNode.get(node) ?? []).length > 0) continue;
      let podName = `${name}-${this.names.suffix()}`;
      while (this.store.get("pods", namespace, podName)) podName = `${name}-${this.names.suffix()}`;
      const pod = this.store.create(
        "pods",
        podFromTemplate(ds.spec?.template, {
          namespace,
          name: podName,
          owner: controllerRef(ds),
          nodeName: node,
          labels: { [REVISION]: revision, "pod-template-generation": String(ds.metadata.generation ?? 1) },
        }),
      );
      podsByNode.set(node, [pod]);
    }
    const all = nodes.flatMap((n) => podsByNode.get(n) ?? []);
    const settled = all.every((p) => !p.metadata.deletionTimestamp && isReadyPod(p));
    const outdated = all.find((p) => p.metadata.labels?.[REVISION] !== revision);
    if (settled && outdated && ds.spec?.updateStrategy?.type !== "OnDelete") {
      this.gc.delete("pods", namespace, outdated.metadata.name!, { propagationPolicy: "Background" });
    }

    const current = this.store.get("daemonsets", namespace, name)!;
    const live = controlledBy(this.store, current, "pods").filter(
      (p) => !p.metadata.deletionTimestamp && p.spec?.nodeName !== undefined && nodes.includes(p.spec.nodeName),
    );
    const ready = live.filter(isReadyPod).length;
    const status = {
      observedGeneration: current.metadata.generation ?? 1,
      desiredNumberScheduled: nodes.length,
      currentNumberScheduled: live.length,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      updatedNumberScheduled: live.filter((p) => p.metadata.labels?.[REVISION] === revision).length,
    };
    if (statusChanged(current.status, status)) this.store.write("daemonsets", { ...current, status });
  }
}
