import { checkPageOptions } from "../pagination.js";
import { parseRequest, parseResponse } from "../schema-validation.js";
import { ISSUE_EVENTS_PAGE_LIMITS, issueEventList, issueEventsRepoParams, type IssueEvent, type IssueEventsRepoParams } from "../schemas/issue-events.js";
import type { RouteRequest, Transport } from "../transport.js";
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
  readonly #request: Pick<RouteRequest, "route" | "params">;
  readonly #listing: string;
  #state: ResumableState;

  constructor(transport: Transport, params: IssueEventsRepoParams, options: IssueEventPollOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    const route = "/repos/{owner}/{repo}/issues/events";
    const { owner, repo } = parseRequest(issueEventsRepoParams, params, `GET ${route}`);
    this.#request = { route, params: { owner, repo } };
    this.#listing = listingName(route, { owner, repo });
    checkPageOptions(`GET ${route}`, { per_page: options.per_page }, ISSUE_EVENTS_PAGE_LIMITS);
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
    const perPage = options.per_page ?? ISSUE_EVENTS_PAGE_LIMITS.maxPerPage;
    const operation = `GET ${this.#request.route}`;
    return resumablePoll(this, options, {
      listing: this.#listing,
      begin: (checkpoint) => (this.#state = stateFrom(checkpoint, ISSUE_EVENT_SEEN_CAPACITY)),
      target: (state) =>
        newestFirstTarget(this.#transport, this.#request, state, { perPage, start: options.start, signal: options.signal }, (body) =>
          parseResponse(issueEventList, body, operation),
        ),
    });
  }
}
