import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { DeleteOptions } from "./garbage-collector.js";
import { parsePropagationPolicy } from "./garbage-collector.js";
import { listCollection, watchCollection } from "./collection-reads.js";
import type { RouteContext } from "./route-context.js";
import type { JsonObject, KubeObject } from "./kube-object.js";
import { isJsonObject, objectJson } from "./kube-object.js";
import { jsonPatch, mergePatch } from "./object-patch.js";
import { apiGroupList, apiResourceList } from "./discovery.js";
import { openApiDocument, openApiRoot } from "./openapi-v3.js";
import type { Workload } from "./object-kinds.js";
import type { Scale } from "./scale-subresource.js";
import { scaleOf } from "./scale-subresource.js";
import type { Query, Target } from "./request-target.js";
import { checkSubresource, filterFrom, notFoundPath, one, parseTarget, sendJson, splitPath } from "./request-target.js";
import { toTable, wantsTable } from "./table-printers.js";
import { DecodeError, decodeObject } from "./validation/index.js";
import type { Decoded } from "./validation/schema.js";
import { decode } from "./validation/schema.js";
import { scaleSchema } from "./validation/kind-schemas.js";
import { strategicMergePatch } from "./strategic-merge-patch.js";
import type { ResourceKind } from "./resource-kinds.js";
import { apiVersionOf } from "./resource-kinds.js";
import { ApiError, badRequest, invalidObject, successStatus } from "./status.js";

const BODY_TYPES = [
  "application/json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/json-patch+json",
  "application/apply-patch+yaml",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];

/** The fake speaks JSON only: protobuf and server-side apply are refused with a 415 that says so. */
function unsupportedMediaType(type: string): ApiError {
  if (type.includes("apply-patch")) {
    return new ApiError(
      415,
      "UnsupportedMediaType",
      "server-side apply (application/apply-patch+yaml) is not supported by the shiplog fake cluster; use client-side apply (kubectl apply --server-side=false)",
    );
  }
  if (type.includes("protobuf")) {
    return new ApiError(
      415,
      "UnsupportedMediaType",
      "protobuf request bodies (application/vnd.kubernetes.protobuf) are not supported by the shiplog fake cluster; send application/json",
    );
  }
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: application/json, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
  );
}

type FieldValidation = "Strict" | "Warn" | "Ignore";

/** Query options of a write: dryRun=All, fieldValidation (default Warn, as API servers from 1.27). */
function writeOptions(query: Query): { dryRun: boolean; fieldValidation: FieldValidation } {
  const dryRun = dryRunOption(query.dryRun);
  const validation = one(query, "fieldValidation") ?? "Warn";
  if (validation !== "Strict" && validation !== "Warn" && validation !== "Ignore") {
    throw badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(validation)}: supported values: "Ignore", "Strict", "Warn"`);
  }
  return { dryRun, fieldValidation: validation };
}

/** dryRun (the query's or DeleteOptions'): true for "All", false when absent, else a 400. */
function dryRunOption(raw: unknown): boolean {
  const dry: unknown[] = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  for (const value of dry)
    if (value !== "All") throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  return dry.length > 0;
}

/** Adds `Warning: 299 - "<text>"` headers, as the API server does for dropped fields. */
function addWarnings(reply: FastifyReply, texts: string[]): void {
  const existing = reply.getHeader("Warning");
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header("Warning", [...before, ...texts.map((t) => `299 - ${JSON.stringify(t)}`)]);
}

/** Decodes a body as the kind's Go type would: 400 for wrong types, unknown fields warned about or refused. */
function decodeBody(
  kind: ResourceKind,
  body: unknown,
  validation: FieldValidation,
  reply: FastifyReply,
  schema = decodeObject.bind(null, kind.resource),
): KubeObject {
  const obj = requireObjectBody(body, kind);
  const cannot = `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}`;
  let decoded: Decoded;
  try {
    decoded = schema(obj);
  } catch (error) {
    if (error instanceof DecodeError) throw badRequest(`${cannot}: ${error.message}`);
    throw error;
  }
  const unknown = decoded.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (unknown.length > 0 && validation === "Strict") throw badRequest(`${cannot}: strict decoding error: ${unknown.join(", ")}`);
  if (unknown.length > 0 && validation === "Warn") addWarnings(reply, unknown);
  const value = decoded.value as KubeObject;
  value.metadata ??= {};
  return value;
}

// The API server's JSON decoder stops at this depth; deeper bodies would overflow recursive code further on.
const MAX_JSON_DEPTH = 10000;

/** Deepest bracket nesting of JSON text, outside strings (one pass, no recursion). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function parseBody(request: FastifyRequest): unknown {
  const raw = request.body;
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw !== "string") return raw;
  const type = request.headers["content-type"] ?? "";
  if (type.includes("yaml") || type.includes("protobuf")) throw unsupportedMediaType(type);
  if (nestingDepth(raw) > MAX_JSON_DEPTH)
    throw badRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels: json: exceeded max depth`);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function requireObjectBody(body: unknown, kind: ResourceKind): KubeObject {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: body must be a JSON object`);
  const obj = body as KubeObject;
  if (obj.metadata === undefined) obj.metadata = {};
  if (obj.metadata === null || typeof obj.metadata !== "object")
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: metadata must be an object`);
  if (obj.kind !== undefined && obj.kind !== kind.kind)
    throw badRequest(`the object provided is unrecognized (kind "${String(obj.kind)}" does not match ${kind.kind})`);
  return obj;
}

