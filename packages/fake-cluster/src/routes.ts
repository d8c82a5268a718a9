import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { listCollection, watchCollection } from "./collection-reads.js";
import type { RouteContext } from "./route-context.js";
import type { KubeObject } from "./kube-object.js";
import { jsonPatch, mergePatch } from "./object-patch.js";
import { apiGroupList, apiResourceList } from "./discovery.js";
import { openApiDocument, openApiRoot } from "./openapi-v3.js";
import type { Workload } from "./object-kinds.js";
import type { Scale } from "./scale-subresource.js";
import { scaleOf } from "./scale-subresource.js";
import type { Query, Target } from "./request-target.js";
import { checkSubresource, notFoundPath, one, parseTarget, sendJson, splitPath } from "./request-target.js";
import { formatObject, outputForm } from "./output-form.js";
import { strategicMergePatch } from "./strategic-merge-patch.js";
import { ApiError, badRequest, invalidObject } from "./status.js";
import { BODY_TYPES, PROTOBUF_TYPE, decodeBody, decodeScale, parseBody, unsupportedMediaType, writeOptions } from "./request-bodies.js";
import { deleteRequest } from "./delete-request.js";
import { registerAccessReviews } from "./access-reviews.js";
import { eventFromV1, eventToV1 } from "./events-view.js";

function checkNamespace(target: Target, obj: KubeObject): void {
  if (!target.kind.namespaced) return;
  if (obj.metadata.namespace === undefined || obj.metadata.namespace === "") obj.metadata.namespace = target.namespace;
  else if (obj.metadata.namespace !== target.namespace)
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
}

/** The API server's limit on a request body (3 MiB): a larger one is answered 413 RequestEntityTooLarge. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Registers the Kubernetes API routes and discovery endpoints. */
export function registerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(BODY_TYPES, { parseAs: "string" }, (_req, body, done) => done(null, body));
  app.addContentTypeParser(PROTOBUF_TYPE, { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof ApiError) return reply.code(error.code).send(error.toStatus());
    const e = error as { statusCode?: number; message?: string };
    if (e.statusCode === 413)
      return reply
        .code(413)
        .send(new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`).toStatus());
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
    // An object answered (read or written) in the form the Accept header asks for, negotiated before anything is done.
    const form = request.method === "GET" && target.name === undefined ? undefined : outputForm(request.headers.accept, false);
    const answer = (obj: KubeObject) =>
      formatObject(
        form ?? { kind: "object" },
        kind.resource,
        kind.view ? eventToV1(obj) : obj,
        one(query, "includeObject"),
        ctx.store.clock.now(),
      );
    // A view's body is converted to the stored kind's shape before it is decoded (events.k8s.io/v1 -> core v1).
    const stored = (body: unknown) =>
      kind.view && body !== null && typeof body === "object" && !Array.isArray(body) ? eventFromV1(body as KubeObject) : body;
    switch (request.method) {
      case "GET": {
        if (target.name === undefined) {
          const watch = one(query, "watch");
          if (watch === "true" || watch === "1") return watchCollection(ctx, target, query, reply, request.headers.accept);
          return listCollection(ctx, target, query, reply, request.headers.accept);
        }
        const obj = ctx.store.getOrThrow(kind.resource, target.namespace, target.name);
        if (target.subresource === "scale") return sendJson(reply, 200, JSON.stringify(scaleOf(obj as Workload)));
        return sendJson(reply, 200, answer(obj));
      }
      case "POST": {
        if (target.name !== undefined) throw notFoundPath();
        const options = writeOptions(query, "Create", request.headers["user-agent"]);
        const obj = decodeBody(kind, stored(parseBody(request)), options.fieldValidation, reply);
        checkNamespace(target, obj);
        return sendJson(reply, 201, answer(ctx.store.create(kind.resource, obj, { dryRun: options.dryRun, manager: options.manager })));
      }
      case "PUT": {
        if (target.name === undefined)
          throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        const options = writeOptions(query, "Update", request.headers["user-agent"]);
        if (target.subresource === "scale")
          return sendJson(
            reply,
            200,
            JSON.stringify(writeScale(ctx, target, decodeScale(kind, parseBody(request), options.fieldValidation, reply), options.dryRun)),
          );
        const obj = decodeBody(kind, stored(parseBody(request)), options.fieldValidation, reply);
        checkNamespace(target, obj);
        if (obj.metadata.name !== target.name)
          throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${target.name})`);
        return sendJson(reply, 200, answer(update(ctx, target, obj, options)));
      }
      case "PATCH": {
        if (target.name === undefined)
          throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        const options = writeOptions(query, "Patch", request.headers["user-agent"]);
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
        const obj = decodeBody(kind, stored(apply(kind.view ? eventToV1(existing) : existing)), options.fieldValidation, reply);
        checkNamespace(target, obj);
        if (obj.metadata.name !== target.name) throw badRequest("metadata.name: the patch may not change the name");
        return sendJson(reply, 200, answer(update(ctx, target, obj, options)));
      }
      case "DELETE":
        return deleteRequest(ctx, target, query, parseBody(request), reply);
      default:
        throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
  };
  registerAccessReviews(app, ctx.store.clock);
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/api/*", handler });
  app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE"], url: "/apis/*", handler });
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

function update(ctx: RouteContext, target: Target, obj: KubeObject, options: { dryRun: boolean; manager: string }): KubeObject {
  const resource = target.kind.resource;
  const { dryRun, manager } = options;
  if (target.subresource === undefined) return ctx.store.update(resource, obj, undefined, { dryRun, manager });
  if (target.subresource === "status" && target.kind.hasStatus) return ctx.store.update(resource, obj, "status", { dryRun, manager });
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
