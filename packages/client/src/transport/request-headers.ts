import { SERVICE_MEDIA_TYPE } from "./api-versions.js";
import { RequestValidationError } from "../errors/errors.js";
import type { RouteRequest } from "./route-request.js";

/** The headers of a request: the service's own (media type, API version, user agent), then the caller's, checked. */
export function requestHeaders(
  req: RouteRequest,
  service: { apiVersion: string; userAgent: string },
  operation: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: SERVICE_MEDIA_TYPE,
    "x-service-api-version": service.apiVersion,
    "user-agent": service.userAgent,
  };
  for (const name in req.headers) {
    const value = req.headers[name]!;
    const issue = headerNameIssue(name, value) ?? (isHeaderValue(value) ? undefined : invalidHeaderValue(`headers.${name}`));
    if (issue) throw new RequestValidationError(operation, [issue]);
    headers[name.toLowerCase()] = value.trim();
  }
  if (req.body !== undefined) headers["content-type"] = "application/json";
  return headers;
}

/** A value both engines send: Latin-1 text without line breaks or other control characters (tabs allowed). */
export function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value.trim());
}

/** The problem of a header value that is not one (see isHeaderValue). */
export function invalidHeaderValue(field: string) {
  return { field, rule: "header value", message: "must be Latin-1 text without line breaks or other control characters" };
}

/** Headers the connection itself owns: undici refuses them from a caller (`connection` takes only close or keep-alive). */
const CONNECTION_HEADERS = new Set(["keep-alive", "transfer-encoding", "upgrade", "expect"]);

function headerNameIssue(name: string, value: string) {
  const field = `headers.${name}`;
  const lower = name.toLowerCase();
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
    return { field, rule: "header name", message: "must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)" };
  if (CONNECTION_HEADERS.has(lower) || (lower === "connection" && !/^(close|keep-alive)$/i.test(value.trim()))) {
    return {
      field,
      rule: "not a connection header",
      message: "is set by the connection, not by a caller (connection: close or keep-alive excepted)",
    };
  }
  return undefined;
}
