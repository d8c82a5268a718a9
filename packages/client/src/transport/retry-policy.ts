import { FULL_JITTER, backoffDelay } from "../timing/backoff.js";

/** How the client retries; `false` in the client options turns retries off. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 4. */
  retries?: number;
  /** First backoff step. Default 500 ms. */
  minDelayMs?: number;
  /** Largest backoff step. Default 30 s. */
  maxDelayMs?: number;
  /** A `Retry-After` or rate-limit reset further away than this is not waited for. Default 60 s. */
  maxServerDelayMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

/** Defaults chosen so a brief outage (a deploy, a failover) is ridden out within about a minute. */
export function resolveRetryOptions(options: RetryOptions | false | undefined): ResolvedRetryOptions {
  if (options === false) return { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxServerDelayMs: 0 };
  return {
    retries: options?.retries ?? 4,
    minDelayMs: options?.minDelayMs ?? 500,
    maxDelayMs: options?.maxDelayMs ?? 30_000,
    maxServerDelayMs: options?.maxServerDelayMs ?? 60_000,
  };
}

/** The client's retry backoff: full jitter, so many clients retrying after one outage spread out. */
export function retryBackoff(attempt: number, options: ResolvedRetryOptions, random: () => number = Math.random): number {
  return backoffDelay(attempt, { minMs: options.minDelayMs, maxMs: options.maxDelayMs, jitter: FULL_JITTER }, random);
}

/**
 * The wait the service asked for, from `Retry-After` (seconds or an HTTP date) or, when the
 * rate limit is spent, from `X-RateLimit-Reset` (epoch seconds). Undefined when it asked for none.
 */
export function serverRequestedDelay(headers: Headers, now: number): number | undefined {
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(headers.get("x-ratelimit-reset"));
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now);
  }
  return undefined;
}

/** The least wait after a secondary rate limit whose answer names none (the service's published advice). */
export const SECONDARY_LIMIT_MIN_WAIT_MS = 60_000;

/** Whether a status is worth another attempt: server errors, and rate limits the service asks us to wait out. */
export function isRetryableStatus(status: number, headers: Headers, body?: unknown): boolean {
  if (status >= 500) return true;
  if (status === 429) return true;
  if (status === 403) return isRateLimitAnswer(headers, body);
  return false;
}

/** A 403 that means "slow down" rather than "not allowed": the primary limit spent, a Retry-After, or a secondary limit. */
export function isRateLimitAnswer(headers: Headers, body?: unknown): boolean {
  return headers.get("x-ratelimit-remaining") === "0" || headers.has("retry-after") || isSecondaryRateLimit(body);
}

/** A 403 or 429 whose message says a secondary rate limit was exceeded (the service words it so). */
export function isSecondaryRateLimit(body: unknown): boolean {
  const message = typeof body === "object" && body !== null ? (body as { message?: unknown }).message : body;
  return typeof message === "string" && /\bsecondary rate limit/i.test(message);
}

/**
 * How long a rate-limited answer (403/429) asks us to wait: Retry-After, else the primary limit's reset when it is
 * spent, else at least a minute for a secondary limit. Undefined when the answer asks for no wait.
 */
export function rateLimitDelay(headers: Headers, body: unknown, now: number): number | undefined {
  const requested = serverRequestedDelay(headers, now);
  if (requested !== undefined) return requested;
  return isSecondaryRateLimit(body) ? SECONDARY_LIMIT_MIN_WAIT_MS : undefined;
}
