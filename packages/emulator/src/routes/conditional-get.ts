import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Sends the weak `ETag` of what an answer shows (`content`: anything that changes when the answer would) and
 * tells whether the request's `If-None-Match` names it (weak comparison, RFC 9110 13.1.2, or `*`): then the route
 * answers 304, which costs the caller no rate limit.
 */
export function notModifiedSince(request: FastifyRequest, reply: FastifyReply, content: string): boolean {
  const etag = `W/"${createHash("sha1").update(content).digest("hex")}"`;
  reply.header("etag", etag);
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return String(ifNoneMatch)
    .split(",")
    .some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}
