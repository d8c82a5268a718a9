// The API server's checks of a write, kind by kind: decoding (wrong types 400, unknown fields dropped or refused)
// and validation (422 with every field error). Pure: plain objects in, errors out.
import type { KubeObject } from "../kube-object.js";
import type { CronJob, Job, Lease, Pod, Workload } from "../object-kinds.js";
import type { ResourceName } from "../resource-kinds.js";
import { validateConfigMap, validateConfigMapUpdate } from "./config-map.js";
import type { FieldError } from "./field-errors.js";
import { invalidValue } from "./field-errors.js";
import { schemaOf } from "./kind-schemas.js";
import { decodeLeaseTimes, validateLease } from "./lease.js";
import { validateObjectMeta } from "./object-meta.js";
import { validatePodSpec } from "./pod-spec.js";
import type { Decoded } from "./schema.js";
import { decode } from "./schema.js";
import { validateAppsWorkload, validateAppsWorkloadUpdate, validateCronJob, validateJob, validateJobUpdate } from "./workloads.js";

export type { FieldError } from "./field-errors.js";
export { DecodeError } from "./schema.js";

/** Decodes a request body as the resource's Go type (throws DecodeError); unknown fields are removed and listed. */
export function decodeObject(resource: ResourceName, body: unknown): Decoded {
  const decoded = decode(schemaOf(resource), body);
  if (resource === "leases") decodeLeaseTimes(decoded.value as Lease);
  return decoded;
}

/** Every field error of an object about to be created (`old` undefined) or to replace `old`. */
export function validateObject(resource: ResourceName, obj: KubeObject, old?: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, resource === "namespaces" ? "label" : "subdomain");
  if (resource === "cronjobs" && (obj.metadata.name ?? "").length > 52) {
    errors.push(invalidValue("metadata.name", obj.metadata.name, "must be no more than 52 characters"));
  }
  switch (resource) {
    case "pods":
      errors.push(...validatePodSpec((obj as Pod).spec, "spec", ["Always", "OnFailure", "Never"]));
      break;
    case "deployments":
    case "replicasets":
    case "statefulsets":
    case "daemonsets":
      errors.push(...validateAppsWorkload(resource, obj as Workload));
      if (old) errors.push(...validateAppsWorkloadUpdate(obj as Workload, old as Workload));
      break;
    case "jobs":
      errors.push(...validateJob(obj as Job));
      if (old) errors.push(...validateJobUpdate(obj as Job, old as Job));
      break;
    case "cronjobs":
      errors.push(...validateCronJob(obj as CronJob));
      break;
    case "leases":
      errors.push(...validateLease(obj as Lease));
      break;
    case "configmaps":
      errors.push(...validateConfigMap(obj));
      if (old) errors.push(...validateConfigMapUpdate(obj, old));
      break;
    default:
      break;
  }
  return errors;
}
