/** Base of every error shiplog raises: `code` is stable and safe to branch on. */
export class ShiplogError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  /** Serialises without the cause chain, which may hold request objects. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** One rule a request field broke, found before anything was sent. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `deployments[3].digest`. */
  field: string;
  /** The rule that failed, e.g. `pattern /^sha256:[a-f0-9]{64}$/`. */
  rule: string;
  message: string;
}

/** The caller's input broke a rule of the API; nothing was sent. */
export class RequestValidationError extends ShiplogError {
  declare readonly code: "invalid_request";
  readonly issues: readonly FieldIssue[];

  constructor(operation: string, issues: FieldIssue[]) {
    const lines = issues.map((i) => `  - ${i.field}: ${i.message} [rule: ${i.rule}]`).join("\n");
    super("invalid_request", `${operation}: invalid request, nothing was sent\n${lines}`);
    this.issues = issues;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), issues: this.issues };
  }
}

import { formatAcceptedPermissions, type AcceptedPermissionSet } from "./accepted-permissions.js";

/** One entry of a 422 body's `errors[]`. */
export interface ServiceFieldError {
  resource?: string;
  field?: string;
  code?: string;
  message?: string;
}

export interface ServiceErrorDetails {
  status: number;
  method: string;
  /** The path template that was called, e.g. `/orgs/{org}/artifacts/metadata/storage-record`. */
  route: string;
  serviceMessage: string;
  documentationUrl?: string;
  /** Alternatives, any one of which suffices; each lists permissions needed together. */
  acceptedPermissions: AcceptedPermissionSet[];
  requestId?: string;
  /** The answer's Date header: the service's clock, which App JWTs must agree with. */
  serviceDate?: string;
  body?: unknown;
}

/** The codes of the service's answers, one per subclass of ServiceError. */
export type ServiceErrorCode =
  | "authentication_required"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "validation_failed"
  | "rate_limited"
  | "service_unavailable"
  | "unexpected_status"
  | "retired_endpoint";

/** The service answered with an error status. Subclasses give each meaning of section 7 its own class. */
export class ServiceError extends ShiplogError {
  declare readonly code: ServiceErrorCode;
  readonly status: number;
  readonly method: string;
  readonly route: string;
  readonly serviceMessage: string;
  readonly documentationUrl: string | undefined;
  readonly acceptedPermissions: readonly AcceptedPermissionSet[];
  readonly requestId: string | undefined;
  /** The answer's Date header, if any. */
  readonly serviceDate: string | undefined;
  /** The parsed error body, for details such as the cluster endpoint's `{cause, repositories}`. */
  readonly body: unknown;

  constructor(code: ServiceErrorCode, details: ServiceErrorDetails, hint?: string) {
    const base = `${details.method} ${details.route} answered ${details.status}: ${details.serviceMessage}`;
    super(code, hint ? `${base}. ${hint}` : base);
    this.status = details.status;
    this.method = details.method;
    this.route = details.route;
    this.serviceMessage = details.serviceMessage;
    this.documentationUrl = details.documentationUrl;
    this.acceptedPermissions = details.acceptedPermissions;
    this.requestId = details.requestId;
    this.serviceDate = details.serviceDate;
    this.body = details.body;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      method: this.method,
      route: this.route,
      serviceMessage: this.serviceMessage,
      documentationUrl: this.documentationUrl,
      acceptedPermissions: this.acceptedPermissions,
      requestId: this.requestId,
    };
  }
}

/** 401: the token is missing, expired or revoked. */
export class AuthenticationError extends ServiceError {
  declare readonly code: "authentication_required";
  constructor(details: ServiceErrorDetails) {
    super("authentication_required", details, "Check that the token is present and still valid");
  }
}

/** 403 (not a rate limit): the token lacks a permission, or its type is refused. */
export class ForbiddenError extends ServiceError {
  declare readonly code: "forbidden";
  /** `tokenHint`: what the endpoint says of token types, said before the permissions it needs. */
  constructor(details: ServiceErrorDetails, tokenHint?: string) {
    super("forbidden", details, [tokenHint, permissionHint(details.acceptedPermissions)].filter(Boolean).join(". ") || undefined);
  }
}

