import type { ResourceKind } from "./resource-kinds.js";
import { qualifiedResource } from "./resource-kinds.js";

/** A Kubernetes metav1.Status body. */
export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  /** ListMeta: an expired list continuation carries a token to go on from (inconsistently). */
  metadata: { continue?: string };
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: { field?: string; message: string; reason?: string }[] };
  code: number;
}

/** An error the API answers with a Status body; `code` is the HTTP status, `reason` the stable error code. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusBody["details"];
  readonly listMeta: StatusBody["metadata"];
  constructor(code: number, reason: string, message: string, details?: StatusBody["details"], listMeta: StatusBody["metadata"] = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.listMeta = listMeta;
  }

  /** The Status body for this error. */
  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: "Status",
      apiVersion: "v1",
      metadata: { ...this.listMeta },
      status: "Failure",
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** A Success Status, as the API server writes it: no code, empty fields left out. */
export interface SuccessStatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Success";
  details: { name: string; group?: string; kind: string; uid?: string };
}

/**
 * The Status DELETE answers for an object removed at once (most kinds): details name the resource (plural, in the
 * `kind` field, as the server does) and the uid; no `code`, as the registry leaves it unset.
 */
export function successStatus(kind: ResourceKind, name: string, uid: string | undefined): SuccessStatusBody {
  const details: SuccessStatusBody["details"] = { name, ...(kind.group && { group: kind.group }), kind: kind.resource };
  if (uid) details.uid = uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

/** 404 for a named object. */
export function notFound(kind: ResourceKind, name: string): ApiError {
  return new ApiError(404, "NotFound", `${qualifiedResource(kind)} "${name}" not found`, { name, group: kind.group, kind: kind.resource });
}

/** 409 on create when the name is taken. */
export function alreadyExists(kind: ResourceKind, name: string): ApiError {
  return new ApiError(409, "AlreadyExists", `${qualifiedResource(kind)} "${name}" already exists`, {
    name,
    group: kind.group,
    kind: kind.resource,
  });
}

/** 409 on an update whose resourceVersion (or precondition) is stale. */
export function conflict(
  kind: ResourceKind,
  name: string,
  why = "the object has been modified; please apply your changes to the latest version and try again",
): ApiError {
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${qualifiedResource(kind)} "${name}": ${why}`, {
    name,
    group: kind.group,
    kind: kind.resource,
  });
}

/** 422 for a field that breaks a validation rule. */
export function invalid(kind: ResourceKind, name: string, field: string, message: string): ApiError {
  return invalidObject(kind, name, [{ reason: "FieldValueInvalid", field, message }]);
}

/** 422 Invalid naming every field error, worded as apierrors.NewInvalid ("Deployment.apps "x" is invalid: [...]"). */
export function invalidObject(kind: ResourceKind, name: string, causes: { reason: string; field: string; message: string }[]): ApiError {
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const each = causes.map((c) => `${c.field}: ${c.message}`);
  const list = each.length === 1 ? each[0] : `[${each.join(", ")}]`;
  return new ApiError(422, "Invalid", `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    group: kind.group,
    kind: kind.kind,
    causes,
  });
}

/** 400 for a body or parameter the server cannot read. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

/** 410 for a resourceVersion older than the kept history (`listMeta.continue`: where a list may go on). */
export function expired(message: string, listMeta?: StatusBody["metadata"]): ApiError {
  return new ApiError(410, "Expired", message, undefined, listMeta);
}
