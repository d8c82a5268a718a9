import type { KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";

/**
 * What the real API server does to an object on create beyond metadata: status is owned by controllers (pods
 * start Pending), Jobs get their controller-uid selector and labels, workloads get spec defaults.
 */
export function applyCreateDefaults(resource: ResourceName, obj: KubeObject): KubeObject {
  switch (resource) {
    case "pods":
      return { ...obj, spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 30, ...obj.spec }, status: { phase: "Pending", qosClass: "BestEffort" } };
    case "namespaces":
      return { ...obj, spec: { finalizers: ["kubernetes"], ...obj.spec }, status: { phase: "Active" } };
    case "deployments":
      return {
        ...obj,
        spec: { replicas: 1, revisionHistoryLimit: 10, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } }, ...obj.spec },
        status: {},
      };
    case "replicasets":
      return { ...obj, spec: { replicas: 1, ...obj.spec }, status: { replicas: 0 } };
    case "statefulsets":
      return { ...obj, spec: { replicas: 1, podManagementPolicy: "OrderedReady", updateStrategy: { type: "RollingUpdate" }, ...obj.spec }, status: { replicas: 0 } };
    case "daemonsets":
      return { ...obj, spec: { updateStrategy: { type: "RollingUpdate" }, ...obj.spec }, status: { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 } };
    case "cronjobs":
      return { ...obj, spec: { successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, suspend: false, concurrencyPolicy: "Allow", ...obj.spec }, status: {} };
    case "jobs":
      return jobDefaults(obj);
    default:
      return obj;
  }
}

function jobDefaults(obj: KubeObject): KubeObject {
  const uid = obj.metadata.uid!;
  const name = obj.metadata.name!;
  const spec = obj.spec ?? {};
  const template = spec.template ?? {};
  const jobLabels = { "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name };
  return {
    ...obj,
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      ...spec,
      selector: spec.selector ?? { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...jobLabels } } },
    },
    status: {},
  };
}
