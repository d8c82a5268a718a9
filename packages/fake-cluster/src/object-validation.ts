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

const PERCENT = /^[0-9]+%$/;

/** A Deployment's strategy as apps/v1 validation has it (intstr counts or percentages, not both zero). */
function validateDeploymentStrategy(obj: KubeObject): void {
  const name = obj.metadata.name ?? "";
  const strategy = obj.spec?.strategy;
  if (strategy === undefined || strategy === null) return;
  const path = "spec.strategy";
  if (strategy.type !== undefined && strategy.type !== "RollingUpdate" && strategy.type !== "Recreate") {
    throw invalid(kind("deployments"), name, `${path}.type`, `Unsupported value: "${String(strategy.type)}": supported values: "Recreate", "RollingUpdate"`);
  }
  const rolling = strategy.rollingUpdate;
  if (rolling === undefined || rolling === null) return;
  if (strategy.type === "Recreate") throw invalid(kind("deployments"), name, `${path}.rollingUpdate`, "Forbidden: may not be specified when strategy `type` is 'Recreate'");
  const zero = (field: "maxSurge" | "maxUnavailable") => {
    const value = rolling[field];
    if (value === undefined || value === null) return false;
    const where = `${path}.rollingUpdate.${field}`;
    if (typeof value === "number") {
      if (!Number.isInteger(value) || value < 0) throw invalid(kind("deployments"), name, where, `Invalid value: ${value}: must be greater than or equal to 0`);
      return value === 0;
    }
    if (typeof value !== "string" || !PERCENT.test(value)) {
      throw invalid(kind("deployments"), name, where, `Invalid value: ${JSON.stringify(value)}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`);
    }
    if (field === "maxUnavailable" && Number.parseInt(value, 10) > 100) throw invalid(kind("deployments"), name, where, `Invalid value: ${JSON.stringify(value)}: must not be greater than 100%`);
    return Number.parseInt(value, 10) === 0;
  };
  const surgeZero = zero("maxSurge");
  const unavailableZero = zero("maxUnavailable");
  if (surgeZero && unavailableZero) {
    throw invalid(kind("deployments"), name, `${path}.rollingUpdate.maxUnavailable`, "Invalid value: 0: may not be 0 when `maxSurge` is 0");
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
      validateDeploymentStrategy(obj);
      validatePodSpec(resource, obj, obj.spec?.template?.spec, "spec.template.spec");
      break;
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
