// What the registry says of one endpoint. Everything that depends on an endpoint (the client's call, the
// permission statement, the emulator's route, the contract tests) reads it from its entry.
import type { z } from "zod";
import type { Statement } from "../permissions/statement.js";
import type { HttpMethod } from "../transport/pipeline.js";

/** The `per_page` rules of one list endpoint (spec section 8, OpenAPI defaults). */
export interface PageLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

/** A retired family of endpoints: a call warns once per process, and a 410 answer is a RetiredEndpointError. */
export interface Retirement {
  /** When the service closed them (ISO 8601). */
  at: string;
  /** What closed, as a message names it: `The source import endpoints`. */
  what: string;
  /** The code of the DeprecationWarning a call emits (once per process). */
  warningCode: string;
}

/** One endpoint of the service, as data. */
export interface Endpoint {
  method: HttpMethod;
  /** Path template as the OpenAPI description writes it: `/repos/{owner}/{repo}/git/ref/{ref}`. */
  route: string;
  /**
   * Every parameter a call takes, checked before anything is sent: the route's `{placeholders}`, the `query`
   * names, and the body's fields (the rest). A strict object, so a misspelt field is refused.
   */
  params: z.ZodType<Record<string, unknown>>;
  /** Parameters sent in the query string. */
  query?: readonly string[];
  /** Whether the parameters left after path and query go as a JSON body. Default: for POST, PUT and PATCH. */
  body?: boolean;
  /** The answer's schema; none when the service answers 204 (or its answer carries nothing to read). */
  response?: z.ZodType;
  /** What an answer without a body stands for (a 205, or records not returned): parsed by `response`. */
  emptyAnswer?: unknown;
  /**
   * Whether the transport may send the request again after a lost answer or a 5xx: `safe` when a repeat cannot
   * do harm (GET, PUT, DELETE by HTTP; an upsert POST), `unsafe` when a repeat would misreport (a create that
   * answers "already exists" for our own object).
   */
  retry: "safe" | "unsafe";
  /** A list endpoint: its `per_page` rules; the answer is an array and pages follow `Link`. */
  pages?: PageLimits;
  /** The permission statement of the endpoint's section of the spec (4.1 to 4.5), when it has one. */
  statement?: Statement;
  /** Authenticated by the App's JWT instead of a token: outside the permission matrix. */
  auth?: "app_jwt";
  /** The service closed the endpoint (the source imports). */
  retired?: Retirement;
}
