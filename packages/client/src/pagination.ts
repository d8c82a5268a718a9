import { RequestValidationError } from "./errors.js";
import type { RouteRequest, Transport } from "./transport.js";

/** The `per_page` rules of one list endpoint (spec section 8, OpenAPI defaults). */
export interface PageLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

export interface PageOptions {
  /** Items per page; checked against the endpoint's maximum before anything is sent. */
  per_page?: number;
  /** First page to fetch. Default 1. */
  page?: number;
  signal?: AbortSignal;
}

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

/**
 * Iterates every page of a list endpoint, following `Link: rel="next"`, yielding each page's
 * parsed items. Stops when the service gives no next link.
 */
export async function* paginatePages<T>(
  transport: Transport,
  request: RouteRequest,
  options: PageOptions,
  limits: PageLimits,
  parsePage: (body: unknown) => T[],
): AsyncGenerator<T[], void, undefined> {
  const operation = `${request.method} ${request.route}`;
  checkPageOptions(operation, options, limits);
  const query = { ...request.query, per_page: options.per_page ?? limits.defaultPerPage, page: options.page ?? 1 };
  let next: string | undefined = transport.buildUrl(request.route, request.params, query);
  while (next) {
    const response: Awaited<ReturnType<Transport["request"]>> = await transport.request({
      ...request,
      url: next,
      signal: options.signal ?? request.signal,
    });
    yield parsePage(response.data);
    next = parseLinkHeader(response.headers.get("link"))["next"];
  }
}

/** Like paginatePages, one item at a time. */
export async function* paginateItems<T>(...args: Parameters<typeof paginatePages<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(...args)) yield* page;
}
