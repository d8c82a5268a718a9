import { createRequire } from "node:module";
import type { Dispatcher, request as undiciRequest } from "undici";
import { ACCEPT_ENCODING, contentCodings, decodeBody, UndecodableBodyError } from "./content-decoding.js";
import { NetworkError, RequestValidationError, ResponseValidationError } from "../errors/errors.js";
import { FinalEngineFailure, isBodiless, parseBodyText, type EngineResponse, type HttpEngine } from "./http-engine.js";
import { isLoopbackHost } from "./loopback.js";

/** What fetch follows too; an answer that still redirects after them is an error, as with fetch. */
const MAX_REDIRECTIONS = 20;
/** What undici 6 follows (300 too, which fetch does not). */
const REDIRECT_STATUSES = new Set([300, 301, 302, 303, 307, 308]);
/** The variables undici's EnvHttpProxyAgent reads, lower case first as it reads them. */
const PROXY_VARIABLES = [
  ["http_proxy", "HTTP_PROXY"],
  ["https_proxy", "HTTPS_PROXY"],
] as const;

interface Pools {
  request: typeof undiciRequest;
  /** undici's own Headers: the global one would load Node's second copy of undici (about 10 ms, once). */
  Headers: typeof globalThis.Headers;
  direct: Dispatcher;
  /** Through the proxy the environment names, created on first use (undici 6 warns it is experimental). */
  proxied: () => Dispatcher;
}

// One keep-alive pool per process, as the global fetch has; loaded on first use, so a caller that passes its own
// fetch (the controller does) never loads undici at all.
let pools: Pools | undefined;

async function load(): Promise<Pools> {
  const { request, Agent, EnvHttpProxyAgent, Headers } = await import("undici");
  if (pools) return pools;
  const direct = new Agent();
  const misconfigured = misconfiguredProxyVariables();
  const configured = PROXY_VARIABLES.some((names) => proxyVariable(names) !== undefined);
  let proxied: Dispatcher | undefined;
  const viaProxy = (): Dispatcher => {
    if (misconfigured.length > 0) {
      const issues = misconfigured.map((field) => ({
        field,
        rule: "http(s) proxy URL",
        message: "must be an http:// or https:// URL (its value is not shown: it may hold credentials)",
      }));
      throw new FinalEngineFailure((operation) => new RequestValidationError(operation, issues));
    }
    // NO_PROXY is honoured by EnvHttpProxyAgent; every request is tunnelled (CONNECT), as fetch's proxy agent does.
    proxied ??= new EnvHttpProxyAgent();
    return proxied;
  };
  pools = { request, Headers: Headers as unknown as typeof globalThis.Headers, direct, proxied: configured ? viaProxy : () => direct };
  return pools;
}

/** The variable EnvHttpProxyAgent takes for a scheme (lower case, even when empty, hides upper); empty is none. */
function proxyVariable([lower, upper]: readonly [string, string]): string | undefined {
  const name = process.env[lower] !== undefined ? lower : upper;
  return process.env[name] ? name : undefined;
}

/** The proxy variables EnvHttpProxyAgent would take that are not http(s) URLs. */
function misconfiguredProxyVariables(): string[] {
  return PROXY_VARIABLES.flatMap((names) => {
    const name = proxyVariable(names);
    if (!name) return [];
    const protocol = URL.canParse(process.env[name]!) ? new URL(process.env[name]!).protocol : undefined;
    return protocol === "http:" || protocol === "https:" ? [] : [name];
  });
}

/** Loopback is never proxied (Go's rule too): an emulator or a local tunnel is reached directly. */
function isLoopback(url: string): boolean {
  return isLoopbackHost(/^https?:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1] ?? "");
}

/**
 * The default engine: undici's request API, which does per request about a third of the work of fetch (no WHATWG
 * streams, Request or Response objects). Redirects are followed (undici drops the Authorization header when one
 * leaves the origin); gzip, deflate and brotli answers are decoded.
 */
