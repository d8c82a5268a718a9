// The emulator's addresses in its answers: every URL it renders (resources' `url` and `*_url` fields, Link headers,
// an import's links) starts from the base address the request came in on, so links work against the emulator
// itself whatever host and port it was reached by; the web pages' links from the web base beside it.

/** The base address a request came in on (`http://127.0.0.1:PORT`). */
export function baseUrlOf(request: { protocol: string; headers: { host?: string } }): string {
  return `${request.protocol}://${request.headers.host ?? "127.0.0.1"}`;
}

/** The web address matching an API base (`http://127.0.0.1:PORT` serves both in the emulator). */
export function webBase(base: string): string {
  return `${base}/web`;
}
