import { EndpointCaller } from "../endpoints/endpoint-call.js";
import { feedCall } from "../endpoints/event-feeds.js";
import type { PageOptions } from "../endpoints/call-options.js";
import { FeedPoller, type FeedPollOptions } from "../pollers/feed-poller.js";
import type { EventFeed } from "../model/event-feed.js";
import type { ActivityEvent } from "../model/activity.js";
import type { Transport } from "../transport/transport.js";

type Feed<K extends EventFeed["feed"]> = Omit<Extract<EventFeed, { feed: K }>, "feed">;

/** The activity event feeds of spec 4.4: listing by iterator, and polling. */
export class ActivityApi {
  readonly #transport: Transport;
  readonly #calls: EndpointCaller;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.#calls = new EndpointCaller(transport);
  }

  /** Iterates any feed, every page (at most 300 events, none older than 30 days); `per_page` at most 100. */
  listFeed(feed: EventFeed, options: PageOptions = {}): AsyncGenerator<ActivityEvent, void, undefined> {
    const { id, params } = feedCall(feed);
    return this.#calls.list(id, params as never, options) as AsyncGenerator<ActivityEvent, void, undefined>;
  }

  /** Public events of the whole service (`GET /events`, 15 per page by default). */
  listPublicEvents(options: PageOptions = {}) {
    return this.listFeed({ feed: "public" }, options);
  }

  /** Public events of a repository's network. A renamed network is followed to its new name. */
  listPublicEventsForRepoNetwork(params: Feed<"network">, options: PageOptions = {}) {
    return this.listFeed({ feed: "network", ...params }, options);
  }

  /** Public events of an organization. */
  listPublicOrgEvents(params: Feed<"org">, options: PageOptions = {}) {
    return this.listFeed({ feed: "org", ...params }, options);
  }

  /** Events of a repository (needs Metadata read on a private one). */
  listRepoEvents(params: Feed<"repo">, options: PageOptions = {}) {
    return this.listFeed({ feed: "repo", ...params }, options);
  }

  /** Events a user performed; private ones only when the caller is that user. */
  listEventsForUser(params: Feed<"user">, options: PageOptions = {}) {
    return this.listFeed({ feed: "user", ...params }, options);
  }

  /** The authenticated user's feed of an organization (needs the organization's Events read). */
  listOrgEventsForUser(params: Feed<"user_org">, options: PageOptions = {}) {
    return this.listFeed({ feed: "user_org", ...params }, options);
  }

  /** Public events a user performed. */
  listPublicEventsForUser(params: Feed<"user_public">, options: PageOptions = {}) {
    return this.listFeed({ feed: "user_public", ...params }, options);
  }

  /** Events a user received (from watched repositories); private ones only for that user. */
  listReceivedEventsForUser(params: Feed<"received">, options: PageOptions = {}) {
    return this.listFeed({ feed: "received", ...params }, options);
  }

  /** Public events a user received. */
  listReceivedPublicEventsForUser(params: Feed<"received_public">, options: PageOptions = {}) {
    return this.listFeed({ feed: "received_public", ...params }, options);
  }

  /**
   * Follows a feed: yields each new event once, oldest first, polling with `If-None-Match` at the
   * service's `X-Poll-Interval`. Stop it with `options.signal` (or by breaking out of the loop).
   */
  poll(feed: EventFeed, options: FeedPollOptions = {}): FeedPoller {
    return new FeedPoller(this.#transport, feed, options);
  }
}
