// The autoscaling/v1 `scale` subresource of Deployments, ReplicaSets and StatefulSets: spec.replicas as a Scale.
import type { KubeObject } from "./kube-object.js";
import { formatLabelSelector } from "./selectors.js";

/** The Scale view of a workload (status.selector is the selector as a string, as HPAs read it). */
export function scaleOf(obj: KubeObject): KubeObject {
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
