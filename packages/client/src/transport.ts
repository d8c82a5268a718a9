import { API_VERSIONS, DEFAULT_API_VERSION, DEFAULT_BASE_URL, SERVICE_MEDIA_TYPE, type ApiVersion } from "./api-versions.js";
import { guardDeclaredToken } from "./permissions/declared-token-guard.js";
import { errorFromResponse } from "./error-from-response.js";
import type { DeclaredToken } from "./permissions/permission-check.js";
import { AbortedError, ForeignUrlError, NetworkError, RequestValidationError, type ShiplogError, TimeoutError } from "./errors.js";
import { authPlugin, staticToken, type AuthKind, type AuthStrategy } from "./auth.js";
import { fetchEngine } from "./fetch-engine.js";
import { FinalEngineFailure, type EngineResponse, type HttpEngine } from "./http-engine.js";
import { redactError, redactSecrets, redactValue } from "./redaction.js";
import { expandTemplate } from "./path-templates.js";
import { undiciEngine } from "./undici-engine.js";
import { CLIENT_VERSION } from "./version.js";
import {
  retryBackoff,
  isRetryableStatus,
  rateLimitDelay,
  resolveRetryOptions,
  SECONDARY_LIMIT_MIN_WAIT_MS,
  type ResolvedRetryOptions,
  type RetryOptions,
} from "./retry-policy.js";
import { systemClock, Throttle, type ThrottleOptions, type TransportClock } from "./throttle.js";
import { composePlugins, type Attempt, type HttpMethod, type SendAttempt, type TransportPlugin } from "./transport-pipeline.js";
import type { RouteRequest, ServiceResponse } from "./route-request.js";

export type { HttpMethod } from "./transport-pipeline.js";
export type { RouteRequest, ServiceResponse } from "./route-request.js";

/** Observers for metrics and logs; they never see the token. */
export interface TransportHooks {
  onRetry?(info: { method: HttpMethod; route: string; attempt: number; delayMs: number; reason: string }): void;
  onResponse?(info: { method: HttpMethod; route: string; status: number; durationMs: number; attempt: number }): void;
  /** The service answered 401 and the auth strategy gave a credential for one more attempt. */
  onAuthRetry?(info: { method: string; route: string; renewed: boolean }): void;
  /** A rate-limited answer closed the client's gate for `waitMs`. */
  onRateLimited?: ThrottleOptions["onRateLimited"];
}

export interface TransportOptions {
  /** Default: the public API. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; omitted for anonymous reads of public resources. */
  token?: string;
  /** How to authenticate, instead of `token`: `tokenProvider(...)` or `appInstallationAuth(...)`. */
  auth?: AuthStrategy;
  /**
   * Plugins around every attempt, outermost first, before the client's own (declared-token guard, auth,
   * throttle): leader fencing, say.
   */
  plugins?: readonly TransportPlugin[];
  /** The client's rate-limit gate; `serializeMutations` sends POST/PATCH/PUT/DELETE one at a time. */
  throttle?: Pick<ThrottleOptions, "serializeMutations">;
  /** Time for retry waits and the gate. Default the system clock; tests inject one. */
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
  /** The token's type (and scopes), when known: lets the client refuse calls the token cannot make. */
  tokenInfo?: DeclaredToken;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const PACKAGE_USER_AGENT = `shiplog-client/${CLIENT_VERSION}`;

/** The one HTTP path every endpoint takes: headers, timeout, retries, and errors by meaning. */
export class Transport {
  readonly baseUrl: string;
  readonly apiVersion: ApiVersion;
  /** The caller's declaration of the token's type, if any. */
  readonly tokenInfo: DeclaredToken | undefined;
  /** How the client authenticates, if it does. */
  readonly authKind: AuthKind | undefined;
  /** The client's shared rate-limit gate. */
  readonly throttle: Throttle;
  readonly #clock: TransportClock;
  #sentSecrets: string[] = [];
  #lastAuthorization: string | undefined;
  readonly #send: SendAttempt;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  /** The base URL's own path (`/api/v3` on some servers), without a trailing slash. */
  readonly #basePath: string;
  readonly #retry: ResolvedRetryOptions;
  readonly #hooks: TransportHooks;
  readonly #engine: HttpEngine;

