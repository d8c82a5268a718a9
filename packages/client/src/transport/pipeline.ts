// The transport's plugin pipeline, composed the way octokit composes its request hooks: every plugin may act
// before an attempt, after its answer, on its failure, or wrap it whole; the first plugin listed is the outermost.
// Authentication, leader fencing and throttling are plugins over the same engine, and so is what knows endpoints (the
// client's declared-token guard): a caller adds behaviour without replacing the engine (and its proxy handling).
import type { AcceptedPermissionSet } from "../errors/accepted-permissions.js";
import type { EngineResponse } from "./http-engine.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One HTTP attempt as it passes through the plugins. */
export interface Attempt {
  readonly method: HttpMethod;
  /** The route template (`/orgs/{org}/...`), for logs and metrics. */
  readonly route: string;
  readonly url: string;
  /** The URL's path under the service's base URL (`/repos/acme/web/git/refs`, also where the base is `/api/v3`). */
  readonly path: string;
  /** Lower-case names; a plugin may set one (the Authorization header, say). */
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  /** 0 for the first attempt, then 1, 2... for the transport's retries. */
  readonly attempt: number;
  /** `METHOD route`, as errors name the operation. */
  readonly operation: string;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
}

/** Sends one attempt: the rest of the pipeline, the engine at its end. */
export type SendAttempt = (attempt: Attempt) => Promise<EngineResponse>;

/** One layer of the pipeline. Every hook is optional; a plugin with none does nothing. */
export interface TransportPlugin {
  /** Named in logs and errors. */
  readonly name: string;
  /** Before each attempt: set headers, wait (a shared gate), or refuse by throwing a typed error. */
  before?(attempt: Attempt): void | Promise<void>;
  /** After each answer, whatever its status, before the transport judges it. */
  after?(response: EngineResponse, attempt: Attempt): void | Promise<void>;
  /** When the attempt failed: answer instead, or throw (the same error or another). */
  error?(error: unknown, attempt: Attempt): EngineResponse | Promise<EngineResponse>;
  /** Around the attempt, for what needs both sides (send once more after a 401). */
  wrap?(send: SendAttempt, attempt: Attempt): Promise<EngineResponse>;
  /**
   * For a refusal (403) the transport is about to raise: what the plugin knows of what the call needs, when the
   * answer does not say (`X-Accepted-Service-Permissions`). The first plugin with an explanation is heard.
   */
  explainRefusal?(call: RefusedCall): RefusalExplanation | undefined;
}

/** A call the service refused, as `explainRefusal` sees it. */
export interface RefusedCall {
  readonly method: HttpMethod;
  readonly route: string;
  /** As `Attempt.path`. */
  readonly path: string;
}

/** What a plugin adds to a refusal's error. */
export interface RefusalExplanation {
  /** Alternatives, any one of which suffices, used when the answer names none. */
  acceptedPermissions?: AcceptedPermissionSet[];
  /** Said first in the error's message: the likeliest cause. */
  hint?: string;
}

/** Composes the plugins around `send`, once, at construction: no plugin costs nothing per attempt. */
export function composePlugins(plugins: readonly TransportPlugin[], send: SendAttempt): SendAttempt {
  let next = send;
  for (let i = plugins.length - 1; i >= 0; i--) next = layer(plugins[i]!, next);
  return next;
}

function layer(plugin: TransportPlugin, next: SendAttempt): SendAttempt {
  const { before, after, error, wrap } = plugin;
  if (!before && !after && !error && !wrap) return next;
  const wrapped: SendAttempt = wrap ? (attempt) => wrap.call(plugin, next, attempt) : next;
  const guarded: SendAttempt = error
    ? (attempt) => wrapped(attempt).catch((failure: unknown) => error.call(plugin, failure, attempt))
    : wrapped;
  const observed: SendAttempt = after
    ? (attempt) =>
        guarded(attempt).then((response) => {
          const pending = after.call(plugin, response, attempt);
          return pending ? pending.then(() => response) : response;
        })
    : guarded;
  if (!before) return observed;
  return (attempt) => {
    // Most before-hooks are synchronous (a header set, an open gate): only a promise is waited for.
    let pending: void | Promise<void>;
    try {
      pending = before.call(plugin, attempt);
    } catch (failure) {
      return Promise.reject(failure);
    }
    return pending ? pending.then(() => observed(attempt)) : observed(attempt);
  };
}
