import { API_VERSIONS, DEFAULT_API_VERSION, DEFAULT_BASE_URL, type ApiVersion } from "./api-versions.js";
import { RequestValidationError } from "../errors/errors.js";
import type { AuthStrategy } from "./auth.js";
import type { RetryOptions } from "./retry-policy.js";
import type { TransportClock } from "../timing/clock.js";
import type { ThrottleOptions } from "./throttle.js";
import type { HttpMethod, TransportPlugin } from "./pipeline.js";
import { invalidHeaderValue, isHeaderValue } from "./request-headers.js";

/** Observers for metrics and logs; they never see the token. */
export interface TransportHooks {
  onRetry?(info: { method: HttpMethod; route: string; attempt: number; delayMs: number; reason: string }): void;
  onResponse?(info: { method: HttpMethod; route: string; status: number; durationMs: number; attempt: number }): void;
  /** The service answered 401 and the auth strategy gave a credential for one more attempt. */
  onAuthRetry?(info: { method: string; route: string; renewed: boolean }): void;
  /** A rate-limited answer closed the client's gate for `waitMs`. */
  onRateLimited?: ThrottleOptions["onRateLimited"];
}
/** How a Transport (and so a ShiplogClient) talks to the service. */
export interface TransportOptions {
  /** Default: the public API. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; omitted for anonymous reads of public resources. */
  token?: string;
  /** How to authenticate, instead of `token`: `tokenProvider(...)` or `appInstallationAuth(...)`. */
  auth?: AuthStrategy;
  /**
   * Plugins around every attempt, outermost first, before the transport's own (auth, throttle): leader fencing,
   * say, and the client's declared-token guard.
   */
  plugins?: readonly TransportPlugin[];
  /** The client's rate-limit gate; `serializeMutations` sends POST/PATCH/PUT/DELETE one at a time. */
  throttle?: Pick<ThrottleOptions, "serializeMutations">;
  /** Time for retry waits, the gate and each attempt's timeout. Default the system clock; tests inject one. */
  clock?: TransportClock;
  apiVersion?: ApiVersion;
  userAgent?: string;
  /** Per attempt. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions | false;
  hooks?: TransportHooks;
  /**
   * A fetch implementation to send through (one with a custom dispatcher, or a test stub). Default: undici's request
   * API over the client's own keep-alive pool, through the proxy that HTTPS_PROXY / HTTP_PROXY name (NO_PROXY
   * honoured, loopback never proxied); the global fetch's dispatcher does not apply to it.
   */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** The options a Transport cannot work with, refused before anything is sent; the checked settings otherwise. */
export function checkTransportOptions(options: TransportOptions): { apiVersion: ApiVersion; baseUrl: string; timeoutMs: number } {
  const apiVersion = options.apiVersion ?? DEFAULT_API_VERSION;
  if (!API_VERSIONS.includes(apiVersion)) {
    throw new RequestValidationError("client options", [
      {
        field: "apiVersion",
        rule: `one of ${API_VERSIONS.join(", ")}`,
        message: `unsupported API version ${String(apiVersion)}; use one of ${API_VERSIONS.join(", ")}`,
      },
    ]);
  }
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\/[^/]/i.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new RequestValidationError("client options", [
      {
        field: "baseUrl",
        rule: "absolute http(s) URL",
        message: `must be an absolute http:// or https:// URL (got ${JSON.stringify(baseUrl)})`,
      },
    ]);
  }
  if (/[?#]/.test(baseUrl)) {
    throw new RequestValidationError("client options", [
      {
        field: "baseUrl",
        rule: "no query or fragment",
        message: "must not have a query (?...) or a fragment (#...): request paths are appended to the base URL",
      },
    ]);
  }
  const parsedBase = new URL(baseUrl);
  if (parsedBase.username !== "" || parsedBase.password !== "") {
    // Credentials in the URL would be sent to the service beside the token, and shown wherever the URL is.
    throw new RequestValidationError("client options", [
      {
        field: "baseUrl",
        rule: "no credentials in the URL",
        message: "must not contain credentials (user:password@); pass the token as `token`",
      },
    ]);
  }
  const retry = options.retry;
  if (retry) {
    const issues = (["retries", "minDelayMs", "maxDelayMs", "maxServerDelayMs"] as const)
      .filter((field) => retry[field] !== undefined && !(Number.isFinite(retry[field]) && retry[field]! >= 0))
      .map((field) => ({ field: `retry.${field}`, rule: "minimum 0", message: `must be a number of at least 0 (got ${retry[field]})` }));
    if (issues.length > 0) throw new RequestValidationError("client options", issues);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) {
    throw new RequestValidationError("client options", [
      { field: "timeoutMs", rule: "minimum 1", message: "the timeout must be a positive number of milliseconds" },
    ]);
  }
  if (options.auth !== undefined && options.token !== undefined && options.token !== "") {
    throw new RequestValidationError("client options", [
      { field: "auth", rule: "one of token or auth", message: "give either token or auth, not both" },
    ]);
  }
  const headerIssues = [
    { field: "token", value: options.token },
    { field: "userAgent", value: options.userAgent },
  ].flatMap(({ field, value }) => (value === undefined || isHeaderValue(value) ? [] : [invalidHeaderValue(field)]));
  if (headerIssues.length > 0) throw new RequestValidationError("client options", headerIssues);
  return { apiVersion, baseUrl, timeoutMs };
}
