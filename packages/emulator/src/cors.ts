import type { FastifyInstance } from "fastify";

/** The request headers a browser may send cross-origin (the service's list, with its header names). */
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "If-Match",
  "If-Modified-Since",
  "If-None-Match",
  "If-Unmodified-Since",
  "Accept-Encoding",
  "X-Requested-With",
  "User-Agent",
  "X-Service-Api-Version",
].join(", ");

/** The answer headers a browser's script may read. */
export const EXPOSED_HEADERS = [
  "ETag",
  "Link",
  "Location",
  "Retry-After",
  "Last-Modified",
  "X-Poll-Interval",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Used",
  "X-RateLimit-Resource",
  "X-RateLimit-Reset",
  "X-OAuth-Scopes",
  "X-Accepted-OAuth-Scopes",
  "X-Accepted-Service-Permissions",
  "X-Service-Request-Id",
  "X-Service-Api-Version-Selected",
].join(", ");

/** The fastify path that answers every preflight. */
export const PREFLIGHT_ROUTE = "/*";

/**
 * CORS from any origin, as the service allows it (production-facts.md, "More HTTP details"): every answer carries
 * `Access-Control-Allow-Origin: *` (set by the server's onSend hook), and an `OPTIONS` preflight on any path is
 * answered 204 with the methods and headers allowed, before authentication: a browser sends no credentials in a
 * preflight, and it is not an API call (no rate limit is counted).
 */
export function registerPreflight(app: FastifyInstance): void {
  app.options(PREFLIGHT_ROUTE, async (_request, reply) =>
    reply
      .code(204)
      .header("access-control-allow-methods", "GET, POST, PATCH, PUT, DELETE")
      .header("access-control-allow-headers", ALLOWED_HEADERS)
      .header("access-control-max-age", "86400")
      .send(),
  );
}
