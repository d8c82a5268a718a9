import { formatAcceptedPermissions } from "@shiplog/client/permissions";
import type { AccessLevel, Fixture, TokenFixture, TokenType } from "./fixture.js";

/** Who is calling: nobody, or the holder of a fixture token. */
export type Principal = { kind: "anonymous" } | { kind: "token"; token: TokenFixture };

/** One permission at a level, e.g. `{ permission: "contents", access: "read" }`. */
export interface PermissionNeed {
  permission: string;
  access: "read" | "write";
}

/** What an endpoint needs, as route modules declare it (the permission matrix in data form). */
export interface AccessRule {
  /** Alternatives: any one set suffices; every permission in a set is needed. Empty: no permission. */
  anyOf: PermissionNeed[][];
  /** Token types the endpoint accepts. */
  tokenTypes: readonly TokenType[];
  /** For classic tokens: any one of these scopes is needed (none listed: none needed). */
  classicScopes?: readonly string[];
  /** Readable without authentication when the resource is public. */
  publicRead?: boolean;
}

const LEVEL_RANK: Record<AccessLevel, number> = { read: 1, write: 2, admin: 3 };

/** Finds the token in `Authorization: Bearer|token <value>`; undefined when absent, null when unknown. */
export function authenticate(header: string | undefined, fixture: Fixture): Principal | null {
  if (!header) return { kind: "anonymous" };
  const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header.trim());
  if (!match) return null;
  const token = fixture.tokens.find((t) => t.token === match[1]);
  return token ? { kind: "token", token } : null;
}

/** The service's refusal text for a token type the endpoint does not accept. */
export function tokenTypeRefusal(type: TokenType): string {
  switch (type) {
    case "classic":
      return "Resource not accessible by personal access token";
    case "fine_grained":
      return "Resource not accessible by personal access token";
    default:
      return "Resource not accessible by integration";
  }
}

/** Access decisions for one principal over the fixture's organizations. */
export class AccessControl {
  constructor(private readonly fixture: Fixture) {}

  /** The user a principal acts for, if any. */
  userOf(principal: Principal): string | undefined {
    return principal.kind === "token" ? principal.token.user : undefined;
  }

  /** Whether the organization exists (names are case-insensitive). */
  findOrg(org: string) {
    return this.fixture.orgs.find((o) => o.login.toLowerCase() === org.toLowerCase());
  }

  findRepo(org: string, repo: string) {
    return this.findOrg(org)?.repositories.find((r) => r.name.toLowerCase() === repo.toLowerCase());
  }

  /** Whether the principal's token type is one the rule accepts. */
  acceptsTokenType(principal: Principal, rule: AccessRule): boolean {
    return principal.kind === "anonymous" || rule.tokenTypes.includes(principal.token.type);
  }

  /** Whether a classic token carries one of the needed scopes. */
  hasClassicScope(principal: Principal, rule: AccessRule): boolean {
    if (principal.kind !== "token" || principal.token.type !== "classic") return true;
    if (!rule.classicScopes?.length) return true;
    return rule.classicScopes.some((s) => principal.token.scopes.includes(s));
  }

  /**
   * The level a principal holds for a permission on a repository (or the organization when
   * `repo` is undefined). Classic tokens with `repo` act with their user's membership.
   */
  levelFor(principal: Principal, org: string, repo: string | undefined, permission: string): AccessLevel | undefined {
    if (principal.kind !== "token") return undefined;
    const token = principal.token;
    if (token.type === "classic") {
      const member = this.findOrg(org)?.members.some((m) => m.toLowerCase() === token.user?.toLowerCase());
      return member && token.scopes.includes("repo") ? "admin" : undefined;
    }
    const grant = token.grants.find((g) => g.org.toLowerCase() === org.toLowerCase());
    if (!grant) return undefined;
    if (repo !== undefined && grant.repositories !== "all") {
      if (!grant.repositories.some((r) => r.toLowerCase() === repo.toLowerCase())) return undefined;
    }
    return grant.permissions[permission];
  }

  /** Whether the principal satisfies one of the rule's permission sets on the resource. */
  satisfies(principal: Principal, org: string, repo: string | undefined, rule: AccessRule): boolean {
    if (rule.anyOf.length === 0) return true;
    return rule.anyOf.some((set) =>
      set.every((need) => {
        const held = this.levelFor(principal, org, repo, need.permission);
        return held !== undefined && LEVEL_RANK[held] >= LEVEL_RANK[need.access];
      }),
    );
  }

