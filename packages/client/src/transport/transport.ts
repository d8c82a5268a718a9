import type { ApiVersion } from "./api-versions.js";
import { errorFromResponse } from "./error-from-response.js";
import { AbortedError, NetworkError, type ShiplogError, TimeoutError } from "../errors/errors.js";
import { authPlugin, staticToken, type AuthKind } from "./auth.js";
import { fetchEngine } from "./fetch-engine.js";
import { FinalEngineFailure, type EngineResponse, type HttpEngine } from "./http-engine.js";
import { redactError, redactSecrets, redactValue } from "./redaction.js";
import { undiciEngine } from "./undici-engine.js";
import {
  retryBackoff,
  isRetryableStatus,
  rateLimitDelay,
  resolveRetryOptions,
  SECONDARY_LIMIT_MIN_WAIT_MS,
  type ResolvedRetryOptions,
} from "./retry-policy.js";
import { systemClock, timerOn, type TransportClock } from "../timing/clock.js";
import { Throttle } from "./throttle.js";
import {
  composePlugins,
  type Attempt,
  type RefusalExplanation,
  type RefusedCall,
  type SendAttempt,
  type TransportPlugin,
} from "./pipeline.js";
import type { RouteRequest, ServiceResponse } from "./route-request.js";
import { checkTransportOptions, type TransportHooks, type TransportOptions } from "./options.js";
import { requestHeaders } from "./request-headers.js";
import { ServiceUrls } from "./service-urls.js";

export type { HttpMethod } from "./pipeline.js";
export type { RouteRequest, ServiceResponse } from "./route-request.js";

/** The User-Agent's product token when the creator names none (the client names itself and its version). */
const DEFAULT_PRODUCT = "shiplog-client";

/**
 * The one HTTP path every endpoint takes: headers, timeout, retries, and errors by meaning. It knows no endpoint:
 * what does (the client's declared-token guard) is a plugin.
 */
export class Transport {
  readonly baseUrl: string;
  readonly apiVersion: ApiVersion;
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
  readonly #urls: ServiceUrls;
  readonly #retry: ResolvedRetryOptions;
  readonly #hooks: TransportHooks;
  readonly #engine: HttpEngine;
  readonly #explainers: TransportPlugin[];

  /** `product` is the User-Agent's own token, after the caller's `userAgent` (the client's: `shiplog-client/0.1.0`). */
  constructor(options: TransportOptions = {}, product: string = DEFAULT_PRODUCT) {
    const { apiVersion, baseUrl, timeoutMs } = checkTransportOptions(options);
    this.#urls = new ServiceUrls(baseUrl);
    this.baseUrl = this.#urls.baseUrl;
    this.apiVersion = apiVersion;
    this.#userAgent = options.userAgent?.trim() ? `${options.userAgent.trim()} ${product}` : product;
    this.#timeoutMs = timeoutMs;
    this.#retry = resolveRetryOptions(options.retry);
    this.#hooks = options.hooks ?? {};
    this.#engine = options.fetch ? fetchEngine(options.fetch) : undiciEngine();
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
    const plugins: TransportPlugin[] = [...(options.plugins ?? [])];
    this.#explainers = plugins.filter((plugin) => plugin.explainRefusal);
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
    const url = req.url === undefined ? this.buildUrl(req.route, req.params, req.query) : this.#urls.sameService(req.url, operation);
    const path = this.#urls.pathOf(url);
    const retryable = req.safeToRetry ?? (req.method === "GET" || req.method === "PUT" || req.method === "DELETE");
    const headers = requestHeaders(req, { apiVersion: this.apiVersion, userAgent: this.#userAgent }, operation);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);

    for (let attempt = 0; ; attempt++) {
      if (req.signal?.aborted) throw new AbortedError(operation, { cause: req.signal.reason });
      const started = this.#hooks.onResponse ? performance.now() : 0;
      let response: EngineResponse;
      try {
        const attemptInfo: Attempt = {
          method: req.method,
          route: req.route,
          url,
          path,
          headers,
          body,
          attempt,
          operation,
          signal: req.signal,
        };
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
        errorFromResponse(req.method, req.route, response, redactValue(response.body, secrets), () =>
          this.#explainRefusal({ method: req.method, route: req.route, path }),
        ),
        secrets,
      );
    }
  }

  /** Expands a route template and query into a full URL. */
  buildUrl(route: string, params: Record<string, string | number> = {}, query: RouteRequest["query"] = {}): string {
    return this.#urls.build(route, params, query);
  }

  /** The first explanation a plugin has for a refusal. */
  #explainRefusal(call: RefusedCall): RefusalExplanation | undefined {
    for (const plugin of this.#explainers) {
      const explanation = plugin.explainRefusal?.(call);
      if (explanation) return explanation;
    }
    return undefined;
  }

  /** The clock the transport waits on, which the client's pollers and waits use unless given their own. */
  get clock(): TransportClock {
    return this.#clock;
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
    // The attempt's deadline is a wait on the injected clock, cut short when the attempt ends.
    const timeout = new AbortController();
    const cancelTimeout = timerOn(this.#clock, this.#timeoutMs, () => timeout.abort());
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
      cancelTimeout();
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
