import type { HttpMethod } from "../transport/pipeline.js";
import type { AppTokenType } from "./permission-matrix.js";

/**
 * The rules of sections 5.1 and 5.2 that sit beside the matrix: which endpoints accept only a personal access
 * token (classic), which scopes a classic token needs, and which endpoints serve public resources without
 * authentication. Rules are keyed by path template, so they apply to every method of a family.
 */

/** The four token types of 5.1. */
export type TokenKind = "classic" | "fine_grained" | "app_user" | "app_installation";

export const TOKEN_KINDS: readonly TokenKind[] = ["classic", "fine_grained", "app_user", "app_installation"];

/** How people call each token type. */
export const TOKEN_KIND_TITLES: Readonly<Record<TokenKind, string>> = {
  classic: "personal access token (classic)",
  fine_grained: "fine-grained personal access token",
  app_user: "app user access token (UAT)",
  app_installation: "app installation access token (IAT)",
};

/** The token kind behind each app token type of the 5.3 matrix. */
export const APP_TOKEN_KINDS: Readonly<Record<AppTokenType, TokenKind>> = {
  UAT: "app_user",
  IAT: "app_installation",
};

/** A family of endpoints that only a personal access token (classic) may call. */
export interface ClassicOnlyFamily {
  family: "notifications" | "source_imports";
  /** Templates of the family: the template itself and every template below it. */
  roots: readonly string[];
  source: string;
}

/** 5.1: "Notification endpoints and source import endpoints accept only a personal access token (classic)." */
export const CLASSIC_ONLY_FAMILIES: readonly ClassicOnlyFamily[] = [
  { family: "notifications", roots: ["/notifications", "/repos/{owner}/{repo}/notifications"], source: "5.1, 4.3" },
  { family: "source_imports", roots: ["/repos/{owner}/{repo}/import"], source: "5.1, 4.4b" },
];

/** Scopes a classic token needs for a family of endpoints; any one of `anyOf` suffices. */
export interface ClassicScopeRule {
  methods: readonly HttpMethod[];
  roots: readonly string[];
  anyOf: readonly string[];
  source: string;
  note: string;
}

const ALL_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * 5.1: notification endpoints require `notifications` or `repo`; reading issues and commits through their own
 * endpoints requires `repo`. Scope names other than these two are not given by the spec.
 */
export const CLASSIC_SCOPE_RULES: readonly ClassicScopeRule[] = [
  {
    methods: ALL_METHODS,
    roots: ["/notifications", "/repos/{owner}/{repo}/notifications"],
    anyOf: ["notifications", "repo"],
    source: "5.1",
    note: "Notification endpoints require the scope notifications or repo",
  },
  {
    methods: ["GET"],
    roots: ["/repos/{owner}/{repo}/issues", "/repos/{owner}/{repo}/commits"],
    anyOf: ["repo"],
    source: "5.1",
    note: "Reading issues and commits through their own endpoints requires the scope repo (for private repositories)",
  },
];

/** An endpoint that serves public resources without authentication. */
export interface PublicReadableEndpoint {
  method: HttpMethod;
  path: string;
  source: string;
}

/**
 * 5.1 "Some endpoints can be read without authentication when only public resources are requested": the spec's
 * examples (Get a tag, List repository events, issue event reads, the public activity feeds), with 4.2 and 4.5.
 * The organization feed of a user is the authenticated user's own, so it is not here.
 */
export const PUBLIC_READABLE_ENDPOINTS: readonly PublicReadableEndpoint[] = [
  { method: "GET", path: "/repos/{owner}/{repo}/git/tags/{tag_sha}", source: "4.2, 5.1" },
  // 5.1's list is "for example": like a tag, a public repository's references are public (git itself serves them).
  { method: "GET", path: "/repos/{owner}/{repo}/git/ref/{ref}", source: "5.1 (beyond its examples)" },
  { method: "GET", path: "/repos/{owner}/{repo}/git/matching-refs/{ref}", source: "5.1 (beyond its examples)" },
  { method: "GET", path: "/events", source: "4.4, 5.1" },
  { method: "GET", path: "/networks/{owner}/{repo}/events", source: "4.4, 5.1" },
  { method: "GET", path: "/orgs/{org}/events", source: "4.4, 5.1" },
  { method: "GET", path: "/repos/{owner}/{repo}/events", source: "4.4, 5.1" },
  { method: "GET", path: "/users/{username}/events", source: "4.4, 5.1" },
  { method: "GET", path: "/users/{username}/events/public", source: "4.4, 5.1" },
  { method: "GET", path: "/users/{username}/received_events", source: "4.4, 5.1" },
  { method: "GET", path: "/users/{username}/received_events/public", source: "4.4, 5.1" },
  { method: "GET", path: "/repos/{owner}/{repo}/issues/events", source: "4.5, 5.1" },
  { method: "GET", path: "/repos/{owner}/{repo}/issues/events/{event_id}", source: "4.5, 5.1" },
  { method: "GET", path: "/repos/{owner}/{repo}/issues/{issue_number}/events", source: "4.5, 5.1" },
];

function under(template: string, roots: readonly string[]): boolean {
  return roots.some((root) => template === root || template.startsWith(`${root}/`));
}

/** The classic-only family a template belongs to, if any. */
export function classicOnlyFamily(template: string): ClassicOnlyFamily | undefined {
  return CLASSIC_ONLY_FAMILIES.find((family) => under(template, family.roots));
}

/** The classic scope rule for an endpoint, if the spec gives one. */
export function classicScopeRule(method: HttpMethod, template: string): ClassicScopeRule | undefined {
  return CLASSIC_SCOPE_RULES.find((rule) => rule.methods.includes(method) && under(template, rule.roots));
}

/** Whether the endpoint serves public resources without authentication. */
export function isPublicReadable(method: HttpMethod, template: string): boolean {
  return PUBLIC_READABLE_ENDPOINTS.some((e) => e.method === method && e.path === template);
}
