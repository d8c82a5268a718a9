import type { ShiplogError } from "../errors/errors.js";

/** One HTTP attempt's request, as the transport hands it to an engine. */
export interface EngineRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Aborts the attempt: the caller's signal, the attempt's timeout, or both. */
  signal: AbortSignal;
}

/** One HTTP attempt's answer, its body read whole, whichever engine made it. */
export interface EngineResponse {
  status: number;
  statusText: string;
  readonly headers: Headers;
  /** The URL that answered, after any redirects. */
  url: string;
  /** The parsed JSON; the text when it is not JSON; undefined when empty. */
  body: unknown;
}

/** Sends one attempt and reads its whole body; rejects on a network failure or an aborted signal. */
export type HttpEngine = (url: string, request: EngineRequest) => Promise<EngineResponse>;

/** Statuses whose answer has no body to read. */
export function isBodiless(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/** A body's text as JSON when it is JSON (the service's errors are), else the text itself. */
export function parseBodyText(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A failure that trying again cannot mend (a proxy variable that is not a URL, an endless redirect, a body that
 * does not decode): the transport raises the typed error it describes, and does not retry.
 */
export class FinalEngineFailure extends Error {
  constructor(readonly toError: (operation: string) => ShiplogError) {
    super("the attempt failed in a way a retry cannot mend");
  }
}
