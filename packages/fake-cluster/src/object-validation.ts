import type { KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";
import { resourceKind } from "./resource-kinds.js";
import { badRequest, invalid } from "./status.js";

const kind = (resource: ResourceName) => resourceKind(resource)!;

// metav1.MicroTime wire format (RFC3339 with exactly six fractional digits); the real server rejects others.
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

function validatePodSpec(resource: ResourceName, obj: KubeObject, spec: any, path: string): void {
  const name = obj.metadata.name ?? "";
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) throw invalid(kind(resource), name, `${path}.containers`, "Required value");
  for (const field of ["containers", "initContainers", "ephemeralContainers"]) {
    const list = spec[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw invalid(kind(resource), name, `${path}.${field}`, "must be an array");
    list.forEach((c: any, i: number) => {
      if (typeof c?.name !== "string" || c.name === "") throw invalid(kind(resource), name, `${path}.${field}[${i}].name`, "Required value");
      if (typeof c.image !== "string" || c.image.trim() === "") throw invalid(kind(resource), name, `${path}.${field}[${i}].image`, "Required value");
    });
  }
}

/** Checks what the real API server would reject before anything is stored (400 for undecodable, 422 invalid). */
export function validateObject(resource: ResourceName, obj: KubeObject): void {
  if (obj.metadata === null || typeof obj.metadata !== "object") throw badRequest(`${kind(resource).kind}: metadata must be an object`);
  switch (resource) {
    case "pods":
      validatePodSpec(resource, obj, obj.spec, "spec");
      break;
    case "deployments":
    case "replicasets":
    case "statefulsets":
    case "daemonsets":
    case "jobs":
      validatePodSpec(resource, obj, obj.spec?.template?.spec, "spec.template.spec");
      break;
    case "cronjobs":
      validatePodSpec(resource, obj, obj.spec?.jobTemplate?.spec?.template?.spec, "spec.jobTemplate.spec.template.spec");
      break;
    case "leases":
      for (const field of ["acquireTime", "renewTime"]) {
        const value = obj.spec?.[field];
        if (value === undefined || value === null) continue;
        if (typeof value !== "string" || !MICRO_TIME.test(value)) {
          throw badRequest(
            `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": spec.${field} must have exactly 6 fractional digits`,
          );
        }
      }
      break;
    case "configmaps":
      for (const [k, v] of Object.entries(obj.data ?? {})) {
        if (typeof v !== "string") throw badRequest(`ConfigMap in version "v1" cannot be handled as a ConfigMap: data.${k} must be a string`);
      }
      break;
    default:
      break;
  }
}
