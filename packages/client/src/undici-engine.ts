import { createRequire } from "node:module";
import { promisify } from "node:util";
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import type { Dispatcher, request as undiciRequest } from "undici";
import { isBodiless, parseBodyText, type EngineResponse, type HttpEngine } from "./http-engine.js";

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];
/** What fetch follows too; one more is an error, as with fetch. */
const MAX_REDIRECTIONS = 20;
/** What fetch asks for; the engine decodes what comes back. */
const ACCEPT_ENCODING = "gzip, deflate, br";
const DECODERS: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  "x-gzip": promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

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
  let proxied: Dispatcher | undefined;
  const proxyConfigured = PROXY_VARIABLES.some((name) => process.env[name]);
  // NO_PROXY is honoured by EnvHttpProxyAgent; plain http goes to the proxy in absolute form, as curl sends it.
  // proxyTunnel is passed on to undici 6.29's ProxyAgent, though its types do not list it.
  const proxyOptions = { proxyTunnel: false } as ConstructorParameters<typeof EnvHttpProxyAgent>[0];
  pools = { request, Headers: Headers as unknown as typeof globalThis.Headers, direct, proxied: () => (proxyConfigured ? (proxied ??= new EnvHttpProxyAgent(proxyOptions)) : direct) };
  return pools;
}

/** Loopback is never proxied (Go's rule too): an emulator or a local tunnel is reached directly. */
function isLoopback(url: string): boolean {
  const host = /^https?:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The default engine: undici's request API, which does per request about a third of the work of fetch (no WHATWG
 * streams, Request or Response objects). Redirects are followed (undici drops the Authorization header when one
 * leaves the origin); gzip, deflate and brotli answers are decoded.
 */
export function undiciEngine(): HttpEngine {
  return async (url, { method, headers, body, signal }) => {
    const { request, Headers, direct, proxied } = pools ?? (await load());
    const dispatcher = isLoopback(url) ? direct : proxied();
    const sent = request(url, {
      method: method as Dispatcher.HttpMethod,
      headers: headers["accept-encoding"] === undefined ? { ...headers, "accept-encoding": ACCEPT_ENCODING } : headers,
      body,
      signal,
      dispatcher,
      maxRedirections: MAX_REDIRECTIONS,
      // Read by undici 6's redirect handler, though its types do not list it.
      ...({ throwOnMaxRedirect: true } as object),
    });
    const answer = await settledOrAborted(sent, signal);
    let data: unknown;
    if (isBodiless(answer.statusCode)) await answer.body.dump();
    else data = parseBodyText(await decodedText(answer));
    const history = (answer.context as { history?: readonly URL[] } | undefined)?.history;
    return new UndiciResponse(answer.statusCode, answer.headers, Headers, history?.length ? history[history.length - 1]!.href : url, data);
  };
}

/**
 * undici only records an abort that comes before it has a socket (while resolving, connecting, in TLS or a proxy's
 * CONNECT) and acts on it when its own connect timeout fires: settle at the abort instead, and release the answer
 * should it come after all.
 */
function settledOrAborted(sent: Promise<Dispatcher.ResponseData>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      sent.then((late) => late.body.destroy(), () => undefined);
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

async function decodedText(answer: Dispatcher.ResponseData): Promise<string> {
  const encoding = answer.headers["content-encoding"];
  if (encoding === undefined || encoding === "identity") return answer.body.text();
  const decode = typeof encoding === "string" ? DECODERS[encoding.trim().toLowerCase()] : undefined;
  if (!decode) {
    await answer.body.dump();
    throw new Error(`the answer is encoded as ${String(encoding)}, which the client cannot decode`);
  }
  return (await decode(Buffer.from(await answer.body.arrayBuffer()))).toString("utf8");
}

// Required rather than imported: on Node 24 an ESM import of node:http reads all its exports, and one of them
// loads Node's own copy of undici (about 15 ms of the action's cold start).
let statusCodes: Record<number, string | undefined> | undefined;
const statusPhrase = (status: number) => (statusCodes ??= (createRequire(import.meta.url)("node:http") as typeof import("node:http")).STATUS_CODES)[status] ?? "";

/** An answer whose Headers object is only built when read: most successful calls never read a header. */
class UndiciResponse implements EngineResponse {
  readonly #raw: Record<string, string | string[] | undefined>;
  readonly #Headers: typeof globalThis.Headers;
  #headers: Headers | undefined;

  constructor(
    readonly status: number,
    raw: Record<string, string | string[] | undefined>,
    HeadersClass: typeof globalThis.Headers,
    readonly url: string,
    readonly body: unknown,
  ) {
    this.#raw = raw;
    this.#Headers = HeadersClass;
  }

  /** undici's request API does not pass the reason phrase on: the standard one for the status. */
  get statusText(): string {
    return statusPhrase(this.status);
  }

  get headers(): Headers {
    if (!this.#headers) {
      const headers = new this.#Headers();
      for (const [name, value] of Object.entries(this.#raw)) {
        if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        else if (value !== undefined) headers.append(name, value);
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
}
