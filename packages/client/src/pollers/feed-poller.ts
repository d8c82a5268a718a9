import { parseLinkHeader } from "../pagination.js";
import { sleep as defaultSleep } from "../retry-policy.js";
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
import { PollSchedule, isTransientPollError } from "./poll-schedule.js";
import { callerAborted, type PollerOptions, type PollerStats } from "./poller-options.js";
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

  async *#run(): AsyncGenerator<ActivityEvent, void, undefined> {
    const options = this.#options;
    const signal = options.signal;
    const sleep = options.sleep ?? defaultSleep;
    const now = options.now ?? Date.now;
    const schedule = new PollSchedule(options);
    const seen = new SeenIds();
    const perPage = options.per_page ?? feedPageLimits(this.#feed.feed).maxPerPage;
    const operation = `GET ${this.#request.route}`;
    let etag: string | undefined;
    let first = true;

    while (!signal?.aborted) {
      let batch: ActivityEvent[] = [];
      let waitMs: number;
      try {
        const result = await this.#pollOnce(etag, perPage, seen, first && options.start === "now", operation);
        this.stats.polls++;
        schedule.observe(result.intervalHeader);
        if (result.status === 304) {
          this.stats.notModified++;
        } else {
          if (first && options.start === "now") {
            for (const event of result.events) seen.add(event.id);
          } else {
            batch = oldestFirst(result.events);
            // Paging ran off a full feed without meeting a known event: more happened than the feed holds.
            if (!first && !result.metSeen && seen.size > 0 && batch.length >= MAX_FEED_EVENTS) options.onGap?.({ newEvents: batch.length });
          }
          // Only a poll that completed moves the ETag on: a poll cut short must be repeated in full.
          etag = result.etag ?? undefined;
          first = false;
        }
        waitMs = schedule.succeeded();
        options.onPoll?.({ status: result.status, newItems: batch.length, pages: result.pages, intervalSeconds: schedule.intervalSeconds, nextPollInMs: waitMs });
      } catch (error) {
        if (callerAborted(signal)) return;
        if (!isTransientPollError(error)) throw error;
        this.stats.errors++;
        waitMs = schedule.failed(error, now());
        options.onError?.(error, { failures: schedule.failures, delayMs: waitMs });
      }
      for (const event of batch) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        this.stats.yielded++;
        yield event;
      }
      if (signal?.aborted) return;
      this.stats.waits.push(waitMs);
      try {
        await sleep(waitMs, signal);
      } catch (error) {
        if (callerAborted(signal)) return;
        throw error;
      }
    }
  }

  /** One poll: page 1 conditionally, then further pages until an event seen before (or the feed's end). */
  async #pollOnce(etag: string | undefined, perPage: number, seen: SeenIds, firstPageOnly: boolean, operation: string) {
    const signal = this.#options.signal;
    const url = this.#transport.buildUrl(this.#request.route, this.#request.params, { per_page: perPage, page: 1 });
    let response: ServiceResponse = await this.#transport.request({
      method: "GET",
      ...this.#request,
      url,
      headers: etag ? { "if-none-match": etag } : {},
      signal,
    });
    const intervalHeader = response.headers.get("x-poll-interval");
    const newEtag = response.headers.get("etag");
    if (response.status === 304) return { status: 304, events: [], pages: 0, metSeen: true, etag: newEtag ?? etag, intervalHeader };
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
    return { status: 200, events, pages, metSeen, etag: newEtag, intervalHeader };
  }
}
