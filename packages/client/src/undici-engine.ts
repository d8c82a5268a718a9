import { STATUS_CODES } from "node:http";
import { isBodiless, parseBodyText, type EngineResponse, type HttpEngine } from "./http-engine.js";

import type { Dispatcher, request as undiciRequest } from "undici";

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];
/** What fetch follows too. */
const MAX_REDIRECTIONS = 20;

// One keep-alive pool per process, as the global fetch has; loaded on first use, so a caller that passes its own
// fetch (the controller does) never loads undici at all.
let loaded: { request: typeof undiciRequest; dispatcher: Dispatcher } | undefined;

async function load(): Promise<NonNullable<typeof loaded>> {
  const { request, Agent, EnvHttpProxyAgent } = await import("undici");
  // The shell's or runner's proxy settings (NO_PROXY included), as curl honours them.
  loaded ??= { request, dispatcher: PROXY_VARIABLES.some((name) => process.env[name]) ? new EnvHttpProxyAgent() : new Agent() };
  return loaded;
}

/**
 * The default engine: undici's request API, which does per request about a third of the work of fetch (no WHATWG
 * streams, Request or Response objects). Redirects are followed as fetch follows them; undici drops the
 * Authorization header when a redirect leaves the origin.
 */
export function undiciEngine(): HttpEngine {
  return async (url, { method, headers, body, signal }) => {
    const { request, dispatcher } = loaded ?? (await load());
    const answer = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, signal, dispatcher, maxRedirections: MAX_REDIRECTIONS });
    let data: unknown;
    if (isBodiless(answer.statusCode)) await answer.body.dump();
    else data = parseBodyText(await answer.body.text());
    const history = (answer.context as { history?: readonly URL[] } | undefined)?.history;
    return new UndiciResponse(answer.statusCode, answer.headers, history?.length ? history[history.length - 1]!.href : url, data);
  };
}

/** An answer whose Headers object is only built when read: most successful calls never read a header. */
class UndiciResponse implements EngineResponse {
  readonly statusText: string;
  readonly #raw: Record<string, string | string[] | undefined>;
  #headers: Headers | undefined;

  constructor(
    readonly status: number,
    raw: Record<string, string | string[] | undefined>,
    readonly url: string,
    readonly body: unknown,
  ) {
    this.statusText = STATUS_CODES[status] ?? "";
    this.#raw = raw;
  }

  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(this.#raw)) {
        if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        else if (value !== undefined) headers.append(name, value);
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
}