function checkNamespace(target: Target, obj: KubeObject): void {
  if (!target.kind.namespaced) return;
  if (obj.metadata.namespace === undefined || obj.metadata.namespace === "") obj.metadata.namespace = target.namespace;
  else if (obj.metadata.namespace !== target.namespace)
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
}

/** Registers the Kubernetes API routes and discovery endpoints. */
export function registerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(BODY_TYPES, { parseAs: "string" }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof ApiError) return reply.code(error.code).send(error.toStatus());
    const e = error as { statusCode?: number; message?: string };
    if (e.statusCode === 415) return reply.code(415).send(unsupportedMediaType(String(_request.headers["content-type"] ?? "")).toStatus());
    const code = e.statusCode && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
    const apiError = new ApiError(code, code >= 500 ? "InternalError" : "BadRequest", e.message ?? "internal error");
    return reply.code(code).send(apiError.toStatus());
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFoundPath().toStatus()));

  app.get("/version", async () => ({ major: "1", minor: "31", gitVersion: "v1.31.0-shiplog-fake", platform: "linux/amd64" }));
  for (const path of ["/healthz", "/readyz", "/livez"]) app.get(path, async (_req, reply) => reply.type("text/plain").send("ok"));
  app.get("/api", async () => ({
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }],
  }));
  app.get("/apis", async () => apiGroupList());
  app.get("/openapi/v3", async () => openApiRoot());
  app.get("/openapi/v3/*", async (request) => {
    const doc = openApiDocument(request.url.split("?")[0]!.slice("/openapi/v3/".length));
    if (!doc) throw notFoundPath();
    return doc;
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const parts = splitPath(request.url);
    if (!parts) throw notFoundPath();
    if (parts.rest.length === 0 && request.method === "GET") {
      const list = apiResourceList(parts.group, parts.version);
      if (!list) throw notFoundPath();
      return list;
    }
    const target = parseTarget(parts.group, parts.version, parts.rest);
    checkSubresource(target);
    const query = (request.query ?? {}) as Query;
    const kind = target.kind;
    switch (request.method) {
      case "GET": {
        if (target.name === undefined) {
          const watch = one(query, "watch");
          if (watch === "true" || watch === "1") return watchCollection(ctx, target, query, reply);
          return listCollection(ctx, target, query, reply, request.headers.accept);
        }
        const obj = ctx.store.getOrThrow(kind.resource, target.namespace, target.name);
        if (target.subresource === "scale") return sendJson(reply, 200, JSON.stringify(scaleOf(obj as Workload)));
        if (wantsTable(request.headers.accept)) {
          const table = toTable(
            kind.resource,
            [obj],
            { resourceVersion: obj.metadata.resourceVersion },
            one(query, "includeObject"),
            Date.now(),
          );
          return sendJson(reply, 200, JSON.stringify(table));
        }
        return sendJson(reply, 200, objectJson(obj));
      }
      case "POST": {
        if (target.name !== undefined) throw notFoundPath();
        const options = writeOptions(query);
        const obj = decodeBody(kind, parseBody(request), options.fieldValidation, reply);
        checkNamespace(target, obj);
        return sendJson(reply, 201, objectJson(ctx.store.create(kind.resource, obj, { dryRun: options.dryRun })));
      }
      case "PUT": {
        if (target.name === undefined)
          throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        const options = writeOptions(query);
        if (target.subresource === "scale")
          return sendJson(
            reply,
            200,
            JSON.stringify(writeScale(ctx, target, decodeScale(kind, parseBody(request), options.fieldValidation, reply), options.dryRun)),
          );
        const obj = decodeBody(kind, parseBody(request), options.fieldValidation, reply);
        checkNamespace(target, obj);
        if (obj.metadata.name !== target.name)
          throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${target.name})`);
        return sendJson(reply, 200, objectJson(update(ctx, target, obj, options.dryRun)));
      }
      case "PATCH": {
        if (target.name === undefined)
          throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        const options = writeOptions(query);
        const type = request.headers["content-type"] ?? "";
        if (type.includes("apply-patch")) throw unsupportedMediaType(type);
        const body = parseBody(request);
        const existing = ctx.store.getOrThrow(kind.resource, target.namespace, target.name);
        const apply = (doc: KubeObject) =>
          (type.includes("json-patch")
            ? jsonPatch(doc, body)
            : type.includes("strategic-merge-patch")
              ? strategicMergePatch(structuredClone(doc), body)
              : mergePatch(structuredClone(doc), body)) as KubeObject;
        if (target.subresource === "scale") {
          const scale = decodeScale(kind, apply(scaleOf(existing as Workload)), options.fieldValidation, reply);
          return sendJson(reply, 200, JSON.stringify(writeScale(ctx, target, scale, options.dryRun)));
        }
        const obj = decodeBody(kind, apply(existing), options.fieldValidation, reply);
        checkNamespace(target, obj);
        if (obj.metadata.name !== target.name) throw badRequest("metadata.name: the patch may not change the name");
        return sendJson(reply, 200, objectJson(update(ctx, target, obj, options.dryRun)));
      }
      case "DELETE":
        return deleteRequest(ctx, target, query, parseBody(request), reply);
      default:
        throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
  };
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/api/*", handler });
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/apis/*", handler });
}

/** A Scale body: decoded as autoscaling/v1 Scale. */
function decodeScale(kind: ResourceKind, body: unknown, validation: FieldValidation, reply: FastifyReply): Scale {
  const scaleKind = { ...kind, kind: "Scale", version: "v1" };
  return decodeBody(scaleKind, body, validation, reply, (obj) => decode(scaleSchema, obj)) as Scale;
}

/** Sets spec.replicas from a Scale (its resourceVersion, when given, is a precondition); answers the new Scale. */
function writeScale(ctx: RouteContext, target: Target, scale: Scale, dryRun: boolean): Scale {
  // Only workloads have the scale subresource (checkSubresource).
  const existing = ctx.store.getOrThrow(target.kind.resource, target.namespace, target.name!) as Workload;
  const replicas = scale.spec?.replicas ?? 0;
  if (replicas < 0) {
    const scaleKind = { ...target.kind, kind: "Scale", group: "autoscaling" };
    throw invalidObject(scaleKind, target.name!, [
      { reason: "FieldValueInvalid", field: "spec.replicas", message: `Invalid value: ${replicas}: must be greater than or equal to 0` },
    ]);
  }
  const rv = scale.metadata.resourceVersion;
  const next = {
    ...existing,
    metadata: { ...existing.metadata, ...(rv ? { resourceVersion: rv } : {}) },
    spec: { ...existing.spec, replicas },
  };
  return scaleOf(ctx.store.update(target.kind.resource, next, undefined, { dryRun }) as Workload);
}

function update(ctx: RouteContext, target: Target, obj: KubeObject, dryRun: boolean): KubeObject {
  const resource = target.kind.resource;
  if (target.subresource === undefined) return ctx.store.update(resource, obj, undefined, { dryRun });
  if (target.subresource === "status" && target.kind.hasStatus) return ctx.store.update(resource, obj, "status", { dryRun });
  if (target.subresource === "ephemeralcontainers" && resource === "pods") {
    const existing = ctx.store.getOrThrow(resource, target.namespace, target.name!);
    const rv = obj.metadata.resourceVersion;
    return ctx.store.update(
      resource,
      {
        ...existing,
        metadata: { ...existing.metadata, ...(rv ? { resourceVersion: rv } : {}) },
        spec: { ...existing.spec, ephemeralContainers: obj.spec?.ephemeralContainers },
      },
      undefined,
      { dryRun },
    );
  }
  throw notFoundPath();
}

/** DeleteOptions.preconditions: compared as given (a value of another type matches no object), absent unless an object. */
function preconditionsOf(value: unknown): DeleteOptions["preconditions"] {
  if (!isJsonObject(value)) return undefined;
  return { uid: value.uid as string | undefined, resourceVersion: value.resourceVersion as string | undefined };
}

/** Reads a boolean DeleteOptions field from the body, else the query; undefined when not given. */
function deleteFlag(body: JsonObject | undefined, query: Query, name: string): boolean | undefined {
  const value = body?.[name] ?? one(query, name);
  if (value === undefined || value === null) return undefined;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw badRequest(`${name}: Invalid value: "${String(value)}": must be true or false`);
}

function deleteRequest(ctx: RouteContext, target: Target, query: Query, input: unknown, reply: FastifyReply) {
  if (target.subresource !== undefined) throw notFoundPath();
  if (input !== undefined && (input === null || typeof input !== "object")) throw badRequest("DeleteOptions: body must be a JSON object");
  // An object (an array has none of the fields read here).
  const body = input as JsonObject | undefined;
  const graceText = one(query, "gracePeriodSeconds");
  const grace = body?.gracePeriodSeconds ?? (graceText === undefined ? undefined : Number(graceText));
  if (grace !== undefined && (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0)) {
    throw badRequest("gracePeriodSeconds: must be a non-negative integer");
  }
  let policy = parsePropagationPolicy(body?.propagationPolicy ?? one(query, "propagationPolicy"));
  // The deprecated orphanDependents: true is Orphan, false is Background; never both with propagationPolicy.
  const orphanDependents = deleteFlag(body, query, "orphanDependents");
  if (orphanDependents !== undefined && policy !== undefined) {
    throw new ApiError(
      422,
      "Invalid",
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`,
      {
        group: "meta.k8s.io",
        kind: "DeleteOptions",
        causes: [
          {
            reason: "FieldValueInvalid",
            field: "propagationPolicy",
            message: `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`,
          },
        ],
      },
    );
  }
  if (orphanDependents !== undefined) policy = orphanDependents ? "Orphan" : "Background";
  const options = { propagationPolicy: policy, gracePeriodSeconds: grace, preconditions: preconditionsOf(body?.preconditions) };
  const resource = target.kind.resource;
  if (dryRunOption(body?.dryRun ?? query.dryRun)) return dryRunDelete(ctx, target, query, reply);
  if (target.name === undefined) {
    // deletecollection
    const items = ctx.store.list(resource, filterFrom(target, query));
    for (const item of items) ctx.gc.delete(resource, item.metadata.namespace, item.metadata.name!, options);
    return sendJson(
      reply,
      200,
      `{"kind":"${target.kind.kind}List","apiVersion":"${apiVersionOf(target.kind)}","metadata":{"resourceVersion":"${ctx.store.currentRv()}"},"items":[${items.map(objectJson).join(",")}]}`,
    );
  }
  const result = ctx.gc.delete(resource, target.namespace, target.name, options);
  // As the API server: an object whose deletion is pending (finalizers, graceful pod termination, a namespace
  // emptying) comes back with its deletionTimestamp, 200; 202 only when the (deprecated) orphanDependents=false
  // asked for cascading deletion and the object is still there. Deleted at once: pods return the deleted object
  // (their storage sets ReturnDeletedObject), every other kind a Success Status naming it.
  if (result.pending) return sendJson(reply, orphanDependents === false ? 202 : 200, objectJson(result.object));
  if (resource === "pods") return sendJson(reply, 200, objectJson(result.object));
  return sendJson(reply, 200, JSON.stringify(successStatus(target.kind, target.name, result.object.metadata.uid)));
}

/** DELETE with dryRun=All: the answer a deletion would give, nothing removed, no watch event. */
function dryRunDelete(ctx: RouteContext, target: Target, query: Query, reply: FastifyReply) {
  const resource = target.kind.resource;
  if (target.name === undefined) {
    const items = ctx.store.list(resource, filterFrom(target, query));
    return sendJson(
      reply,
      200,
      `{"kind":"${target.kind.kind}List","apiVersion":"${apiVersionOf(target.kind)}","metadata":{"resourceVersion":"${ctx.store.currentRv()}"},"items":[${items.map(objectJson).join(",")}]}`,
    );
  }
  const obj = ctx.store.getOrThrow(resource, target.namespace, target.name);
  if (resource === "pods") return sendJson(reply, 200, objectJson(obj));
  return sendJson(reply, 200, JSON.stringify(successStatus(target.kind, target.name, obj.metadata.uid)));
}
