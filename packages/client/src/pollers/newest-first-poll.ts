import { parseLinkHeader } from "../pagination.js";
import type { RouteRequest, ServiceResponse, Transport } from "../transport.js";
import { requestFirstPage, type PollAnswer } from "./poll-loop.js";
import type { SeenIds } from "./seen-ids.js";

/** One poll of a listing that shows its newest items first (an activity feed, a repository's issue events). */
export interface NewestFirstAnswer<T> extends PollAnswer {
  /** Items not seen before, as listed (newest first, repeats possible when pages shifted). */
  items: T[];
  /** Whether paging stopped at an item seen before (false: it ran off the listing's end). */
  metSeen: boolean;
}

/**
 * One poll of a newest-first listing: page 1 conditionally on the ETag, then further pages until a page holds an
 * item yielded before (or the listing ends). Late items (an older `created_at`, a smaller id) count as new:
 * what is new is decided by id alone.
 */
export async function pollNewestFirst<T extends { id: string | number }>(
  transport: Transport,
  request: Pick<RouteRequest, "route" | "params">,
  options: { perPage: number; etag: string | undefined; seen: SeenIds; firstPageOnly: boolean; signal: AbortSignal | undefined },
  parse: (body: unknown) => T[],
): Promise<NewestFirstAnswer<T>> {
  const { seen, signal } = options;
  const firstPage = await requestFirstPage(transport, request, options.perPage, "etag", options.etag, signal);
  const { intervalHeader, validator } = firstPage;
  let response: ServiceResponse = firstPage.response;
  if (response.status === 304) return { status: 304, items: [], pages: 0, metSeen: true, validator: validator ?? options.etag, intervalHeader };
  const items: T[] = [];
  let pages = 0;
  let metSeen = false;
  for (;;) {
    pages++;
    for (const item of parse(response.data)) {
      if (seen.has(String(item.id))) metSeen = true;
      else items.push(item);
    }
    const next = parseLinkHeader(response.headers.get("link"))["next"];
    if (metSeen || options.firstPageOnly || !next) break;
    response = await transport.request({ method: "GET", ...request, url: next, signal });
  }
  return { status: 200, items, pages, metSeen, validator, intervalHeader };
}
