import type { HttpMethod } from "../transport/pipeline.js";
import { ENDPOINT_STATEMENTS } from "./endpoint-statements.js";
import {
  PERMISSION_MATRIX,
  PERMISSIONS,
  type AccessLevel,
  type AppTokenType,
  type MatrixEntry,
  type PermissionName,
  type PermissionScope,
} from "../permissions/permission-matrix.js";
import type { EndpointStatement } from "../permissions/statement.js";
import { TemplateMatcher, splitPath } from "../transport/path-templates.js";
import {
  APP_TOKEN_KINDS,
  TOKEN_KIND_TITLES,
  classicOnlyFamily,
  classicScopeRule,
  isPublicReadable,
  type TokenKind,
} from "../permissions/token-rules.js";

/** Methods the matrix covers. */
export const MATRIX_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** One permission at one level that an endpoint needs, merged from every line of the spec that names it. */
export interface Requirement {
  permission: PermissionName;
  /** The permission's name as the spec writes it. */
  title: string;
  scope: PermissionScope;
  access: AccessLevel;
  /** App token types the requirement applies to. */
  tokenTypes: AppTokenType[];
  /** Whether it applies to fine-grained personal access tokens. */
  fineGrained: boolean;
  /** The spec's `multi` mark on at least one line naming it. */
  multi: boolean;
  /** The spec lines it comes from, e.g. `5.3 Repository permission: Contents`, `4.2 Git tags`. */
  sources: string[];
}

/**
 * How the requirements combine: `allOf` every one is needed (trivially true when there are none), `anyOf` one
 * suffices, `unspecified` the spec lists several under `multi` without saying which (5.2: "multiple permissions
 * are required, or a different permission may be used").
 */
export type Combine = "allOf" | "anyOf" | "unspecified";

/** What a covered call needs. */
export interface PermissionResolution {
  covered: true;
  method: HttpMethod;
  /** The concrete path that was resolved (normalised). */
  path: string;
  /** The matrix template it matched. */
  template: string;
  /** Template parameters taken from the path, percent-decoded. */
  params: Record<string, string>;
  combine: Combine;
  /** Fine-grained permissions (for fine-grained, UAT and IAT tokens); empty when none is needed. */
  requirements: Requirement[];
  multi: boolean;
  /** Token types the endpoint accepts. */
  tokenKinds: TokenKind[];
  /** Scopes of a classic token, any one of which suffices; null when the spec names none for this endpoint. */
  classicScopes: string[] | null;
  /** Whether public resources can be read here without authentication. */
  publicReadable: boolean;
  /** Spec sections the answer draws on. */
  sources: string[];
  notes: string[];
}

export type UncoveredReason = "invalid_method" | "invalid_path" | "unknown_path" | "method_not_covered";

/** The matrix does not cover the call; `reason` says why. */
export interface UncoveredCall {
  covered: false;
  method: string;
  path: string;
  reason: UncoveredReason;
  message: string;
  /** For `method_not_covered`: the template the path matched and the methods the matrix has for it. */
  template?: string;
  knownMethods?: HttpMethod[];
}

/** The answer of `requiredPermissions`. */
export type PermissionLookup = PermissionResolution | UncoveredCall;

/** The static part of a resolution, computed once per endpoint. */
type EndpointAnswer = Omit<PermissionResolution, "path" | "params">;

interface EndpointLines {
  method: HttpMethod;
  template: string;
  entries: MatrixEntry[];
  statement: EndpointStatement | undefined;
}

function collectEndpoints(): Map<string, Map<HttpMethod, EndpointLines>> {
  const byTemplate = new Map<string, Map<HttpMethod, EndpointLines>>();
  const lines = (method: HttpMethod, template: string): EndpointLines => {
    let methods = byTemplate.get(template);
    if (!methods) {
      methods = new Map();
      byTemplate.set(template, methods);
    }
    let found = methods.get(method);
    if (!found) {
      found = { method, template, entries: [], statement: undefined };
      methods.set(method, found);
    }
    return found;
  };
  for (const entry of PERMISSION_MATRIX) lines(entry.method, entry.path).entries.push(entry);
  for (const statement of ENDPOINT_STATEMENTS) {
    const target = lines(statement.method, statement.path);
    if (target.statement) throw new Error(`two statements for ${statement.method} ${statement.path}`);
    target.statement = statement;
  }
  return byTemplate;
}

function union<T>(into: T[], items: readonly T[], order: readonly T[]): T[] {
  const set = new Set([...into, ...items]);
  return order.filter((item) => set.has(item));
}

