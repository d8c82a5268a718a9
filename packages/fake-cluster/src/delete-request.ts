import type { FastifyReply } from "fastify";
import type { DeleteOptions } from "./garbage-collector.js";
import { parsePropagationPolicy } from "./garbage-collector.js";
import type { RouteContext } from "./route-context.js";
import type { JsonObject, KubeObject } from "./kube-object.js";
import { isJsonObject, objectJson } from "./kube-object.js";
import { filterFrom, notFoundPath, one, sendJson, type Query, type Target } from "./request-target.js";
import { apiVersionOf } from "./resource-kinds.js";
import { ApiError, badRequest, successStatus } from "./status.js";
import { dryRunOption } from "./request-bodies.js";

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

/** DELETE of one object or (no name) a collection, with DeleteOptions from the body or the query. */
export function deleteRequest(ctx: RouteContext, target: Target, query: Query, input: unknown, reply: FastifyReply) {
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
    return deletedList(reply, ctx, target, items);
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
    return deletedList(reply, ctx, target, items);
  }
  const obj = ctx.store.getOrThrow(resource, target.namespace, target.name);
  if (resource === "pods") return sendJson(reply, 200, objectJson(obj));
  return sendJson(reply, 200, JSON.stringify(successStatus(target.kind, target.name, obj.metadata.uid)));
}

/** A deletecollection's answer: the list of what it deleted (or would delete). */
function deletedList(reply: FastifyReply, ctx: RouteContext, target: Target, items: KubeObject[]) {
  return sendJson(
    reply,
    200,
    `{"kind":"${target.kind.kind}List","apiVersion":"${apiVersionOf(target.kind)}",` +
      `"metadata":{"resourceVersion":"${ctx.store.currentRv()}"},"items":[${items.map(objectJson).join(",")}]}`,
  );
}
