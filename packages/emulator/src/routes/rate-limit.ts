import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RateLimits } from "../rate-limits.js";

/** The path of `GET /rate_limit`: answered to any caller, outside the permission matrix, never counted. */
export const RATE_LIMIT_ROUTE = "/rate_limit";

/** The service's search limit a minute (the emulator serves no search endpoint, so nothing is ever used). */
const SEARCH_LIMIT = { authenticated: 30, anonymous: 10 };

/**
 * `GET /rate_limit` (rate-limit/get): the caller's limits, and it does not count against them (OpenAPI: "Accessing
 * this endpoint does not count against your REST API rate limit"; production-facts.md). `core` is the limit the
 * emulator keeps; `search` (required by the official schema) is the service's figure, unused. `rate` repeats
 * `core` and is gone from version 2026-03-10 on (the OpenAPI's `remove_rate_limit_rate` change).
 */
export function registerRateLimitRoute(
  app: FastifyInstance,
  rateLimits: RateLimits,
  callerOf: (request: FastifyRequest) => string,
  clockMs: () => number,
): void {
  app.get(RATE_LIMIT_ROUTE, async (request, reply) => {
    const caller = callerOf(request);
    const core = rateLimits.status(caller);
    const searchLimit = caller.startsWith("ip:") ? SEARCH_LIMIT.anonymous : SEARCH_LIMIT.authenticated;
    const search = { limit: searchLimit, used: 0, remaining: searchLimit, reset: Math.ceil(clockMs() / 1000) + 60 };
    const body: Record<string, unknown> = { resources: { core, search } };
    if (request.apiVersion !== "2026-03-10") body.rate = core;
    return reply.send(body);
  });
}