const APP_ORDER: readonly AppTokenType[] = ["UAT", "IAT"];

function answerFor(lines: EndpointLines): EndpointAnswer {
  const { method, template, entries, statement } = lines;
  const requirements = new Map<string, Requirement>();
  const requirement = (permission: PermissionName, access: AccessLevel): Requirement => {
    const key = `${permission}=${access}`;
    let found = requirements.get(key);
    if (!found) {
      const info = PERMISSIONS[permission];
      found = { permission, title: info.title, scope: info.scope, access, tokenTypes: [], fineGrained: false, multi: false, sources: [] };
      requirements.set(key, found);
    }
    return found;
  };
  const addSource = (r: Requirement, source: string) => {
    if (!r.sources.includes(source)) r.sources.push(source);
  };

  for (const grant of statement?.grants ?? []) {
    const r = requirement(grant.permission, grant.access);
    if (!grant.fineGrainedOnly) r.tokenTypes = union(r.tokenTypes, statement!.tokenTypes, APP_ORDER);
    r.fineGrained ||= Boolean(grant.fineGrainedOnly) || statement!.fineGrained;
    addSource(r, statement!.source);
  }
  const statementKeys = new Set(requirements.keys());
  // 5.2: for fine-grained personal access tokens the same matrix applies.
  for (const entry of entries) {
    const r = requirement(entry.permission, entry.access);
    r.tokenTypes = union(r.tokenTypes, entry.tokenTypes, APP_ORDER);
    r.fineGrained = true;
    r.multi ||= entry.multi;
    addSource(r, entry.source);
  }

  const list = [...requirements.values()];
  const multi = list.some((r) => r.multi);
  const extraFromMatrix = [...requirements.keys()].some((key) => !statementKeys.has(key));
  let combine: Combine;
  if (statement && !(extraFromMatrix && statementKeys.size > 0)) combine = statement.combine;
  else combine = list.length <= 1 ? "allOf" : "unspecified";

  const notes: string[] = [];
  if (statement?.note) notes.push(statement.note);

  let tokenKinds: TokenKind[];
  const family = classicOnlyFamily(template);
  if (family) {
    tokenKinds = ["classic"];
    const label = family.family === "notifications" ? "Notification endpoints" : "Source import endpoints";
    notes.push(`${label} accept only a ${TOKEN_KIND_TITLES.classic}; other token types are refused (5.1).`);
    if (list.some((r) => r.tokenTypes.length > 0)) {
      notes.push("The matrix (5.3) still lists the permission the token's owner needs; the token type rule of 5.1 decides who may call.");
    }
  } else {
    const apps = union(
      statement ? [...statement.tokenTypes] : [],
      list.flatMap((r) => r.tokenTypes),
      APP_ORDER,
    );
    const fineGrained = statement ? statement.fineGrained : true;
    // Classic tokens are governed by scopes, not by the matrix (5.1), except where section 4 names the token
    // types and leaves classic out (4.1, 4.2): the spec's statement wins.
    const classic = statement ? statement.classic : true;
    tokenKinds = [
      ...(classic ? (["classic"] as const) : []),
      ...(fineGrained ? (["fine_grained"] as const) : []),
      ...apps.map((t) => APP_TOKEN_KINDS[t]),
    ];
    if (statement && !classic) {
      const section = statement.source.split(" ")[0];
      notes.push(
        `Token types come from ${section}: ${tokenKinds.map((k) => TOKEN_KIND_TITLES[k]).join(", ")}; a ${TOKEN_KIND_TITLES.classic} is refused.`,
      );
    }
  }

  const scopeRule = classicScopeRule(method, template);
  if (scopeRule) notes.push(`${scopeRule.note} (${scopeRule.source}).`);
  if (method === "GET" && list.some((r) => r.access === "write")) {
    notes.push("This GET needs write access (5.2: write access is required also by some GET endpoints).");
  }
  if (multi) {
    notes.push("Marked multi (5.2): more permissions may be required, or a different permission may be used, than the matrix shows.");
  }
  if (combine === "unspecified") {
    notes.push("The spec lists these permissions under multi without saying whether all or any one is needed.");
  }
  const publicReadable = isPublicReadable(method, template);
  if (publicReadable) notes.push("Public resources can be read without authentication (5.1).");

  const sources = [...new Set([...(statement ? [statement.source] : []), ...entries.map((e) => e.source)])];
  if (family) sources.push("5.1");

  return {
    covered: true,
    method,
    template,
    combine,
    requirements: list,
    multi,
    tokenKinds,
    classicScopes: scopeRule ? [...scopeRule.anyOf] : null,
    publicReadable,
    sources,
    notes,
  };
}

