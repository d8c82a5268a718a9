import { requiredPermissions, APP_TOKEN_KINDS, type PermissionResolution, type Requirement } from "@shiplog/client/permissions";
import type { AccessRule, PermissionNeed, Principal } from "./access-control.js";

/** Whether a requirement of the matrix applies to the caller's token type. */
function appliesTo(requirement: Requirement, principal: Principal): boolean {
  if (principal.kind === "anonymous") return true;
  const type = principal.token.type;
  if (type === "classic") return true;
  if (type === "fine_grained") return requirement.fineGrained;
  return requirement.tokenTypes.some((t) => APP_TOKEN_KINDS[t] === type);
}

/** Turns the matrix's answer for one call into the emulator's access rule for this caller. */
export function accessRuleFromResolution(resolution: PermissionResolution, principal: Principal): AccessRule {
  const needs: PermissionNeed[] = resolution.requirements
    .filter((r) => appliesTo(r, principal))
    .map((r) => ({ permission: r.permission, access: r.access }));
  // allOf: one set with every permission; anyOf, and multi lines the spec leaves open: any one suffices.
  const anyOf = needs.length === 0 ? [] : resolution.combine === "allOf" ? [needs] : needs.map((n) => [n]);
  // Spec 5.1: classic tokens are governed by their scopes, not by the token-type lines of 4.1/4.2 (which list the
  // fine-grained kinds of 5.2). Where the spec names no scope (artifact metadata, git data) the repository scope
  // `repo` is needed: these are repository resources (README, assumptions).
  if (principal.kind === "token" && principal.token.type === "classic" && !resolution.tokenKinds.includes("classic")) {
    return { anyOf, tokenTypes: [...resolution.tokenKinds, "classic"], classicScopes: ["repo"], publicRead: resolution.publicReadable };
  }
  return {
    anyOf,
    tokenTypes: resolution.tokenKinds,
    ...(resolution.classicScopes && { classicScopes: resolution.classicScopes }),
    publicRead: resolution.publicReadable,
  };
}

/**
 * The rule the permission matrix (the client's data, the one source of truth) gives a request,
 * or undefined when the matrix does not cover the path.
 */
export function matrixAccessRule(method: string, path: string, principal: Principal): AccessRule | undefined {
  const resolution = requiredPermissions(method, path);
  return resolution.covered ? accessRuleFromResolution(resolution, principal) : undefined;
}

/** A concrete path for a route template (`/orgs/:org/…` → `/orgs/sample/…`), to ask the matrix about it. */
function samplePath(fastifyRoute: string): string {
  return fastifyRoute.replace(/:([A-Za-z_]+)/g, (_, name: string) =>
    name === "subject_digest" ? `sha256:${"0".repeat(64)}` : /_id$|_number$/.test(name) ? "1" : "sample",
  );
}

/**
 * A route the emulator serves that the matrix does not cover, as `METHOD /route`: it would be served without
 * any access check, so the emulator refuses to start with it.
 */
export function uncoveredRoute(method: string, fastifyRoute: string): string | undefined {
  if (method === "HEAD" || method === "OPTIONS") return undefined;
  return requiredPermissions(method, samplePath(fastifyRoute)).covered ? undefined : `${method} ${fastifyRoute}`;
}
