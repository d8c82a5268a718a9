// How the service answers a request over a secondary rate limit, and the hook that applies the limits to every
// endpoint. The answers are what clients recognise: 403 (or 429) whose message says a secondary rate limit was
// exceeded (octokit's throttling plugin and our client match "secondary rate limit"), the primary limit's headers
// not spent, and `retry-after` when a wait can be named.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "./access-control.js";
import type { SecondaryRateLimits } from "./secondary-rate-limits.js";
import { sendError } from "./service-errors.js";

/** Where the service's secondary-limit answers point. */
export const SECONDARY_RATE_LIMIT_DOCS = "/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";

/** The service's wording: a general one, and one for a caller blocked from creating content. */
export function secondaryRateLimitMessage(requestId: string, contentCreation = false): string {
  const what = contentCreation
    ? "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. " +
      "Please retry your request again later."
    : "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";
  return `${what} If you reach out to the service's support for help, please include the request ID ${requestId}.`;
}

/** Sends a secondary-limit refusal. */
export function sendSecondaryRateLimit(
  reply: FastifyReply,
  answer: { status?: number; retryAfterSeconds?: number | undefined; contentCreation?: boolean },
): FastifyReply {
  return sendError(reply, answer.status === 429 ? 429 : 403, secondaryRateLimitMessage(String(reply.request.id), answer.contentCreation), {
    docs: SECONDARY_RATE_LIMIT_DOCS,
    headers: answer.retryAfterSeconds === undefined ? {} : { "retry-after": String(answer.retryAfterSeconds) },
  });
}

/**
 * Who a secondary limit applies to: the service limits per user or per App installation, so every token of one
 * user (and every token minted for one installation, named after it) shares them; a token with no user is its
 * own caller, and an anonymous request is limited by its address.
 */
export function secondaryLimitCaller(principal: Principal, ip: string): string {
  if (principal.kind !== "token") return `ip:${ip}`;
  return principal.token.user !== undefined ? `user:${principal.token.user}` : `token:${principal.token.name}`;
}

/**
 * Applies the limits to a routed request as it arrives, once its caller is known (after authentication, before
 * faults: a request held by a latency fault is in flight at the service). Answers the refusal and returns the
 * reply, or returns undefined; an admitted request holds its concurrency slot until its response closes, whichever
 * way it ends (answered, dropped, aborted).
 */
export function applySecondaryRateLimits(
  limits: SecondaryRateLimits,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  const route = request.routeOptions.url;
  if (route === undefined) return undefined; // not an endpoint: 404
  const admission = limits.admit({ caller: secondaryLimitCaller(request.principal, request.ip), method: request.method, route });
  if (admission.admitted) {
    reply.raw.once("close", admission.release);
    return undefined;
  }
  const contentCreation = admission.limit === "content_per_minute" || admission.limit === "content_per_hour";
  return sendSecondaryRateLimit(reply, { status: limits.settings.status, retryAfterSeconds: admission.retryAfterSeconds, contentCreation });
}
