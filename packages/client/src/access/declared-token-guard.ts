import type { AcceptedPermissionSet } from "../errors/accepted-permissions.js";
import { MissingGrantError, TokenTypeRefusedError } from "../errors/errors.js";
import type { TransportPlugin } from "../transport/pipeline.js";
import { checkTokenGrants, type DeclaredToken } from "./permission-check.js";
import { requiredPermissions } from "./required-permissions.js";

/**
 * The transport plugin `ShiplogClient` adds, the one part of a request's path that knows the endpoints: with a
 * declared token, it refuses a call the token cannot make before it is sent; on any refusal (403) whose answer does
 * not say what the call needs, it tells the error what the permission matrix says.
 */
export function declaredTokenGuard(token: DeclaredToken | undefined): TransportPlugin {
  return {
    name: "declared-token guard",
    ...(token && { before: (attempt) => guardDeclaredToken(attempt.method, attempt.path, token, attempt.operation) }),
    explainRefusal: ({ method, path }) => ({
      acceptedPermissions: matrixAcceptedPermissions(method, path),
      hint: classicOnlyHint(method, path),
    }),
  };
}

/**
 * Refuses, before anything is sent, a call the declared token cannot make according to the permission
 * matrix and the token rules of 5.1: a refused token type, a missing classic scope, a missing permission.
 * Calls the matrix does not cover pass: the client does not guess. So do reads of publicly readable
 * endpoints: any caller may read a public resource, and only the service knows whether this one is public.
 */
export function guardDeclaredToken(method: string, path: string, token: DeclaredToken, operation: string): void {
  const resolution = requiredPermissions(method, path);
  if (!resolution.covered || resolution.publicReadable) return;
  const check = checkTokenGrants(resolution, token);
  if (check.ok) return;
  const typeRefusal = check.missing.find((m) => m.kind === "token_type");
  if (typeRefusal) {
    throw new TokenTypeRefusedError(operation, {
      tokenType: typeRefusal.tokenType,
      acceptedTypes: typeRefusal.accepted,
      reason: check.message,
    });
  }
  throw new MissingGrantError(operation, check.missing, check.combine, check.message);
}

/** The permissions the matrix says a call needs, in the form of `X-Accepted-Service-Permissions`. */
export function matrixAcceptedPermissions(method: string, path: string): AcceptedPermissionSet[] {
  const resolution = requiredPermissions(method, path);
  if (!resolution.covered || resolution.requirements.length === 0) return [];
  const needs = resolution.requirements.map((r) => ({ permission: r.permission, access: r.access }));
  return resolution.combine === "allOf" ? [needs] : needs.map((n) => [n]);
}

/**
 * What a 403 of an endpoint that takes only classic tokens (notifications, source imports) most likely means, for
 * its error message: `The endpoint accepts only a personal access token (classic), with the scope notifications or
 * repo`. Undefined for the other endpoints, whose 403 is about a permission.
 */
export function classicOnlyHint(method: string, path: string): string | undefined {
  const resolution = requiredPermissions(method, path);
  if (!resolution.covered || resolution.tokenKinds.length !== 1 || resolution.tokenKinds[0] !== "classic") return undefined;
  const scopes = resolution.classicScopes ? `, with the scope ${resolution.classicScopes.join(" or ")}` : "";
  return `The endpoint accepts only a personal access token (classic)${scopes}`;
}
