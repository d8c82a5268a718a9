// The autoscaling/v1 `scale` subresource of Deployments, ReplicaSets and StatefulSets: spec.replicas as a Scale.
import type { KubeObject } from "./kube-object.js";
import type { Workload } from "./object-kinds.js";
import { formatLabelSelector } from "./selectors.js";

/** autoscaling/v1 Scale. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas: number; selector: string };
}

/** The Scale view of a workload (status.selector is the selector as a string, as HPAs read it). */
export function scaleOf(obj: Workload): Scale {
  const selector = formatLabelSelector(obj.spec?.selector);
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: { replicas: obj.status?.replicas ?? 0, selector: selector === "<none>" ? "" : selector },
  };
}
