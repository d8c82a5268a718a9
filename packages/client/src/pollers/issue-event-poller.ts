import { listing, type Listing } from "../endpoints/endpoint-call.js";
import { checkPageOptions } from "../endpoints/pagination.js";
import type { IssueEvent, IssueEventsRepoParams } from "../model/issue-events.js";
import type { Transport } from "../transport/transport.js";
import { checkCheckpoint, listingName, type PollCheckpoint } from "./checkpoint.js";
import { newestFirstTarget } from "./newest-first-poll.js";
import { checkpointOf, resumablePoll, stateFrom, type ResumableState } from "./resumable-poll.js";
import type { PollerOptions, PollerStats } from "./poller-options.js";

export interface IssueEventPollOptions extends PollerOptions {
  /** `backlog` (default): first yield every event the repository lists now; `now`: only what comes after. */
  start?: "backlog" | "now";
  /** Events per page. Default 100, the maximum. */
  per_page?: number;
}

/** Ids kept as seen: the newest pages' worth, more than any poll can meet before a known event. */
const ISSUE_EVENT_SEEN_CAPACITY = 1000;

/**
 * Follows a repository's issue events (spec 4.5, 6.3), newest first as the service lists them, with the rules of
 * the other pollers: `If-None-Match` with the ETag received, 304 as nothing new, at least `X-Poll-Interval` (or
 * 60 s) between polls, paging back until a known event, each event yielded once, oldest first, backoff on errors
 * the service may recover from, and a `checkpoint` to resume from.
 */
export class IssueEventPoller implements AsyncIterable<IssueEvent> {
  readonly stats: PollerStats = { polls: 0, notModified: 0, errors: 0, yielded: 0, waits: [] };
  readonly #transport: Transport;
  readonly #options: IssueEventPollOptions;
  readonly #events: Listing<IssueEvent>;
  readonly #listing: string;
  #state: ResumableState;

  constructor(transport: Transport, params: IssueEventsRepoParams, options: IssueEventPollOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    this.#events = listing("issues/list-events-for-repo", params);
    this.#listing = listingName(this.#events.request.route, this.#events.request.params);
    checkPageOptions(this.#events.operation, { per_page: options.per_page }, this.#events.limits);
    const start = options.checkpoint && checkCheckpoint(options.checkpoint, this.#listing, "issue event poller checkpoint");
    this.#state = stateFrom(start, ISSUE_EVENT_SEEN_CAPACITY);
  }

  /** Where the poller stands after the last event it yielded: keep it, and pass it as `checkpoint` to resume. */
  get checkpoint(): PollCheckpoint {
    return checkpointOf(this.#listing, this.#state);
  }

  [Symbol.asyncIterator](): AsyncGenerator<IssueEvent, void, undefined> {
    return this.#run();
  }

  #run(): AsyncGenerator<IssueEvent, void, undefined> {
    const options = this.#options;
    const perPage = options.per_page ?? this.#events.limits.maxPerPage;
    return resumablePoll(
      this,
      options,
      {
        listing: this.#listing,
        begin: (checkpoint) => (this.#state = stateFrom(checkpoint, ISSUE_EVENT_SEEN_CAPACITY)),
        target: (state) => {
          const paging = { perPage, start: options.start, signal: options.signal };
          return newestFirstTarget(this.#transport, this.#events.request, state, paging, this.#events.readPage);
        },
      },
      this.#transport.clock,
    );
  }
}
