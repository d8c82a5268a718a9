// What a request names: the resource, namespace, object and subresource from its path, and its query parameters.
import type { FastifyReply } from "fastify";
import type { ResourceKind } from "./resource-kinds.js";
import { resourceKind } from "./resource-kinds.js";
import { EVENTS_V1_KIND } from "./events-view.js";
import type { ObjectFilter } from "./selectors.js";
import { checkFieldSelector, parseFieldSelector, parseLabelSelector } from "./selectors.js";
import { ApiError } from "./status.js";

/** The object or collection a request is about. */
export interface Target {
  kind: ResourceKind;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

/** Query parameters as fastify parses them. */
export type Query = Record<string, string | string[] | undefined>;

/** 404 for a path the API does not serve. */
export function notFoundPath(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource");
}

/** The last value of a query parameter. */
export function one(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** Splits /api/v1/... and /apis/{group}/{version}/... into group, version and the rest. */
export function splitPath(url: string): { group: string; version: string; rest: string[] } | undefined {
  const path = url.split("?")[0]!;
  const segments = path
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
  if (segments[0] === "api" && segments[1]) return { group: "", version: segments[1], rest: segments.slice(2) };
  if (segments[0] === "apis" && segments[1] && segments[2]) return { group: segments[1], version: segments[2], rest: segments.slice(3) };
  return undefined;
}

function kindIn(group: string, version: string, resource: string | undefined): ResourceKind | undefined {
  if (group === EVENTS_V1_KIND.group && version === EVENTS_V1_KIND.version && resource === "events") return EVENTS_V1_KIND;
  const k = resource === undefined ? undefined : resourceKind(resource);
  return k && k.group === group && k.version === version ? k : undefined;
}

/** The resource, namespace, name and subresource a path names (404 when none). */
export function parseTarget(group: string, version: string, rest: string[]): Target {
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const kind = kindIn(group, version, rest[2]);
    if (kind?.namespaced && rest.length <= 5) return { kind, namespace: rest[1], name: rest[3], subresource: rest[4] };
  }
  const kind = kindIn(group, version, rest[0]);
  if (!kind || rest.length > 3) throw notFoundPath();
  if (kind.namespaced && rest.length > 1) throw notFoundPath();
  return { kind, namespace: undefined, name: rest[1], subresource: rest[2] };
}

/** The namespace and selectors of a list or watch request (400 for a selector the resource does not support). */
export function filterFrom(target: Target, query: Query): ObjectFilter {
  const fields = parseFieldSelector(one(query, "fieldSelector"));
  checkFieldSelector(target.kind, fields);
  return { namespace: target.namespace, labels: parseLabelSelector(one(query, "labelSelector")), fields };
}

/** Which subresources exist: 404 for the rest (a GET of `/pods/x/bogus` must not return the pod). */
export function checkSubresource(target: Target): void {
  const sub = target.subresource;
  if (sub === undefined) return;
  if (sub === "status" && target.kind.hasStatus) return;
  if (sub === "scale" && target.kind.hasScale) return;
  if (sub === "ephemeralcontainers" && target.kind.resource === "pods") return;
  throw notFoundPath();
}

/** Answers a JSON text. */
export function sendJson(reply: FastifyReply, code: number, text: string): FastifyReply {
  return reply.code(code).type("application/json").send(text);
}
