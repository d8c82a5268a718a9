import type { ControlLoop } from "./control-loop.js";
import { DaemonSetController } from "./daemon-set-controller.js";
import { DeploymentController } from "./deployment-controller.js";
import type { GarbageCollector } from "./garbage-collector.js";
import type { StoreEvent } from "./history-log.js";
import { JobController } from "./job-controller.js";
import type { NameGenerator } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import { controllerOf } from "./owner-references.js";
import { ReplicaSetController } from "./replica-set-controller.js";
import { resourceForKind } from "./resource-kinds.js";
import { StatefulSetController } from "./stateful-set-controller.js";

const splitKey = (key: string): [string, string] => {
  const i = key.indexOf("/");
  return [key.slice(0, i), key.slice(i + 1)];
};

/**
 * The in-process controller manager: routes store events to the Deployment, ReplicaSet, StatefulSet, DaemonSet,
 * Job and CronJob controllers through the control loop (an object's change queues itself and its controller).
 */
export class WorkloadSimulator {
  readonly deployments: DeploymentController;
  readonly replicaSets: ReplicaSetController;
  readonly statefulSets: StatefulSetController;
  readonly daemonSets: DaemonSetController;
  readonly jobs: JobController;

  constructor(
    private readonly store: ObjectStore,
    private readonly loop: ControlLoop,
    gc: GarbageCollector,
    names: NameGenerator,
  ) {
    this.deployments = new DeploymentController(store, gc);
    this.replicaSets = new ReplicaSetController(store, gc, names);
    this.statefulSets = new StatefulSetController(store, gc);
    this.daemonSets = new DaemonSetController(store, gc, names);
    this.jobs = new JobController(store, gc, names);
    loop.handle("replicasets", (k) => this.replicaSets.sync(...splitKey(k)));
    loop.handle("statefulsets", (k) => this.statefulSets.sync(...splitKey(k)));
    loop.handle("daemonsets", (k) => this.daemonSets.sync(...splitKey(k)));
    loop.handle("jobs", (k) => this.jobs.syncJob(...splitKey(k)));
    loop.handle("deployments", (k) => this.deployments.sync(...splitKey(k)));
    loop.handle("cronjobs", (k) => this.jobs.syncCronJob(...splitKey(k)));
    store.subscribe((e) => this.observe(e));
  }

  private observe(e: StoreEvent): void {
    const { resource } = e;
    if (resource === "nodes") {
      for (const ds of this.store.values("daemonsets")) this.loop.enqueue("daemonsets", `${ds.metadata.namespace}/${ds.metadata.name}`);
      return;
    }
    if (
      resource === "deployments" ||
      resource === "replicasets" ||
      resource === "statefulsets" ||
      resource === "daemonsets" ||
      resource === "jobs" ||
      resource === "cronjobs"
    ) {
      this.loop.enqueue(resource, `${e.object.metadata.namespace}/${e.object.metadata.name}`);
    }
    // The controller of the object (before and after the change) reconciles too.
    for (const obj of [e.prev, e.object]) {
      const ref = obj && controllerOf(obj);
      const owner = ref && resourceForKind(ref.kind);
      if (owner && obj) this.loop.enqueue(owner.resource, `${obj.metadata.namespace}/${ref.name}`);
    }
  }
}