  constructor(options: TransportOptions = {}) {
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
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#basePath = new URL(this.baseUrl).pathname.replace(/\/+$/, "");
    this.apiVersion = apiVersion;
    this.#userAgent = options.userAgent?.trim() ? `${options.userAgent.trim()} ${PACKAGE_USER_AGENT}` : PACKAGE_USER_AGENT;
    this.#timeoutMs = timeoutMs;
    this.#retry = resolveRetryOptions(options.retry);
    this.#hooks = options.hooks ?? {};
    this.#engine = options.fetch ? fetchEngine(options.fetch) : undiciEngine();
    this.tokenInfo = options.tokenInfo;
    this.#clock = options.clock ?? systemClock;
    // Trimmed as fetch trims header values, so a token read from a file with its final newline still works.
    const auth = options.auth ?? (options.token?.trim() ? staticToken(options.token) : undefined);
    this.authKind = auth?.kind;
    this.throttle = new Throttle({
      ...options.throttle,
      clock: this.#clock,
      onRateLimited: this.#hooks.onRateLimited,
      // The gate holds callers no longer than the client would wait for a retry (at least the secondary limit's minute).
      maxWaitMs: Math.max(this.#retry.maxServerDelayMs, SECONDARY_LIMIT_MIN_WAIT_MS),
    });
    const tokenInfo = this.tokenInfo;
    const plugins: TransportPlugin[] = [...(options.plugins ?? [])];
    if (tokenInfo) {
      plugins.push({
        name: "declared-token guard",
        before: (a) => guardDeclaredToken(a.method, this.#pathOf(a.url), tokenInfo, a.operation),
      });
    }
    if (auth) {
      const context = {
        request: <T>(req: RouteRequest, authorization: string) => this.request<T>({ ...req, headers: { ...req.headers, authorization } }),
      };
      plugins.push(authPlugin(auth, context, this.#hooks.onAuthRetry));
    }
    // Innermost, so every attempt (an auth plugin's second one included) passes the gate.
    plugins.push(this.throttle);
    this.#send = composePlugins(plugins, (attempt) => this.#exchange(attempt));
  }

  /** Whether the client authenticates (the token itself is never exposed). */
  get authenticated(): boolean {
    return this.authKind !== undefined;
  }

  /** Sends one request, retrying what is safe to retry; throws a typed error for any failure. */
  async request<T = unknown>(req: RouteRequest): Promise<ServiceResponse<T>> {
    const operation = `${req.method} ${req.route}`;
    const url = req.url === undefined ? this.buildUrl(req.route, req.params, req.query) : this.#checkSameService(req.url, operation);
    const retryable = req.safeToRetry ?? (req.method === "GET" || req.method === "PUT" || req.method === "DELETE");
    const headers = this.#headers(req, operation);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);

    for (let attempt = 0; ; attempt++) {
      if (req.signal?.aborted) throw new AbortedError(operation, { cause: req.signal.reason });
      const started = this.#hooks.onResponse ? performance.now() : 0;
      let response: EngineResponse;
      try {
        const attemptInfo: Attempt = { method: req.method, route: req.route, url, headers, body, attempt, operation, signal: req.signal };
        response = await this.#send(attemptInfo);
      } catch (error) {
        // Only what may go differently next time: a lost connection or a timeout, not a verdict on the request.
        // The same request would fail the same way again.
        if (error instanceof FinalEngineFailure) throw error.toError(operation);
        const canRetry = retryable && attempt < this.#retry.retries && (error instanceof NetworkError || error instanceof TimeoutError);
        if (!canRetry) throw error;
        const delayMs = retryBackoff(attempt, this.#retry);
        this.#hooks.onRetry?.({
          method: req.method,
          route: req.route,
          attempt: attempt + 1,
          delayMs,
          reason: (error as ShiplogError).code,
        });
        await this.#wait(delayMs, req.signal, operation);
        continue;
      }
      this.#hooks.onResponse?.({
        method: req.method,
        route: req.route,
        status: response.status,
        durationMs: performance.now() - started,
        attempt,
      });

      if (response.status < 400) {
        // Headers are built when read: most successful calls never read one.
        return {
          status: response.status,
          get headers() {
            return response.headers;
          },
          data: response.body as T,
          url: response.url,
        };
      }

      if (retryable && attempt < this.#retry.retries && isRetryableStatus(response.status, response.headers, response.body)) {
        const requested = rateLimitDelay(response.headers, response.body, this.#clock.now());
        if (requested === undefined || requested <= this.#retry.maxServerDelayMs) {
          const delayMs = requested ?? retryBackoff(attempt, this.#retry);
          this.#hooks.onRetry?.({
            method: req.method,
            route: req.route,
            attempt: attempt + 1,
            delayMs,
            reason: `status ${response.status}`,
          });
          await this.#wait(delayMs, req.signal, operation);
          continue;
        }
      }
      // A server or proxy may echo the Authorization header: the token leaves in no part of the error.
      const secrets = this.#sentSecrets;
      throw redactError(
        errorFromResponse(req.method, req.route, response, redactValue(response.body, secrets), this.#pathOf(url)),
        secrets,
      );
    }
  }

  /** Expands a route template and query into a full URL. */
  buildUrl(route: string, params: Record<string, string | number> = {}, query: RouteRequest["query"] = {}): string {
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
  #checkSameService(url: string, operation: string): string {
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
  #pathOf(url: string): string {
    const pathname = new URL(url).pathname;
    const basePath = this.#basePath;
    return basePath && pathname.startsWith(basePath) ? pathname.slice(basePath.length) || "/" : pathname;
  }

  #headers(req: RouteRequest, operation: string): Record<string, string> {
    const headers: Record<string, string> = {
      accept: SERVICE_MEDIA_TYPE,
      "x-service-api-version": this.apiVersion,
      "user-agent": this.#userAgent,
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

  /** Remembers the last few credentials sent (a provider's change), so server text echoing one is redacted. */
  #noteAuthorization(value: string | undefined): void {
    if (value === undefined || value === this.#lastAuthorization) return;
    this.#lastAuthorization = value;
    const secret = value.replace(/^\S+\s+/, "");
    if (this.#sentSecrets.includes(secret)) return;
    this.#sentSecrets.push(secret);
    if (this.#sentSecrets.length > 4) this.#sentSecrets.shift();
  }

  /** One attempt: the request and its whole body, with failures (also mid-body) as typed errors. */
  async #exchange({ url, method, headers, body, signal: callerSignal, operation }: Attempt): Promise<EngineResponse> {
    // A plain controller and timer, cleared when the attempt ends: cheaper per request than AbortSignal.timeout.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    this.#noteAuthorization(headers.authorization);
    try {
      return await this.#engine(url, { method, headers, body, signal });
    } catch (error) {
      if (callerSignal?.aborted) throw new AbortedError(operation, { cause: callerSignal.reason });
      if (timeout.signal.aborted) throw new TimeoutError(operation, this.#timeoutMs);
      if (error instanceof FinalEngineFailure) throw error;
      throw new NetworkError(operation, describeNetworkFailure(error, headers.authorization?.replace(/^\S+\s+/, "")));
    } finally {
      clearTimeout(timer);
    }
  }

  async #wait(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
    try {
      await this.#clock.sleep(ms, signal);
    } catch (reason) {
      throw new AbortedError(operation, { cause: reason });
    }
  }
}

/**
 * The failure's code and message only, never the request, which carries the Authorization header. undici's own
 * errors carry the code; fetch wraps them as the cause of a TypeError.
 */
function describeNetworkFailure(error: unknown, token: string | undefined): string {
  type Coded = { code?: unknown; message?: string; cause?: Coded };
  const failure = error as Coded | undefined;
  const coded = typeof failure?.code === "string" ? failure : failure?.cause;
  const description =
    typeof coded?.code === "string"
      ? `${coded.code}${coded.message ? ` (${coded.message})` : ""}`
      : error instanceof Error
        ? error.message
        : String(error);
  // A fetch given by the caller may quote a header in its message; the token never leaves in one.
  return redactSecrets(description, [token]);
}

/** A value both engines send: Latin-1 text without line breaks or other control characters (tabs allowed). */
function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value.trim());
}

function invalidHeaderValue(field: string) {
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
