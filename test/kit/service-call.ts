// Raw HTTP calls to the service (an emulator) as a caller without the client library makes them, for tests of the
// service's own answers: a JSON body in, the status, headers and parsed JSON body out.

/** The headers the service's documented clients send (besides the token). */
export const SERVICE_HEADERS = { accept: "application/vnd.service+json", "x-service-api-version": "2026-03-10" } as const;

/** An answer: its status, headers and JSON body (undefined when empty). */
export interface ServiceAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever the service answered
  body: any;
}

/** `method url` with `headers`, and `body` as JSON (with its content type) when given. */
export async function callJson(
  url: string,
  method: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<ServiceAnswer> {
  const json: Record<string, string> = options.body === undefined ? {} : { "content-type": "application/json" };
  const response = await fetch(url, {
    method,
    headers: { ...options.headers, ...json },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A service as a test holds it (an emulator): its URL and its tokens by name. */
export interface Service {
  url: string;
  tokens: Record<string, string | undefined>;
}

/**
 * A caller of `service()` (read at each call: a file's service starts in beforeAll) with the service's headers and,
 * unless told otherwise, the admin's token (null: no token).
 */
export function serviceCaller(service: () => Service) {
  return (method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<ServiceAnswer> => {
    const token = options.token === undefined ? service().tokens.admin : options.token;
    const headers: Record<string, string> = { ...SERVICE_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    return callJson(`${service().url}${path}`, method, { headers, body: options.body });
  };
}