/** 404: the resource does not exist, or the token may not see it. */
export class NotFoundError extends ServiceError {
  declare readonly code: "not_found";
  constructor(details: ServiceErrorDetails) {
    super("not_found", details);
  }
}

/** 409: the request conflicts with the resource's state (for example an empty repository). */
export class ConflictError extends ServiceError {
  declare readonly code: "conflict";
  constructor(details: ServiceErrorDetails) {
    super("conflict", details);
  }
}

/** 410: the resource is gone for good. */
export class GoneError extends ServiceError {
  declare readonly code: "gone";
  constructor(details: ServiceErrorDetails) {
    super("gone", details);
  }
}

/** 422: the service rejected the body; `errors` holds its per-field detail. */
export class ServiceValidationError extends ServiceError {
  declare readonly code: "validation_failed";
  readonly errors: readonly ServiceFieldError[];

  constructor(details: ServiceErrorDetails, errors: ServiceFieldError[]) {
    const detail = errors
      .map((e) => [e.field, e.code, e.message].filter(Boolean).join(" "))
      .filter(Boolean)
      .join("; ");
    super("validation_failed", details, detail || undefined);
    this.errors = errors;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), errors: this.errors };
  }
}

/** 403 or 429 with the rate limit exhausted, or a secondary limit; retried while the budget allows. */
export class RateLimitedError extends ServiceError {
  declare readonly code: "rate_limited";
  /** When the limit resets, if the service said. */
  readonly resetAt: Date | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(details: ServiceErrorDetails, resetAt?: Date, retryAfterSeconds?: number) {
    super("rate_limited", details, resetAt ? `Rate limit resets at ${resetAt.toISOString()}` : undefined);
    this.resetAt = resetAt;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 503 or another 5xx that outlasted the retries. */
export class UnavailableError extends ServiceError {
  declare readonly code: "service_unavailable";
  constructor(details: ServiceErrorDetails) {
    super("service_unavailable", details);
  }
}

/** A status this client has no meaning for (for example 400 for an unsupported API version). */
export class UnexpectedStatusError extends ServiceError {
  declare readonly code: "unexpected_status";
  constructor(details: ServiceErrorDetails) {
    super("unexpected_status", details);
  }
}

/** The service answered, but the body does not match the documented schema, or cannot be read at all. */
export class ResponseValidationError extends ShiplogError {
  declare readonly code: "invalid_response";
  readonly issues: readonly FieldIssue[];

  constructor(operation: string, issues: FieldIssue[], summary = "the service's response does not match its schema") {
    const lines = issues.map((i) => `  - ${i.field}: ${i.message}`).join("\n");
    super("invalid_response", `${operation}: ${summary}\n${lines}`);
    this.issues = issues;
  }
}

/** The request never got an answer: connection refused or reset, DNS failure. */
export class NetworkError extends ShiplogError {
  declare readonly code: "network_error";
  constructor(operation: string, reason: string, options?: { cause?: unknown }) {
    super("network_error", `${operation}: network error: ${reason}`, options);
  }
}

/** An answer pointed the client at a URL outside the service (a `Link` to another host); it was not followed. */
export class ForeignUrlError extends ShiplogError {
  declare readonly code: "foreign_url";
  constructor(operation: string, reason: string) {
    super("foreign_url", `${operation}: refused to follow a URL outside the service's base URL, so the token is not sent there: ${reason}`);
  }
}

/** No answer within the client's per-request timeout. */
export class TimeoutError extends ShiplogError {
  declare readonly code: "timeout";
  constructor(operation: string, timeoutMs: number) {
    super("timeout", `${operation}: no answer within ${timeoutMs} ms`);
  }
}

/** The client knows the token's type or scopes and that the endpoint refuses them; nothing was sent. */
export class TokenTypeRefusedError extends ShiplogError {
  declare readonly code: "token_type_refused";
  readonly operation: string;
  readonly tokenType: string;
  readonly acceptedTypes: readonly string[];
  readonly requiredScopes: readonly string[];

  constructor(
    operation: string,
    details: { tokenType: string; acceptedTypes: readonly string[]; requiredScopes?: readonly string[]; reason: string },
  ) {
    super("token_type_refused", `${operation}: ${details.reason}; nothing was sent`);
    this.operation = operation;
    this.tokenType = details.tokenType;
    this.acceptedTypes = details.acceptedTypes;
    this.requiredScopes = details.requiredScopes ?? [];
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), tokenType: this.tokenType, acceptedTypes: this.acceptedTypes, requiredScopes: this.requiredScopes };
  }
}

