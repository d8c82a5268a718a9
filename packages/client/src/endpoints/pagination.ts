import type { PageOptions } from "./call-options.js";
import type { PageLimits } from "./endpoint.js";
import { RequestValidationError } from "../errors/errors.js";
import type { RouteRequest, ServiceResponse } from "../transport/route-request.js";
import type { Transport } from "../transport/transport.js";

export type { PageOptions } from "./call-options.js";
export type { PageLimits } from "./endpoint.js";

/**
 * One link of a `Link` header: `<URI>` and its `;`-separated parameters. Only the angle brackets delimit the URI,
 * which may hold commas and semicolons (a cursor, a list filter); a quoted parameter value may hold them too.
 */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^\s;,=]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;,"]*))?)*)/g;
const LINK_PARAM = /;\s*([^\s;,=]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;,"]*)))?/g;

/** Parses an RFC 8288 `Link` header into rel → URL (the first link of a relation is kept, and its first `rel`). */
export function parseLinkHeader(header: string | null | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const [, url = "", params = ""] of header.matchAll(LINK_VALUE)) {
    for (const [, name = "", quoted, bare] of params.matchAll(LINK_PARAM)) {
      if (name.toLowerCase() !== "rel") continue;
      const value = quoted?.replace(/\\(.)/g, "$1") ?? bare ?? "";
      // A relation type is case-insensitive; several may share one link (`rel="next last"`).
      for (const rel of value.toLowerCase().split(/\s+/)) if (rel && !(rel in links)) links[rel] = url;
      break;
    }
  }
  return links;
}

/** Checks `per_page` and `page` against an endpoint's limits; throws before sending. */
export function checkPageOptions(operation: string, options: PageOptions, limits: PageLimits): void {
  const issues = [];
  const perPage = options.per_page;
  if (perPage !== undefined && (!Number.isInteger(perPage) || perPage < 1 || perPage > limits.maxPerPage)) {
    issues.push({
      field: "per_page",
      rule: `integer from 1 to ${limits.maxPerPage}`,
      message: `per_page must be an integer from 1 to ${limits.maxPerPage} for this endpoint (got ${perPage})`,
    });
  }
  if (options.page !== undefined && (!Number.isInteger(options.page) || options.page < 1)) {
    issues.push({ field: "page", rule: "integer >= 1", message: `page must be a positive integer (got ${options.page})` });
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}

/** Where a listing starts and how its first page is asked for. */
export interface PageRequest {
  perPage: number;
  /** Default 1. */
  page?: number;
  /** Headers of the first request only (a poll's `If-None-Match`); later pages are not conditional. */
  firstPageHeaders?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The one page loop: every page of a list as the service answered it (status, headers and body), following
 * `Link: rel="next"` (only to the service's own origin) until a page names none. The caller may stop early. A 304
 * to a conditional first page is yielded and ends the listing.
 */
export async function* pageResponses(
  transport: Transport,
  request: RouteRequest,
  page: PageRequest,
): AsyncGenerator<ServiceResponse, void, undefined> {
  const signal = page.signal ?? request.signal;
  const query = { ...request.query, per_page: page.perPage, page: page.page ?? 1 };
  let url: string | undefined = transport.buildUrl(request.route, request.params, query);
  let headers = page.firstPageHeaders;
  while (url !== undefined) {
    const response: ServiceResponse = await transport.request({ ...request, url, headers: { ...request.headers, ...headers }, signal });
    yield response;
    headers = undefined;
    url = response.status === 304 ? undefined : parseLinkHeader(response.headers.get("link")).next;
  }
}
