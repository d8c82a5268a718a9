// The requests an informer makes to the API server, hardened where a plain client leaves gaps: every list page is
// time-bounded; a watch carries `timeoutSeconds` and `allowWatchBookmarks` (the server rotates it), is abandoned
// when its headers do not come within the request timeout, and a watchdog ends it when it stays silent past the
// idle timeout (half-open connection, hung server). Authentication and TLS come from the kubeconfig.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { KubeConfig } from "@kubernetes/client-node";
import fetch from "node-fetch";
import { ShiplogError } from "@shiplog/client";
import type { Clock } from "../clock.js";

/** A failed Kubernetes request, with its HTTP status and Status body when there was one. */
export class KubeRequestError extends ShiplogError {
  constructor(
    message: string,
    readonly statusCode?: number,
    readonly status?: unknown,
  ) {
    super("kube_request_failed", message);
  }
}

interface Status {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string }[] };
}

/** The Status of a watch at a resourceVersion the server has not reached (504 Timeout, cause ResourceVersionTooLarge). */
export function isTooLargeResourceVersion(status: unknown): boolean {
  const s = status as Status | undefined;
  if (s?.code !== 504) return false;
  // Servers before 1.18.6 set no cause: client-go matches the message too.
  const cause = (s.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge");
  return cause || (s.message ?? "").includes("Too large resource version");
}

/** The Status of a request at a resourceVersion or continue token the server has compacted away (410). */
export function isExpired(status: unknown): boolean {
  return (status as Status | undefined)?.code === 410;
}

/** Whether `next` is an older resourceVersion than `previous` (both numeric, as etcd's are; otherwise unknown). */
export function resourceVersionWentBack(previous: string | undefined, next: string | undefined): boolean {
  if (!previous || !next || !/^\d+$/.test(previous) || !/^\d+$/.test(next)) return false;
  return BigInt(next) < BigInt(previous);
}

async function failure(what: string, response: { status: number; text(): Promise<string> }): Promise<KubeRequestError> {
  const text = await response.text().catch(() => "");
  let status: Status | undefined;
  try {
    status = JSON.parse(text) as Status;
  } catch {
    status = undefined;
  }
  const message = `${what} failed: ${response.status}${status?.message ? `: ${status.message}` : ""}`;
  return new KubeRequestError(message, response.status, status ?? { code: response.status });
}

async function requestInit(kubeConfig: KubeConfig, path: string, params: Record<string, string | undefined>) {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new KubeRequestError("no current cluster in the kubeconfig");
  const url = new URL(cluster.server + path);
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") url.searchParams.set(key, value);
  const init = await kubeConfig.applyToFetchOptions({});
  return { url: url.toString(), agent: init.agent, headers: init.headers as never };
}

/** GETs one JSON document (a list page), abandoned after `timeoutMs` on the clock. */
export async function getJson(
  kubeConfig: KubeConfig,
  path: string,
  params: Record<string, string | undefined>,
  options: { timeoutMs: number; signal: AbortSignal; what: string; clock: Clock },
): Promise<unknown> {
  const { url, agent, headers } = await requestInit(kubeConfig, path, params);
  const timeout = new AbortController();
  const cancel = options.clock.setTimer(options.timeoutMs, () =>
    timeout.abort(new Error(`${options.what} timed out after ${options.timeoutMs}ms`)),
  );
  try {
    const signal = AbortSignal.any([timeout.signal, options.signal]);
    const response = await fetch(url, { agent, headers, signal: signal as never });
    if (response.status !== 200) throw await failure(options.what, response);
    return await response.json();
  } finally {
    cancel();
  }
}

/** How a watch stream ended without failing. */
export type WatchEnd = "closed" | "idle" | "stopped";

/** Settings of one watch request. */
export interface WatchRequest {
  timeoutSeconds: number;
  idleTimeoutMs: number;
  requestTimeoutMs: number;
  /** Aborts the watch (the informer stops). */
  signal: AbortSignal;
  what: string;
  /** The headers' timeout and the idle watchdog run on it. */
  clock: Clock;
}

/**
 * Opens a watch and hands every event to `onEvent` until the server closes it ("closed"), the watchdog gives up
 * on it ("idle"), `onEvent` returns false or the signal aborts ("stopped"). A non-200 answer or a broken stream
 * rejects with a KubeRequestError or the network error.
 */
export async function watchEvents(
  kubeConfig: KubeConfig,
  path: string,
  params: Record<string, string | undefined>,
  request: WatchRequest,
  onEvent: (type: string, object: unknown) => boolean,
): Promise<WatchEnd> {
  const { url, agent, headers } = await requestInit(kubeConfig, path, {
    ...params,
    watch: "true",
    allowWatchBookmarks: "true",
    timeoutSeconds: String(request.timeoutSeconds),
  });
  const controller = new AbortController();
  return new Promise<WatchEnd>((resolve, reject) => {
    let finished = false;
    let cancelIdle: (() => void) | undefined;
    let cancelHeaders: (() => void) | undefined;
    const finish = (end: WatchEnd | Error): void => {
      if (finished) return;
      finished = true;
      cancelIdle?.();
      cancelHeaders?.();
      request.signal.removeEventListener("abort", onAbort);
      controller.abort();
      if (end instanceof Error) reject(end);
      else resolve(end);
    };
    const onAbort = (): void => finish("stopped");
    request.signal.addEventListener("abort", onAbort, { once: true });
    if (request.signal.aborted) return finish("stopped");
    const armIdle = (): void => {
      cancelIdle?.();
      cancelIdle = request.clock.setTimer(request.idleTimeoutMs, () => finish("idle"));
    };
    cancelHeaders = request.clock.setTimer(request.requestTimeoutMs, () => finish("idle"));
    fetch(url, { agent, headers, signal: controller.signal as never })
      .then(async (response) => {
        cancelHeaders?.();
        const body = response.body as unknown as Readable;
        // Aborting (on finish) makes the body emit an AbortError: it must always have a listener.
        body.on("error", (error) => finish(error));
        if (finished) return;
        if (response.status !== 200) return finish(await failure(request.what, response));
        armIdle();
        const lines = createInterface({ input: body, crlfDelay: Infinity });
        lines.on("error", (error) => finish(error)); // readline re-emits the body's errors
        lines.on("line", (line) => {
          if (finished) return;
          armIdle();
          let event: { type?: string; object?: unknown };
          try {
            event = JSON.parse(line) as typeof event;
          } catch {
            return;
          }
          if (event.type && !onEvent(event.type, event.object)) finish("stopped");
        });
        lines.on("close", () => finish("closed"));
      })
      .catch((error: unknown) => finish(request.signal.aborted ? "stopped" : (error as Error)));
  });
}
