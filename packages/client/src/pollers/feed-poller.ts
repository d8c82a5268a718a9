import { parseLinkHeader } from "../pagination.js";
import { parseRequest, parseResponse } from "../schema-validation.js";
import {
  EVENT_FEED_ROUTES,
  MAX_FEED_EVENTS,
  activityEventList,
  eventFeed,
  feedPageLimits,
  type ActivityEvent,
  type EventFeed,
} from "../schemas/activity.js";
import type { RouteRequest, ServiceResponse, Transport } from "../transport.js";
import { checkPageOptions } from "../pagination.js";
import { pollLoop, requestFirstPage } from "./poll-loop.js";
import type { PollerOptions, PollerStats } from "./poller-options.js";
import { SeenIds, oldestFirst } from "./seen-ids.js";

export interface FeedPollOptions extends PollerOptions {
  /** `backlog` (default): first yield what the feed holds now (up to 300 events); `now`: only what comes after. */
  start?: "backlog" | "now";
  /** Events per page. Default 100, the maximum, so a poll needs as few pages as possible. */
  per_page?: number;
  /**
   * Called when a poll paged through the whole feed without meeting an event seen before: more happened
   * between two polls than the feed holds (300 events), so some were never visible.
   */
  onGap?: (info: { newEvents: number }) => void;
}

/** The route request for a feed, from its typed descriptor. */
export function feedRequest(feed: EventFeed): Pick<RouteRequest, "route" | "params"> {
  const parsed = parseRequest(eventFeed, feed, "event feed");
  const { feed: kind, ...params } = parsed;
  return { route: EVENT_FEED_ROUTES[kind], params };
}

/**
 * Follows one activity feed (spec 6.1): polls with `If-None-Match` and the exact ETag received, treats 304 as
 * nothing new (it costs no rate limit), waits at least `X-Poll-Interval` between polls, pages back until it meets
 * an event it has already seen, and yields each new event once, oldest first. Errors the service or network may
 * recover from are ridden out with backoff; the iteration ends cleanly when the signal aborts.
 */
export class FeedPoller implements AsyncIterable<ActivityEvent> {
  readonly stats: PollerStats = { polls: 0, notModified: 0, errors: 0, yielded: 0, waits: [] };
  readonly #transport: Transport;
  readonly #feed: EventFeed;
  readonly #options: FeedPollOptions;
  readonly #request: Pick<RouteRequest, "route" | "params">;

  constructor(transport: Transport, feed: EventFeed, options: FeedPollOptions = {}) {
    this.#transport = transport;
    this.#feed = feed;
    this.#options = options;
    this.#request = feedRequest(feed);
    checkPageOptions(`GET ${this.#request.route}`, { per_page: options.per_page }, feedPageLimits(this.#feed.feed));
  }

  [Symbol.asyncIterator](): AsyncGenerator<ActivityEvent, void, undefined> {
    return this.#run();
  }

  /** A fresh follow of the feed: its own seen ids and ETag, so each iteration starts over. */
  #run(): AsyncGenerator<ActivityEvent, void, undefined> {
    const options = this.#options;
    const seen = new SeenIds();
    const perPage = options.per_page ?? feedPageLimits(this.#feed.feed).maxPerPage;
    const operation = `GET ${this.#request.route}`;
    return pollLoop(
      {
        poll: (etag, first) => this.#pollOnce(etag, perPage, seen, first && options.start === "now", operation),
        take: (result, first) => {
          if (first && options.start === "now") {
            for (const event of result.events) seen.add(event.id);
            return [];
          }
          const batch = oldestFirst(result.events);
          // Paging ran off a full feed without meeting a known event: more happened than the feed holds.
          if (!first && !result.metSeen && seen.size > 0 && batch.length >= MAX_FEED_EVENTS) options.onGap?.({ newEvents: batch.length });
          return batch;
        },
        admit: (event) => {
          if (seen.has(event.id)) return false;
          seen.add(event.id);
          return true;
        },
      },
      options,
      this.stats,
    );
  }

  /** One poll: page 1 conditionally, then further pages until an event seen before (or the feed's end). */
  async #pollOnce(etag: string | undefined, perPage: number, seen: SeenIds, firstPageOnly: boolean, operation: string) {
    const signal = this.#options.signal;
    const firstPage = await requestFirstPage(this.#transport, this.#request, perPage, "etag", etag, signal);
    const { intervalHeader, validator: newEtag } = firstPage;
    let response: ServiceResponse = firstPage.response;
    if (response.status === 304) return { status: 304, events: [], pages: 0, metSeen: true, validator: newEtag ?? etag, intervalHeader };
    const events: ActivityEvent[] = [];
    let pages = 0;
    let metSeen = false;
    for (;;) {
      pages++;
      for (const event of parseResponse(activityEventList, response.data, operation) as ActivityEvent[]) {
        if (seen.has(event.id)) metSeen = true;
        else events.push(event);
      }
      const next = parseLinkHeader(response.headers.get("link"))["next"];
      if (metSeen || firstPageOnly || !next) break;
      response = await this.#transport.request({ method: "GET", ...this.#request, url: next, signal });
    }
    return { status: 200, events, pages, metSeen, validator: newEtag, intervalHeader };
  }
}
