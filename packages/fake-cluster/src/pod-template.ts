import type { KubeObject, OwnerReference } from "./kube-object.js";
import type { Pod, PodSpec, PodTemplate } from "./object-kinds.js";

/** Builds a pod from a workload's pod template. */
export function podFromTemplate(
  template: PodTemplate | undefined,
  options: {
    namespace: string;
    name: string;
    owner: OwnerReference;
    labels?: Record<string, string>;
    nodeName?: string;
    hostname?: string;
    subdomain?: string;
  },
): Pod {
  const meta = template?.metadata ?? {};
  const spec: PodSpec = { ...template?.spec };
  if (options.nodeName) spec.nodeName = options.nodeName;
  if (options.hostname) spec.hostname = options.hostname;
  if (options.subdomain) spec.subdomain = options.subdomain;
  const metadata: KubeObject["metadata"] = {
    name: options.name,
    namespace: options.namespace,
    labels: { ...meta.labels, ...options.labels },
    ownerReferences: [options.owner],
  };
  if (meta.annotations) metadata.annotations = { ...meta.annotations };
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

/** True for pods counted as live replicas: not terminating, not finished. */
export function isActivePod(pod: Pod): boolean {
  return !pod.metadata.deletionTimestamp && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";
}

/** True for Running pods with the Ready condition. */
export function isReadyPod(pod: Pod): boolean {
  return pod.status?.phase === "Running" && (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/** Writes only when the new status differs, so reconciles settle. */
export function statusChanged(before: unknown, after: unknown): boolean {
  return JSON.stringify(before ?? {}) !== JSON.stringify(after ?? {});
}
