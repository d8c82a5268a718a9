// The autoscaling/v1 `scale` subresource of Deployments, ReplicaSets and StatefulSets: spec.replicas as a Scale.
import type { KubeObject } from "./kube-object.js";

/** The Scale view of a workload (status.selector is the selector as a string, as HPAs read it). */
export function scaleOf(obj: KubeObject): KubeObject {
  const selector = obj.spec?.selector ?? {};
  const terms = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === "Exists") terms.push(e.key);
    else if (e.operator === "DoesNotExist") terms.push(`!${e.key}`);
    else terms.push(`${e.key} ${e.operator === "In" ? "in" : "notin"} (${(e.values ?? []).join(",")})`);
  }
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: { replicas: obj.status?.replicas ?? 0, selector: terms.sort().join(",") },
  };
}
