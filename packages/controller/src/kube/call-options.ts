// Per-call options for client-node's generated APIs. client-node puts no timeout on a request, and a Lease renewal
// or a state write that hangs must give up in time: an abort signal set by a request middleware does it.
import {
  ApiException,
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from "@kubernetes/client-node";

/**
 * Call options that abort the request after `timeoutMs` and when `signal` aborts (a caller on an injected clock
 * passes only its own signal).
 */
export function callOptions(timeoutMs: number | undefined, signal?: AbortSignal): ConfigurationOptions {
  const signals = [...(timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)]), ...(signal ? [signal] : [])];
  const abort = signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
  // The object-parameter APIs take observable middleware (client-node's own Observable stub).
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => {
      context.setSignal(abort);
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" };
}

/** The HTTP status of a failed Kubernetes call (ApiException), if it has one. */
export function kubeStatus(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** A short description of a failed Kubernetes call, for logs (the Status message when the server sent one). */
export function kubeErrorMessage(error: unknown): string {
  if (error instanceof ApiException) {
    let message: string | undefined;
    try {
      const body = (typeof error.body === "string" ? JSON.parse(error.body) : error.body) as { message?: string } | undefined;
      message = body?.message;
    } catch {
      // not a Status body
    }
    return `${error.code}${message ? `: ${message}` : ""}`;
  }
  return (error as Error)?.message ?? String(error);
}
