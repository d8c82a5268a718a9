import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The weak `ETag` (`W/"..."`) of what an answer shows: anything that changes when the answer would. */
export function weakEtag(content: string): string {
  return `W/"${createHash("sha1").update(content).digest("hex")}"`;
}

/** Whether an `If-None-Match` value names this ETag: weak comparison (RFC 9110 13.1.2), or `*`. */
export function ifNoneMatchNames(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

/** The request's `If-None-Match`, or undefined when it sends none. */
export function ifNoneMatchOf(request: FastifyRequest): string | undefined {
  const value = request.headers["if-none-match"];
  return value === undefined ? undefined : String(value);
}

/**
 * Sends the weak `ETag` of what an answer shows (`content`: anything that changes when the answer would) and
 * tells whether the request's `If-None-Match` names it: then the route answers 304, which costs the caller no
 * rate limit.
 */
export function notModifiedSince(request: FastifyRequest, reply: FastifyReply, content: string): boolean {
  const etag = weakEtag(content);
  reply.header("etag", etag);
  const ifNoneMatch = ifNoneMatchOf(request);
  return ifNoneMatch !== undefined && ifNoneMatchNames(ifNoneMatch, etag);
}

/**
 * Answers a GET with `body` and its weak ETag, or 304 with no body when `If-None-Match` names that ETag (the
 * service sends an ETag on most answers; production-facts.md, "More HTTP details").
 */
export function sendConditionally(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  if (notModifiedSince(request, reply, JSON.stringify(body))) return reply.code(304).send();
  return reply.send(body);
}
