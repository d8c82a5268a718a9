import { z } from "zod";
import { parseRequest } from "../schemas/validation.js";
import type { DeclaredToken } from "../permissions/declared-token.js";
import type { AccessLevel, PermissionScope } from "../permissions/permission-matrix.js";
import type { Combine, PermissionResolution, Requirement } from "./required-permissions.js";
import { APP_TOKEN_KINDS, TOKEN_KINDS, TOKEN_KIND_TITLES, type TokenKind } from "../permissions/token-rules.js";

export type { DeclaredToken } from "../permissions/declared-token.js";

export const declaredTokenSchema = z.strictObject({
  type: z.enum(TOKEN_KINDS as [TokenKind, ...TokenKind[]]),
  scopes: z.array(z.string().min(1)).optional(),
  permissions: z.record(z.string().min(1), z.enum(["read", "write"])).optional(),
});

/** One thing the token lacks. */
export type MissingGrant =
  | { kind: "token_type"; tokenType: TokenKind; accepted: TokenKind[] }
  | { kind: "scope"; anyOf: string[] }
  | {
      kind: "permission";
      permission: string;
      title: string;
      scope: PermissionScope;
      access: AccessLevel;
      /** The level the token holds, or null when it holds none. */
      granted: AccessLevel | null;
    };

/** The token can make the call, as far as the declaration tells; `notes` say what could not be checked. */
export interface GrantsSufficient {
  ok: true;
  notes: string[];
}

/** The token cannot make the call. With `combine: "anyOf"`, any one of the missing permissions would do. */
export interface GrantsMissing {
  ok: false;
  combine: "allOf" | "anyOf";
  missing: MissingGrant[];
  /** One sentence naming what is missing, for errors and logs. */
  message: string;
  notes: string[];
}

export type GrantCheck = GrantsSufficient | GrantsMissing;

function satisfies(granted: AccessLevel | undefined, needed: AccessLevel): boolean {
  // write includes read
  return granted === "write" || (granted === "read" && needed === "read");
}

function appliesTo(requirement: Requirement, kind: TokenKind): boolean {
  if (kind === "fine_grained") return requirement.fineGrained;
  return requirement.tokenTypes.some((t) => APP_TOKEN_KINDS[t] === kind);
}

function article(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}

/** Names a missing grant for people: `Contents (repository) write (the token has read)`. */
export function describeMissingGrant(missing: MissingGrant): string {
  switch (missing.kind) {
    case "token_type":
      return `${article(missing.accepted.map((k) => TOKEN_KIND_TITLES[k]).join(" or "))} (the token is ${article(TOKEN_KIND_TITLES[missing.tokenType])})`;
    case "scope":
      return `the scope ${missing.anyOf.join(" or ")}`;
    case "permission":
      return `${missing.title} (${missing.scope}) ${missing.access}${missing.granted ? ` (the token has ${missing.granted})` : ""}`;
  }
}

function missingResult(
  resolution: PermissionResolution,
  combine: "allOf" | "anyOf",
  missing: MissingGrant[],
  notes: string[],
): GrantsMissing {
  const joined = missing.map(describeMissingGrant).join(combine === "anyOf" ? " or " : " and ");
  const what = combine === "anyOf" && missing.length > 1 ? `any one of ${joined}` : joined;
  return { ok: false, combine, missing, message: `${resolution.method} ${resolution.template} needs ${what}`, notes };
}

/**
 * Checks a declared token against what a call needs (from `requiredPermissions`), before anything is sent.
 * Pure: it reads nothing but its arguments. Throws `RequestValidationError` when the declaration is malformed.
 */
export function checkTokenGrants(resolution: PermissionResolution, declared: DeclaredToken): GrantCheck {
  const token = parseRequest(declaredTokenSchema, declared, "checkTokenGrants: declared token");
  const notes: string[] = [];

  if (!resolution.tokenKinds.includes(token.type)) {
    return missingResult(resolution, "allOf", [{ kind: "token_type", tokenType: token.type, accepted: [...resolution.tokenKinds] }], notes);
  }

  if (token.type === "classic") {
    if (!resolution.classicScopes) {
      notes.push("The spec names no scope for this endpoint; scopes were not checked.");
      return { ok: true, notes };
    }
    if (!token.scopes) {
      notes.push("The token's scopes were not declared; scopes were not checked.");
      return { ok: true, notes };
    }
    if (resolution.classicScopes.some((s) => token.scopes!.includes(s))) return { ok: true, notes };
    return missingResult(resolution, "allOf", [{ kind: "scope", anyOf: [...resolution.classicScopes] }], notes);
  }

  const applicable = resolution.requirements.filter((r) => appliesTo(r, token.type));
  if (applicable.length === 0) return { ok: true, notes };
  if (!token.permissions) {
    notes.push("The token's permissions were not declared; permissions were not checked.");
    return { ok: true, notes };
  }
  const granted = token.permissions;
  const lacking = applicable.filter((r) => !satisfies(granted[r.permission], r.access));
  const toMissing = (r: Requirement): MissingGrant => ({
    kind: "permission",
    permission: r.permission,
    title: r.title,
    scope: r.scope,
    access: r.access,
    granted: granted[r.permission] ?? null,
  });
  if (resolution.multi) {
    notes.push("The endpoint is marked multi: the service may want more, or accept a different permission, than the matrix shows.");
  }

  const combine: Combine = applicable.length === 1 ? "allOf" : resolution.combine;
  if (combine === "allOf") {
    return lacking.length === 0 ? { ok: true, notes } : missingResult(resolution, "allOf", lacking.map(toMissing), notes);
  }
  // anyOf, and unspecified (where "a different permission may be used"): one held permission lets the call through.
  if (lacking.length < applicable.length) {
    if (combine === "unspecified" && lacking.length > 0) {
      notes.push(`The service may also require ${lacking.map((r) => `${r.title} (${r.scope}) ${r.access}`).join(" and ")}.`);
    }
    return { ok: true, notes };
  }
  return missingResult(resolution, "anyOf", lacking.map(toMissing), notes);
}