const ENDPOINTS = collectEndpoints();
const ANSWERS = new Map<string, ReadonlyMap<HttpMethod, EndpointAnswer>>(
  [...ENDPOINTS].map(([template, methods]) => [
    template,
    new Map([...methods].map(([method, lines]) => [method, answerFor(lines)] as const)),
  ]),
);
const MATCHER = new TemplateMatcher<ReadonlyMap<HttpMethod, EndpointAnswer>>(ANSWERS);

function copyAnswer(answer: EndpointAnswer, path: string, params: Record<string, string>): PermissionResolution {
  // A fresh copy each time: callers may change what they get without touching the precomputed answer.
  return {
    covered: true,
    method: answer.method,
    path,
    template: answer.template,
    params,
    combine: answer.combine,
    requirements: answer.requirements.map((r) => ({ ...r, tokenTypes: [...r.tokenTypes], sources: [...r.sources] })),
    multi: answer.multi,
    tokenKinds: [...answer.tokenKinds],
    classicScopes: answer.classicScopes ? [...answer.classicScopes] : null,
    publicReadable: answer.publicReadable,
    sources: [...answer.sources],
    notes: [...answer.notes],
  };
}

/**
 * What a call needs: resolves `path` (a concrete path such as `/repos/acme/web/git/tags`, or a full URL) against
 * the matrix templates for `method` and answers the permissions, levels, token types, classic scopes and public
 * access; or says that the matrix does not cover the call. Pure and cheap: the matcher and every answer are
 * built once when the module loads.
 */
export function requiredPermissions(method: string, path: string): PermissionLookup {
  const upper = typeof method === "string" ? method.trim().toUpperCase() : "";
  const shownPath = typeof path === "string" ? path : String(path);
  if (!(MATRIX_METHODS as readonly string[]).includes(upper)) {
    return {
      covered: false,
      method: String(method),
      path: shownPath,
      reason: "invalid_method",
      message: `method ${JSON.stringify(method)} is not one of ${MATRIX_METHODS.join(", ")}`,
    };
  }
  const verb = upper as HttpMethod;
  const split = typeof path === "string" ? splitPath(path) : { ok: false as const, message: "path must be a string" };
  if (!split.ok) return { covered: false, method: verb, path: shownPath, reason: "invalid_path", message: split.message };

  const match = MATCHER.match(split.segments, (methods) => methods.has(verb));
  if (match) return copyAnswer(match.value.get(verb) as EndpointAnswer, split.path, match.params);

  const other = MATCHER.match(split.segments);
  if (other) {
    const knownMethods = MATRIX_METHODS.filter((m) => other.value.has(m));
    return {
      covered: false,
      method: verb,
      path: split.path,
      reason: "method_not_covered",
      template: other.template,
      knownMethods,
      message: `the permission matrix has ${other.template} only for ${knownMethods.join(", ")}, not ${verb}`,
    };
  }
  return {
    covered: false,
    method: verb,
    path: split.path,
    reason: "unknown_path",
    message: `the permission matrix does not cover ${verb} ${split.path}`,
  };
}

/** Every endpoint (method and template) the matrix and the section 4 statements cover, in template order. */
export function coveredEndpoints(): { method: HttpMethod; template: string }[] {
  return [...ENDPOINTS].flatMap(([template, methods]) =>
    MATRIX_METHODS.filter((m) => methods.has(m)).map((method) => ({ method, template })),
  );
}

/** One line for people: `Contents (repository) write`, joined by "and" / "or" as the requirements combine. */
export function describeRequirements(resolution: Pick<PermissionResolution, "combine" | "requirements">): string {
  if (resolution.requirements.length === 0) return "no fine-grained permission";
  const parts = resolution.requirements.map((r) => {
    const text = `${r.title} (${r.scope}) ${r.access}`;
    return r.tokenTypes.length === 0 && r.fineGrained ? `${text} for fine-grained tokens` : text;
  });
  if (parts.length === 1) return parts[0] as string;
  if (resolution.combine === "anyOf") return `any one of: ${parts.join(", ")}`;
  if (resolution.combine === "unspecified") return `${parts.join(", ")} (all or any one: not stated)`;
  return parts.join(" and ");
}
