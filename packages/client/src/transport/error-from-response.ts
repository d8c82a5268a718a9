// How an error answer becomes a typed error: its status, and for a 403 or 429 whether it is a rate limit.
import { parseAcceptedPermissions } from "../errors/accepted-permissions.js";
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  RateLimitedError,
  ServiceValidationError,
  UnavailableError,
  UnexpectedStatusError,
  type ServiceError,
  type ServiceErrorDetails,
  type ServiceFieldError,
} from "../errors/errors.js";
import type { RefusalExplanation } from "./pipeline.js";
import { isRateLimitAnswer, isSecondaryRateLimit, SECONDARY_LIMIT_MIN_WAIT_MS } from "./retry-policy.js";

/**
 * Maps an error status to the class for its meaning (spec section 7). `explain` is asked about a 403 (the
 * transport's plugins: the client's knows the permission matrix).
 */
export function errorFromResponse(
  method: string,
  route: string,
  response: Pick<Response, "status" | "statusText" | "headers">,
  body: unknown,
  explain: () => RefusalExplanation | undefined = () => undefined,
): ServiceError {
  const explanation = response.status === 403 ? explain() : undefined;
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const rawMessage = record.message;
  const serviceMessage =
    typeof rawMessage === "string"
      ? rawMessage
      : rawMessage && typeof rawMessage === "object"
        ? causeMessage(rawMessage as Record<string, unknown>)
        : typeof body === "string" && body
          ? body.slice(0, 200)
          : response.statusText || "no message";
  const details: ServiceErrorDetails = {
    status: response.status,
    method,
    route,
    serviceMessage,
    documentationUrl: typeof record.documentation_url === "string" ? record.documentation_url : undefined,
    // When the service does not say what the endpoint accepts, a plugin may (the client's: the permission matrix).
    acceptedPermissions: response.headers.has("x-accepted-service-permissions")
      ? parseAcceptedPermissions(response.headers.get("x-accepted-service-permissions"))
      : (explanation?.acceptedPermissions ?? []),
    requestId: response.headers.get("x-service-request-id") ?? undefined,
    serviceDate: response.headers.get("date") ?? undefined,
    body,
  };
  const status = response.status;
  if (status === 401) return new AuthenticationError(details);
  if ((status === 403 && isRateLimitAnswer(response.headers, body)) || status === 429) {
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    const retryAfter = Number(response.headers.get("retry-after"));
    // A secondary limit that names no wait asks for at least a minute.
    const secondaryWait =
      isSecondaryRateLimit(body) && response.headers.get("x-ratelimit-remaining") !== "0" ? SECONDARY_LIMIT_MIN_WAIT_MS / 1000 : undefined;
    return new RateLimitedError(
      details,
      Number.isFinite(reset) && reset > 0 && response.headers.get("x-ratelimit-remaining") === "0" ? new Date(reset * 1000) : undefined,
      Number.isFinite(retryAfter) && response.headers.has("retry-after") ? retryAfter : secondaryWait,
    );
  }
  // The likeliest cause (a token of another type, on an endpoint that takes only classic tokens) is said first.
  if (status === 403) return new ForbiddenError(details, explanation?.hint);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 410) return new GoneError(details);
  if (status === 422) {
    const errors = Array.isArray(record.errors) ? (record.errors as ServiceFieldError[]) : [];
    return new ServiceValidationError(details, errors);
  }
  if (status >= 500) return new UnavailableError(details);
  return new UnexpectedStatusError(details);
}

/**
 * A `{cause, repositories}` message (the cluster call's 403 and 404) as one line naming the repositories, which
 * is what the caller has to fix: `One or more repositories do not exist: web-old, api-v1`.
 */
function causeMessage(message: Record<string, unknown>): string {
  const cause = message.cause;
  if (cause === undefined) return JSON.stringify(message);
  const repositories = message.repositories;
  const named = Array.isArray(repositories) && repositories.length > 0 ? `: ${repositories.map(String).join(", ")}` : "";
  return `${String(cause)}${named}`;
}
