import { ForeignUrlError, RequestValidationError } from "../errors/errors.js";
import { expandTemplate } from "./path-templates.js";
import type { RouteRequest } from "./route-request.js";

/** The service's URLs: requests' URLs built from routes, and URLs from answers kept to the service's base. */
export class ServiceUrls {
  readonly baseUrl: string;
  /** The base URL's own path (`/api/v3` on some servers), without a trailing slash. */
  readonly #basePath: string;

  /** `baseUrl` is an absolute http(s) URL (checked with the transport's options). */
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#basePath = new URL(this.baseUrl).pathname.replace(/\/+$/, "");
  }

  /** Expands a route template and query into a full URL. */
  build(route: string, params: Record<string, string | number> = {}, query: RouteRequest["query"] = {}): string {
    const path = expandTemplate(route, (name) => {
      const value = params[name];
      if (value === undefined || value === "") {
        throw new RequestValidationError(route, [{ field: name, rule: "required", message: `path parameter ${name} is required` }]);
      }
      return String(value);
    });
    let search: URLSearchParams | undefined;
    for (const key in query) {
      const value = query[key];
      if (value === undefined) continue;
      search ??= new URLSearchParams();
      search.set(key, String(value));
    }
    return search ? `${this.baseUrl}${path}?${search.toString()}` : `${this.baseUrl}${path}`;
  }

  /**
   * A URL from an answer (a pagination `Link`) must point at this service: the token is only ever sent to
   * the base URL's origin and path.
   */
  sameService(url: string, operation: string): string {
    let target: URL;
    try {
      target = new URL(url, this.baseUrl);
    } catch {
      throw new ForeignUrlError(operation, "not a URL");
    }
    const base = new URL(this.baseUrl);
    const basePath = this.#basePath;
    if (target.origin !== base.origin || (basePath && target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`))) {
      throw new ForeignUrlError(operation, `${target.origin}${target.pathname} is outside ${base.origin}${basePath}`);
    }
    return target.href;
  }

  /** The API path of a URL, without the base URL's own path (a server under `/api/v3`, say). */
  pathOf(url: string): string {
    const pathname = new URL(url).pathname;
    const basePath = this.#basePath;
    return basePath && pathname.startsWith(basePath) ? pathname.slice(basePath.length) || "/" : pathname;
  }
}
