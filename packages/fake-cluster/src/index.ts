// The public surface of @shiplog/fake-cluster: start and stop it, script workloads, inject faults, read its objects.
// Its own tests reach internals through relative `dist/` paths; nothing else needs them.
export { startFakeCluster } from "./fake-cluster.js";
export type { FakeCluster, FakeClusterOptions, ClusterStore } from "./fake-cluster.js";
export type { ClusterScript, WorkloadSpec, PodSpec, JobSpec, CronJobSpec, ContainerSpec } from "./scripting.js";
export type { ClusterFaults } from "./faults.js";
export type { KubeObject, ObjectMeta, OwnerReference } from "./kube-object.js";
export type { ResourceName, PropagationPolicy } from "./resource-kinds.js";
export type { DeleteOptions } from "./garbage-collector.js";
export type { KubeconfigObject } from "./kubeconfig.js";