/** One thing a declared token lacks for a call (see `checkTokenGrants`). */
export interface MissingGrantDetail {
  kind: string;
  [key: string]: unknown;
}

/** The declared token lacks a scope or permission the call needs (from the permission matrix); nothing was sent. */
export class MissingGrantError extends ShiplogError {
  declare readonly code: "permission_missing";
  readonly operation: string;
  readonly missing: readonly MissingGrantDetail[];
  /** `anyOf`: any one of the missing grants would do. */
  readonly combine: "allOf" | "anyOf";

  constructor(operation: string, missing: readonly MissingGrantDetail[], combine: "allOf" | "anyOf", reason: string) {
    super("permission_missing", `${operation}: ${reason}; nothing was sent`);
    this.operation = operation;
    this.missing = missing;
    this.combine = combine;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), missing: this.missing, combine: this.combine };
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends ShiplogError {
  declare readonly code: "aborted";
  constructor(operation: string, options?: { cause?: unknown }) {
    super("aborted", `${operation}: aborted by the caller`, options);
  }
}

function permissionHint(accepted: readonly AcceptedPermissionSet[]): string | undefined {
  if (accepted.length === 0) return undefined;
  return `The endpoint needs ${formatAcceptedPermissions(accepted, "human")}`;
}

/** Where an existing tag reference points, as found when a tag was asked for again. */
export interface ExistingTag {
  /** `refs/tags/<tag>`. */
  ref: string;
  /** What the reference points at: `tag` for an annotated tag, `commit` (or another type) for a lightweight one. */
  refTargetType: string;
  refTargetSha: string;
  /** For an annotated tag: the object it tags, and its message. */
  object?: { type: string; sha: string };
  message?: string;
}

/**
 * The tag name is taken: it points somewhere other than what was asked for, or the caller asked to fail
 * on any existing tag. The message says where it points.
 */
export class TagExistsError extends ShiplogError {
  declare readonly code: "tag_exists";
  readonly existing: ExistingTag;
  /** Whether the existing tag matches the request (object, type, message) and failed only because the caller said so. */
  readonly sameTarget: boolean;

  constructor(existing: ExistingTag, detail: string, sameTarget: boolean) {
    super("tag_exists", detail);
    this.existing = existing;
    this.sameTarget = sameTarget;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), existing: this.existing, sameTarget: this.sameTarget };
  }
}

/**
 * The service answered that a retired endpoint is gone (the source imports closed on 2024-04-12 00:00 UTC).
 * Nothing will make the call work again: move to the alternative the message names.
 */
export class RetiredEndpointError extends ServiceError {
  declare readonly code: "retired_endpoint";
  /** When the endpoint closed, ISO 8601. */
  readonly retiredAt: string;

  constructor(details: ServiceErrorDetails, retiredAt: string, what: string) {
    super("retired_endpoint", details, `${what} were retired on ${retiredAt.slice(0, 10)} at 00:00 UTC; retrying will not help`);
    this.retiredAt = retiredAt;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retiredAt: this.retiredAt };
  }
}

/** The mark-as-read wait outlasted its timeout with threads still unread. */
export class MarkReadTimeoutError extends ShiplogError {
  declare readonly code: "mark_read_timeout";
  readonly pending: number;
  constructor(operation: string, pending: number, timeoutMs: number) {
    super(
      "mark_read_timeout",
      `${operation}: ${pending} thread(s) were still unread after waiting ${timeoutMs} ms for the background marking`,
    );
    this.pending = pending;
  }
}
