// The self-review APIs kubectl calls: `kubectl auth can-i` (authorization.k8s.io/v1 SelfSubjectAccessReview) and
// `kubectl auth whoami` (authentication.k8s.io/v1 SelfSubjectReview). The fake has no authentication and no RBAC:
// every request is the admin's, so every review is allowed, and whoami names a fixed admin in system:masters.
import type { FastifyInstance } from "fastify";
import type { ClusterClock } from "./cluster-clock.js";
import { isJsonObject, type KubeObject } from "./kube-object.js";
import { managerFromUserAgent, updateManagedFields } from "./managed-fields.js";
import { parseBody } from "./request-bodies.js";
import { one, type Query, sendJson } from "./request-target.js";
import { ApiError, badRequest } from "./status.js";

/** Who every request is, for `kubectl auth whoami`. */
export const FAKE_USER = { username: "shiplog-fake-admin", groups: ["system:masters", "system:authenticated"] };

function reviewBody(body: unknown, kind: string): KubeObject {
  if (body === undefined) return { metadata: {} };
  if (!isJsonObject(body)) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: body must be a JSON object`);
  if (body.kind !== undefined && body.kind !== kind)
    throw badRequest(`the object provided is unrecognized (kind "${String(body.kind)}" does not match ${kind})`);
  return body as KubeObject;
}

/** Registers POST selfsubjectaccessreviews and selfsubjectreviews; `clock` stamps their answers. */
export function registerAccessReviews(app: FastifyInstance, clock: ClusterClock): void {
  app.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", async (request, reply) => {
    const review = reviewBody(parseBody(request), "SelfSubjectAccessReview");
    const spec = isJsonObject(review.spec) ? review.spec : {};
    if ((spec.resourceAttributes === undefined) === (spec.nonResourceAttributes === undefined)) {
      const message = "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified";
      throw new ApiError(422, "Invalid", `.authorization.k8s.io "" is invalid: spec: ${message}`, {
        group: "authorization.k8s.io",
        causes: [{ reason: "FieldValueInvalid", message, field: "spec" }],
      });
    }
    const apiVersion = "authorization.k8s.io/v1";
    const manager = one(request.query as Query, "fieldManager") || managerFromUserAgent(request.headers["user-agent"]);
    const managedFields = updateManagedFields(undefined, { metadata: {}, spec }, undefined, manager, apiVersion, clock.timestamp());
    const answer = {
      kind: "SelfSubjectAccessReview",
      apiVersion,
      metadata: managedFields ? { managedFields } : {},
      spec,
      status: { allowed: true },
    };
    return sendJson(reply, 201, JSON.stringify(answer));
  });
  app.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", async (request, reply) => {
    reviewBody(parseBody(request), "SelfSubjectReview");
    const answer = {
      kind: "SelfSubjectReview",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { creationTimestamp: clock.timestamp() },
      status: { userInfo: FAKE_USER },
    };
    return sendJson(reply, 201, JSON.stringify(answer));
  });
}
