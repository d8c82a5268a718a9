import { isBodiless, parseBodyText, type HttpEngine } from "./http-engine.js";

/** An engine over a fetch implementation: the one a caller passes (a proxy-aware fetch, say). */
export function fetchEngine(fetchImpl: typeof fetch): HttpEngine {
  return async (url, { method, headers, body, signal }) => {
    const response = await fetchImpl(url, { method, headers, body, signal });
    let data: unknown;
    if (isBodiless(response.status)) await response.body?.cancel();
    else data = parseBodyText(await response.text());
    return { status: response.status, statusText: response.statusText, headers: response.headers, url: response.url || url, body: data };
  };
}
