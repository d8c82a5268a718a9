// How the client authenticates, as a strategy the transport's auth plugin asks before every attempt. A strategy
// hands out an Authorization header value and, after a 401, may drop what it cached so one more attempt uses a
// fresh credential. No strategy ever puts a token or key into an error, a log line or a metric.
import { systemClock, type TransportClock } from "../timing/clock.js";
import { RequestValidationError } from "../errors/errors.js";
import type { EngineResponse } from "./http-engine.js";
import type { RouteRequest, ServiceResponse } from "./route-request.js";
import type { Attempt, SendAttempt, TransportPlugin } from "./pipeline.js";

/** What the auth plugin lends a strategy: requests that bypass it (an App's own JWT calls). */
export interface AuthContext {
  /** Sends through the rest of the client (gate, retries, typed errors) with the given Authorization value. */
  request<T = unknown>(request: RouteRequest, authorization: string): Promise<ServiceResponse<T>>;
}

/** The kinds of strategy, as the controller logs them. */
export type AuthKind = "token" | "token-provider" | "app-installation";

/** A way to authenticate. */
export interface AuthStrategy {
  readonly kind: AuthKind;
  /** The Authorization header value for the next attempt. */
  authorization(context: AuthContext): string | Promise<string>;
  /**
   * The service answered 401 to `rejected`: forget it. Resolves true when the next `authorization` may differ,
   * so one more attempt is worth sending.
   */
  invalidate?(rejected: string): boolean | Promise<boolean>;
}

/** A fixed token, sent as `Authorization: Bearer`. */
export function staticToken(token: string): AuthStrategy {
  const value = `Bearer ${checkToken(token, "token")}`;
  return { kind: "token", authorization: () => value };
}

/** What a token provider gives: the token, and when it stops working if known. */
export type ProvidedToken = string | { token: string; expiresAt?: Date | string | number };

export interface TokenProviderOptions {
  /** How long a token without `expiresAt` is reused before the provider is asked again. Default 60 s; 0: every attempt. */
  maxAgeMs?: number;
  /** A token with `expiresAt` is renewed this long before it. Default 60 s. */
  refreshMarginMs?: number;
  /** The clock token lifetimes are read on. Default the system's. */
  clock?: Pick<TransportClock, "now">;
}

/**
 * Tokens from an async function (a vault, a file another process rotates): asked when nothing is cached or the
 * cached token is due, and again after a 401; concurrent requests share one call.
 */
export function tokenProvider(provide: () => ProvidedToken | Promise<ProvidedToken>, options: TokenProviderOptions = {}): AuthStrategy {
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  const marginMs = options.refreshMarginMs ?? 60_000;
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  let cached: { value: string; dueAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const given = await provide();
    const token = typeof given === "string" ? given : given?.token;
    const value = `Bearer ${checkToken(token, "token provider's token")}`;
    const expiresAt = typeof given === "object" && given.expiresAt !== undefined ? new Date(given.expiresAt).getTime() : undefined;
    const dueAt = expiresAt !== undefined && Number.isFinite(expiresAt) ? expiresAt - marginMs : now() + maxAgeMs;
    cached = { value, dueAt };
    return value;
  };
  return {
    kind: "token-provider",
    authorization() {
      if (cached && now() < cached.dueAt) return cached.value;
      pending ??= fetchToken().finally(() => (pending = undefined));
      return pending;
    },
    invalidate(rejected) {
      if (cached?.value === rejected) cached = undefined;
      return true;
    },
  };
}

/** Told when the auth plugin sent once more after a 401. */
export type OnAuthRetry = (info: { method: string; route: string; renewed: boolean }) => void;

/** The transport plugin over a strategy: sets the header, and after a 401 sends once more with a fresh credential. */
export function authPlugin(strategy: AuthStrategy, context: AuthContext, onRetry?: OnAuthRetry): TransportPlugin {
  if (strategy.kind === "token" && !strategy.invalidate) {
    // The hot path of most clients: a synchronous header set, no wrapping.
    const value = strategy.authorization(context) as string;
    return {
      name: "auth",
      before(attempt) {
        if (attempt.headers.authorization === undefined) attempt.headers.authorization = value;
      },
    };
  }
  return {
    name: "auth",
    async wrap(send: SendAttempt, attempt: Attempt): Promise<EngineResponse> {
      // A caller that set the header itself (an App's JWT call) is left alone.
      if (attempt.headers.authorization !== undefined) return send(attempt);
      const headers = attempt.headers;
      const first = await strategy.authorization(context);
      const response = await send({ ...attempt, headers: { ...headers, authorization: first } });
      if (response.status !== 401 || !strategy.invalidate || !(await strategy.invalidate(first))) return response;
      const fresh = await strategy.authorization(context);
      onRetry?.({ method: attempt.method, route: attempt.route, renewed: fresh !== first });
      if (fresh === first) return response;
      return send({ ...attempt, headers: { ...headers, authorization: fresh } });
    },
  };
}

/**
 * A token must be a non-empty header value (trimmed as fetch trims, so a file's final newline does no harm); the
 * message never quotes it.
 */
function checkToken(token: unknown, field: string): string {
  const trimmed = typeof token === "string" ? token.trim() : "";
  if (trimmed === "" || !/^[\t\x20-\x7e\x80-\xff]+$/.test(trimmed)) {
    throw new RequestValidationError("client options", [
      { field, rule: "header value", message: "must be non-empty Latin-1 text without line breaks or other control characters" },
    ]);
  }
  return trimmed;
}
