import { listing, type Listing } from "../endpoints/endpoint-call.js";
import { feedCall } from "../endpoints/event-feeds.js";
import { checkPageOptions } from "../endpoints/pagination.js";
import type { EventFeed } from "../model/event-feed.js";
import { FEED_MAX_AGE_MS, MAX_FEED_EVENTS } from "../schemas/activity.js";
import type { ActivityEvent } from "../model/activity.js";
import type { Transport } from "../transport/transport.js";
import { checkCheckpoint, listingName, type PollCheckpoint } from "./checkpoint.js";
import { newestFirstTarget, type NewestFirstAnswer } from "./newest-first-poll.js";
import { checkpointOf, resumablePoll, stateFrom, type ResumableState } from "./resumable-poll.js";
import type { PollerOptions, PollerStats } from "./poller-options.js";

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

/** Ids kept as seen: twice what a feed shows, so events reordered within a poll or delivered late still match. */
const FEED_SEEN_CAPACITY = 2 * MAX_FEED_EVENTS;

/**
 * Follows one activity feed (spec 6.1): polls with `If-None-Match` and the exact ETag received, treats 304 as
 * nothing new (it costs no rate limit), waits at least `X-Poll-Interval` between polls, pages back until it meets
 * an event it has already seen, and yields each new event once, oldest first. An event delivered late (an older
 * `created_at` than events already yielded) is still yielded, once: what is new is decided by id, over the
 * window the feed can show (300 events, 30 days). Errors the service or network may recover from are ridden out
 * with backoff; the iteration ends cleanly when the signal aborts. `checkpoint` shows where it stands.
 */
export class FeedPoller implements AsyncIterable<ActivityEvent> {
  readonly stats: PollerStats = { polls: 0, notModified: 0, errors: 0, yielded: 0, waits: [] };
  readonly #transport: Transport;
  readonly #options: FeedPollOptions;
  readonly #feed: Listing<ActivityEvent>;
  readonly #listing: string;
  #state: ResumableState;

  constructor(transport: Transport, feed: EventFeed, options: FeedPollOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    const { id, params } = feedCall(feed);
    this.#feed = listing(id, params as never) as Listing<ActivityEvent>;
    this.#listing = listingName(this.#feed.request.route, this.#feed.request.params);
    checkPageOptions(this.#feed.operation, { per_page: options.per_page }, this.#feed.limits);
    const start = options.checkpoint && checkCheckpoint(options.checkpoint, this.#listing, "feed poller checkpoint");
    this.#state = stateFrom(start, FEED_SEEN_CAPACITY);
  }

  /** Where the poller stands after the last item it yielded: keep it, and pass it as `checkpoint` to resume. */
  get checkpoint(): PollCheckpoint {
    return checkpointOf(this.#listing, this.#state);
  }

  [Symbol.asyncIterator](): AsyncGenerator<ActivityEvent, void, undefined> {
    return this.#run();
  }

  /** A follow of the feed from the starting checkpoint (or from scratch): each iteration starts there again. */
  #run(): AsyncGenerator<ActivityEvent, void, undefined> {
    const options = this.#options;
    const perPage = options.per_page ?? this.#feed.limits.maxPerPage;
    const clock = options.clock ?? this.#transport.clock;
    return resumablePoll(
      this,
      options,
      {
        listing: this.#listing,
        begin: (checkpoint) => (this.#state = stateFrom(checkpoint, FEED_SEEN_CAPACITY)),
        target: (state) => {
          const paging = { perPage, start: options.start, signal: options.signal };
          const base = newestFirstTarget(this.#transport, this.#feed.request, state, paging, this.#feed.readPage);
          return {
            ...base,
            take: (answer: NewestFirstAnswer<ActivityEvent>, first: boolean) => {
              const batch = base.take(answer, first);
              // Paging ran off a full feed without meeting a known event: more happened than the feed holds.
              const ranOff = !first && !answer.metSeen && state.seen.size > 0 && batch.length >= MAX_FEED_EVENTS;
              if (ranOff) options.onGap?.({ newEvents: batch.length });
              return batch;
            },
            // Events older than 30 days have left the feed: their ids need no keeping.
            settled: () => state.seen.dropOlderThan(clock.now() - FEED_MAX_AGE_MS),
          };
        },
      },
      clock,
    );
  }
}
