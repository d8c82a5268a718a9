import { Agent, EnvHttpProxyAgent, fetch as undiciFetch } from "undici";

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** A fetch for the client, and a way to close its connections once the run is done. */
export interface ActionHttp {
  fetch: typeof fetch;
  /** Closes idle keep-alive connections so the process can exit at once. */
  close(): Promise<void>;
}

/**
 * fetch through the bundled undici with the runner's proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), which
 * Node's global fetch ignores. It is also the undici @actions/core already loads, so no second HTTP stack
 * starts up on the first request.
 */
export function proxyAwareFetch(env: NodeJS.ProcessEnv = process.env): ActionHttp {
  // undici 6 marks its proxy agent experimental (with a warning): use it only where a proxy is configured.
  const dispatcher = PROXY_VARIABLES.some((name) => env[name]) ? new EnvHttpProxyAgent() : new Agent();
  const fetchThrough = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof fetch;
  return { fetch: fetchThrough, close: () => dispatcher.close() };
}