  /** Whether the principal may read a repository at all (public, or any grant on it). */
  canSeeRepo(principal: Principal, org: string, repo: string): boolean {
    const found = this.findRepo(org, repo);
    if (!found) return false;
    if (!found.private) return true;
    if (principal.kind !== "token") return false;
    const token = principal.token;
    if (token.type === "classic") return this.levelFor(principal, org, repo, "metadata") !== undefined;
    const grant = token.grants.find((g) => g.org.toLowerCase() === org.toLowerCase());
    return !!grant && (grant.repositories === "all" || grant.repositories.some((r) => r.toLowerCase() === repo.toLowerCase()));
  }
}

/** Formats a rule's permission sets for `X-Accepted-Service-Permissions`. */
export function acceptedPermissionsHeader(rule: AccessRule): string {
  return formatAcceptedPermissions(rule.anyOf, "header");
}

/** The outcome of the access check for one request: go on, or answer with this error. */
export type AccessDecision =
  | { allow: true }
  | { allow: false; status: 401 | 403 | 404; message: string; docs?: string; headers?: Record<string, string> };

/** What the access check looks at: the caller, the rule for the call, and the path's parameters. */
export interface AccessQuestion {
  principal: Principal;
  /** The rule of the permission matrix (or the route's own); undefined: the route is open. */
  rule: AccessRule | undefined;
  /** Path parameters; `org` or `owner` names the organization, `repo` the repository. */
  params: Readonly<Record<string, string | undefined>>;
}

const ALLOW: AccessDecision = { allow: true };
const NOT_FOUND: AccessDecision = { allow: false, status: 404, message: "Not Found" };

/**
 * Decides whether a call may proceed, in the service's order. Pure: it reads the fixture through `access`.
 * - Anonymous: a route that is not publicly readable answers 401 (whatever the resource, so nothing is revealed);
 *   a publicly readable one answers the public resource, and 404 for a missing or private one (its existence stays hidden).
 * - Authenticated: a public resource on a publicly readable route is readable by any caller (token type, scope
 *   and permission rules are for private resources); otherwise the token type, the classic scopes, the
 *   resource's visibility (404), then the permissions (403 with `X-Accepted-Service-Permissions`).
 */
export function decideAccess(access: AccessControl, { principal, rule, params }: AccessQuestion): AccessDecision {
  if (!rule) return ALLOW;
  const org = params.org ?? params.owner;
  const repo = params.repo;
  const repoFound = org !== undefined && repo !== undefined ? access.findRepo(org, repo) : undefined;
  const missing =
    (repo !== undefined && org !== undefined && !repoFound) ||
    (repo === undefined && params.org !== undefined && !access.findOrg(params.org));
  // Public: an existing public repository, or a feed not tied to a repository (it filters private events itself).
  const publicResource = rule.publicRead === true && !missing && (repo === undefined || repoFound?.private === false);

  if (principal.kind === "anonymous") {
    if (!rule.publicRead) return { allow: false, status: 401, message: "Requires authentication", docs: "/authentication" };
    return publicResource ? ALLOW : NOT_FOUND;
  }
  if (publicResource) return ALLOW;
  if (!access.acceptsTokenType(principal, rule)) {
    return { allow: false, status: 403, message: tokenTypeRefusal(principal.token.type), docs: "/authentication/permissions" };
  }
  if (!access.hasClassicScope(principal, rule)) {
    const scopes = (rule.classicScopes ?? []).join(", ");
    return {
      allow: false,
      status: 403,
      message: `This endpoint needs a token with one of these scopes: ${scopes}`,
      docs: "/authentication/scopes",
      headers: { "x-accepted-oauth-scopes": scopes },
    };
  }
  if (missing) return NOT_FOUND;
  if (repo !== undefined && org !== undefined && !access.canSeeRepo(principal, org, repo)) return NOT_FOUND;
  if (org === undefined || access.satisfies(principal, org, repo, rule)) return ALLOW;
  return {
    allow: false,
    status: 403,
    message: tokenTypeRefusal(principal.token.type),
    docs: "/authentication/permissions",
    headers: { "x-accepted-service-permissions": acceptedPermissionsHeader(rule) },
  };
}
