import type { FastifyReply, FastifyRequest } from "fastify";
import { OPERATION_VALIDATORS, type CompiledValidator } from "./generated/request-validators.js";
import { sendError, type ValidationDetail } from "./service-errors.js";
import { openApiPath } from "./routes/route-table.js";
import { specRuleViolations } from "./spec-rules.js";

/** The `resource` the service names in a 422's `errors[]`, by path family. */
function resourceOf(path: string): string {
  if (path.includes("/storage-record")) return "StorageRecord";
  if (path.includes("/artifacts/")) return "DeploymentRecord";
  if (path.includes("/git/tags")) return "Tag";
  if (path.includes("/git/")) return "Reference";
  if (path.includes("/subscription")) return "Subscription";
  if (path.includes("notifications")) return "Notification";
  if (path.includes("/import/authors")) return "ImportAuthor";
  if (path.includes("/import")) return "Import";
  if (path.includes("/issues")) return "IssueEvent";
  return "Event";
}

/** ajv's instance path as the service names a field: `/deployments/0/digest` → `deployments[0].digest`. */
export function fieldName(instancePath: string, property?: string): string {
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (property !== undefined) parts.push(property);
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), "");
}

function detailsOf(validator: CompiledValidator, resource: string, where: "body" | "parameter"): ValidationDetail[] {
  const seen = new Set<string>();
  const details: ValidationDetail[] = [];
  for (const error of validator.errors ?? []) {
    const missing = error.keyword === "required" ? String(error.params.missingProperty) : undefined;
    const field = fieldName(error.instancePath, missing) || "body";
    const message = missing !== undefined ? `${field} is missing` : `${field} ${error.message ?? "is invalid"}`;
    if (seen.has(message)) continue;
    seen.add(message);
    details.push({ resource, field, code: missing !== undefined ? "missing_field" : "invalid", message: `${message} (${where})` });
  }
  return details;
}

/** What a request's check decided: pass, 404 (a path the service does not route), or 422 with field errors. */
export type RequestVerdict = { status: 200 } | { status: 404 } | { status: 422; errors: ValidationDetail[] };

/**
 * Checks one request against its operation's official request schemas (compiled from the OpenAPI description
 * at build time) and the spec's own rules.
 */
export function checkAgainstSchemas(
  method: string,
  routeUrl: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
  body: unknown,
): RequestVerdict {
  const key = `${method} ${openApiPath(routeUrl)}`;
  const validator = OPERATION_VALIDATORS[key];
  // A path segment of the wrong type (`/notifications/threads/abc`) matches no route of the service: 404.
  if (validator && !validator.params({ ...query, ...renameWildcard(params) })) {
    const pathParams = renameWildcard(params);
    const pathTypeError = (validator.params.errors ?? []).some((e) => e.keyword === "type" && fieldName(e.instancePath) in pathParams);
    if (pathTypeError) return { status: 404 };
  }
  const errors = requestViolations(method, routeUrl, params, query, body);
  return errors.length === 0 ? { status: 200 } : { status: 422, errors };
}

function renameWildcard(params: Record<string, unknown>): Record<string, unknown> {
  if (!("*" in params)) return params;
  const { "*": ref, ...rest } = params;
  return { ...rest, ref };
}

/** The field errors of one request under its operation's schemas and the spec's rules; empty when valid. */
export function requestViolations(
  method: string,
  routeUrl: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
  body: unknown,
): ValidationDetail[] {
  const path = openApiPath(routeUrl);
  const key = `${method} ${path}`;
  const operation = OPERATION_VALIDATORS[key];
  if (!operation) return [];
  const resource = resourceOf(path);
  const values: Record<string, unknown> = { ...query, ...renameWildcard(params) };
  if (!operation.params(values)) return detailsOf(operation.params, resource, "parameter");
  if (operation.body) {
    // An absent body is no parameters: allowed where the body is optional (mark-read, restart an import).
    if (body === undefined && !operation.bodyRequired) return [];
    if (!operation.body(body ?? {})) {
      // All problems at once, as the service lists them: the spec's rules on the fields the schema did not flag.
      const schemaErrors = detailsOf(operation.body, resource, "body");
      const flagged = new Set(schemaErrors.map((e) => e.field));
      return [...schemaErrors, ...specRuleViolations(key, body, resource).filter((e) => !flagged.has(e.field))];
    }
  }
  return specRuleViolations(key, body, resource);
}

/** The preHandler that answers 422 `Validation Failed` for a request its operation's schemas refuse. */
export async function checkRequest(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const routeUrl = request.routeOptions.url;
  if (routeUrl === undefined) return;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const verdict = checkAgainstSchemas(request.method, routeUrl, (request.params ?? {}) as Record<string, unknown>, query, request.body);
  if (verdict.status === 404) return sendError(reply, 404, "Not Found");
  if (verdict.status === 422) return sendError(reply, 422, "Validation Failed", { errors: verdict.errors });
}

/**
 * The preValidation hook that answers 400 "Body should be a JSON object" for a body that is JSON but not an object
 * (an array, a string, a number, `null`) on an operation that takes a body, as the service does
 * (production-facts.md, "More HTTP details"). It runs where "Problems parsing JSON" is answered: after
 * authentication, before the access decision and the schemas.
 */
export async function requireObjectBody(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const routeUrl = request.routeOptions.url;
  if (routeUrl === undefined || request.body === undefined) return;
  const operation = OPERATION_VALIDATORS[`${request.method} ${openApiPath(routeUrl)}`];
  if (!operation?.body) return;
  const body = request.body;
  if (typeof body === "object" && body !== null && !Array.isArray(body)) return;
  return sendError(reply, 400, "Body should be a JSON object");
}