export function undiciEngine(): HttpEngine {
  return async (url, { method, headers, body, signal }) => {
    const { request, direct, proxied } = pools ?? (await load());
    const dispatcher = isLoopback(url) ? direct : proxied();
    const sent = request(url, {
      method: method as Dispatcher.HttpMethod,
      headers: headers["accept-encoding"] === undefined ? { ...headers, "accept-encoding": ACCEPT_ENCODING } : headers,
      body,
      signal,
      dispatcher,
      maxRedirections: MAX_REDIRECTIONS,
    });
    const answer = await settledOrAborted(sent, signal).catch(finalOnInvalidArgument);
    const status = answer.statusCode;
    if (REDIRECT_STATUSES.has(status) && answer.headers.location !== undefined) {
      await answer.body.dump();
      throw new FinalEngineFailure((operation) => new NetworkError(operation, `more than ${MAX_REDIRECTIONS} redirects`));
    }
    let data: unknown;
    if (isBodiless(status)) await answer.body.dump();
    else data = await readBody(answer);
    const history = (answer.context as { history?: readonly URL[] } | undefined)?.history;
    return new UndiciResponse(status, answer.headers, history?.length ? history[history.length - 1]!.href : url, data);
  };
}

/**
 * undici only records an abort that comes before it has a socket (while resolving, connecting, in TLS or a proxy's
 * CONNECT) and acts on it when its own connect timeout fires: settle at the abort instead, and release the answer
 * should it come after all.
 */
function settledOrAborted(sent: Promise<Dispatcher.ResponseData>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  const releaseLate = () =>
    sent.then(
      (late) => late.body.destroy(),
      () => undefined,
    );
  // Aborted already (the timeout fired while undici was loading, say): addEventListener would never call back.
  if (signal.aborted) {
    void releaseLate();
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      void releaseLate();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    sent.then(
      (answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** An argument undici refuses (a redirect to a URL it cannot use, say) fails the same way every time: no retry. */
function finalOnInvalidArgument(error: unknown): never {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: string };
  if (code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_URL")
    throw new FinalEngineFailure((operation) => new NetworkError(operation, `${code} (${message})`));
  throw error;
}

/** The body as parsed JSON or text; an undecodable body is an error, except beside an error status, which wins. */
async function readBody(answer: Dispatcher.ResponseData): Promise<unknown> {
  const codings = contentCodings(answer.headers["content-encoding"]);
  if (codings.length === 0) return parseBodyText(await answer.body.text());
  try {
    return parseBodyText(await decodeBody(codings, Buffer.from(await answer.body.arrayBuffer())));
  } catch (error) {
    if (!(error instanceof UndecodableBodyError)) throw error;
    if (answer.statusCode >= 400) return undefined;
    const issues = [{ field: "(body)", rule: `content-encoding ${error.encoding}`, message: error.message }];
    throw new FinalEngineFailure((operation) => new ResponseValidationError(operation, issues, "the service's response cannot be decoded"));
  }
}

// Required rather than imported: on Node 24 an ESM import of node:http reads all its exports, and one of them
// loads Node's own copy of undici (about 15 ms of the action's cold start).
let statusCodes: Record<number, string | undefined> | undefined;
function statusPhrase(status: number): string {
  statusCodes ??= (createRequire(import.meta.url)("node:http") as typeof import("node:http")).STATUS_CODES;
  return statusCodes[status] ?? "";
}

/**
 * undici's request API reads header bytes as UTF-8; Headers (and fetch) hold them one byte to a character. Back to
 * the bytes the server sent, so an ETag with a non-ASCII byte matches when it is sent back.
 */
function asLatin1(value: string): string {
  return /^\p{ASCII}*$/u.test(value) ? value : Buffer.from(value, "utf8").toString("latin1");
}

/** An answer whose Headers object is only built when read: most successful calls never read a header. */
class UndiciResponse implements EngineResponse {
  readonly #raw: Record<string, string | string[] | undefined>;
  #headers: Headers | undefined;

  constructor(
    readonly status: number,
    raw: Record<string, string | string[] | undefined>,
    readonly url: string,
    readonly body: unknown,
  ) {
    this.#raw = raw;
  }

  /** undici's request API does not pass the reason phrase on: the standard one for the status. */
  get statusText(): string {
    return statusPhrase(this.status);
  }

  get headers(): Headers {
    if (!this.#headers) {
      // pools is set: this answer came through it.
      const headers = new pools!.Headers();
      for (const [name, value] of Object.entries(this.#raw)) {
        if (Array.isArray(value)) for (const item of value) headers.append(name, asLatin1(item));
        else if (value !== undefined) headers.append(name, asLatin1(value));
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
}
