// What one call asks of the transport and what it answers, apart from the transport itself so that the
// strategies and plugins it runs can name them without importing it.
import type { HttpMethod } from "./pipeline.js";

/** One request to a route of the service, as the transport takes it. */
export interface RouteRequest {
  method: HttpMethod;
  /** Path template, e.g. `/orgs/{org}/artifacts/metadata/storage-record`. */
  route: string;
  /** Values for the template's `{placeholders}`. */
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Whether repeating the request cannot do harm. GET, PUT and DELETE are by HTTP's definition;
   * a POST only when the endpoint is an upsert (the artifact-metadata POSTs are).
   */
  safeToRetry?: boolean;
  /** A full URL to call instead of the route (a pagination `Link`). */
  url?: string;
}

/** An answer the transport accepted (status below 400), its body decoded. */
export interface ServiceResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
  url: string;
}
