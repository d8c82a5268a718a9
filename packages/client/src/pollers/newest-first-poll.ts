import type { RouteRequest } from "../transport/route-request.js";
import type { Transport } from "../transport/transport.js";
import { pollHeaders, pollPages, type PollAnswer, type PollTarget } from "./poll-loop.js";
import type { ResumableState } from "./resumable-poll.js";
import { oldestFirst, type SeenIds } from "./seen-ids.js";

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
  request: RouteRequest,
  options: { perPage: number; etag: string | undefined; seen: SeenIds; firstPageOnly: boolean; signal: AbortSignal | undefined },
  parse: (body: unknown) => T[],
): Promise<NewestFirstAnswer<T>> {
  const { seen } = options;
  let first: Pick<PollAnswer, "intervalHeader" | "validator"> | undefined;
  const items: T[] = [];
  let pages = 0;
  let metSeen = false;
  for await (const response of pollPages(transport, request, options.perPage, "etag", options.etag, options.signal)) {
    first ??= pollHeaders(response, "etag");
    if (response.status === 304) {
      const validator = first.validator ?? options.etag;
      return { status: 304, items: [], pages: 0, metSeen: true, validator, intervalHeader: first.intervalHeader };
    }
    pages++;
    for (const item of parse(response.data)) {
      if (seen.has(String(item.id))) metSeen = true;
      else items.push(item);
    }
    if (metSeen || options.firstPageOnly) break;
  }
  return { status: 200, items, pages, metSeen, validator: first?.validator ?? null, intervalHeader: first?.intervalHeader ?? null };
}

/**
 * The polling target of a newest-first listing over a poller's state: one poll as above; the new items oldest
 * first (with `start: "now"`, the first poll only marks what is there as seen); an item yielded is recorded by
 * id with its `created_at`.
 */
export function newestFirstTarget<T extends { id: string | number; created_at: string | null }>(
  transport: Transport,
  request: RouteRequest,
  state: ResumableState,
  options: { perPage: number; start?: "backlog" | "now"; signal?: AbortSignal },
  parse: (body: unknown) => T[],
): PollTarget<T, NewestFirstAnswer<T>> {
  const startNow = (first: boolean) => first && options.start === "now";
  return {
    poll: (etag, first) => {
      const { perPage, signal } = options;
      return pollNewestFirst(transport, request, { perPage, etag, seen: state.seen, firstPageOnly: startNow(first), signal }, parse);
    },
    take: (answer, first) => {
      if (!startNow(first)) return oldestFirst(answer.items);
      for (const item of answer.items) state.seen.add(String(item.id), item.created_at);
      return [];
    },
    record: (item) => state.seen.add(String(item.id), item.created_at),
  };
}
