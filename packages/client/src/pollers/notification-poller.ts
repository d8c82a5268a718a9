import { listing, type Listing } from "../endpoints/endpoint-call.js";
import { checkPageOptions } from "../endpoints/pagination.js";
import { parseRequest } from "../schemas/validation.js";
import { listNotificationsParams } from "../schemas/notifications.js";
import type { NotificationThread } from "../model/notifications.js";
import type { Transport } from "../transport/transport.js";
import { checkCheckpoint, listingName, type PollCheckpoint } from "./checkpoint.js";
import { pollHeaders, pollPages, type PollAnswer } from "./poll-loop.js";
import { checkpointOf, resumablePoll, stateFrom, type ResumableState } from "./resumable-poll.js";
import type { PollerOptions, PollerStats } from "./poller-options.js";

export interface NotificationPollOptions extends PollerOptions {
  /** Follow one repository's threads instead of the whole inbox. */
  repository?: { owner: string; repo: string };
  /** Include read threads. Default false. */
  all?: boolean;
  /** Only threads the user participates in. Default false. */
  participating?: boolean;
  /** `backlog` (default): first yield the threads the listing holds now; `now`: only later changes. */
  start?: "backlog" | "now";
  /** Threads per page; default the endpoint's maximum (50 for the inbox, 100 for a repository). */
  per_page?: number;
}

/**
 * How far back of the newest update yielded the next poll asks (`since`): threads updated earlier were yielded
 * in that state already, and the slack covers notifications the service delivers with an older `updated_at`.
 */
export const NOTIFICATION_SINCE_SLACK_MS = 6 * 3600 * 1000;
/** Thread updates kept as seen at most: far more than the slack window holds for any inbox a poller can follow. */
const NOTIFICATION_SEEN_CAPACITY = 5000;

/**
 * Follows the notification inbox (spec 6.2): polls with `If-Modified-Since` carrying the exact `Last-Modified`
 * received, treats 304 as nothing new, waits at least `X-Poll-Interval` between polls, and yields each thread
 * once per update (a thread that is updated again comes again), oldest update first. After the first poll it
 * asks only for threads updated since shortly before the newest update yielded, so its state stays small.
 */
export class NotificationPoller implements AsyncIterable<NotificationThread> {
  readonly stats: PollerStats = { polls: 0, notModified: 0, errors: 0, yielded: 0, waits: [] };
  readonly #transport: Transport;
  readonly #options: NotificationPollOptions;
  readonly #threads: Listing<NotificationThread>;
  readonly #perPage: number;
  readonly #listing: string;
  #state: ResumableState;

  constructor(transport: Transport, options: NotificationPollOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    const filters = parseRequest(
      listNotificationsParams,
      { all: options.all, participating: options.participating },
      "notification poller",
    );
    this.#threads = options.repository
      ? listing("activity/list-repo-notifications-for-authenticated-user", { ...options.repository, ...filters })
      : listing("activity/list-notifications-for-authenticated-user", filters);
    checkPageOptions(this.#threads.operation, { per_page: options.per_page }, this.#threads.limits);
    this.#perPage = options.per_page ?? this.#threads.limits.maxPerPage;
    this.#listing = listingName(this.#threads.request.route, this.#threads.request.params, filters);
    const start = options.checkpoint && checkCheckpoint(options.checkpoint, this.#listing, "notification poller checkpoint");
    this.#state = stateFrom(start, NOTIFICATION_SEEN_CAPACITY);
  }

  /** Where the poller stands after the last thread it yielded: keep it, and pass it as `checkpoint` to resume. */
  get checkpoint(): PollCheckpoint {
    return checkpointOf(this.#listing, this.#state);
  }

  [Symbol.asyncIterator](): AsyncGenerator<NotificationThread, void, undefined> {
    return this.#run();
  }

  /** A follow of the inbox from the starting checkpoint (or from scratch): each iteration starts there again. */
  #run(): AsyncGenerator<NotificationThread, void, undefined> {
    const options = this.#options;
    // A thread is new when its id was not yielded, or was yielded with another updated_at.
    const isNew = (state: ResumableState, thread: NotificationThread) => state.seen.at(thread.id) !== thread.updated_at;
    return resumablePoll(
      this,
      options,
      {
        listing: this.#listing,
        begin: (checkpoint) => (this.#state = stateFrom(checkpoint, NOTIFICATION_SEEN_CAPACITY)),
        target: (state) => ({
          poll: (lastModified) => this.#pollOnce(lastModified, state.since),
          take: (answer, first) => {
            const fresh = answer.threads.filter((t) => isNew(state, t));
            if (first && options.start === "now") {
              for (const thread of fresh) state.seen.add(thread.id, thread.updated_at);
              moveSince(state);
              return [];
            }
            return fresh.sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || Number(a.id) - Number(b.id));
          },
          record: (thread) => state.seen.add(thread.id, thread.updated_at),
          settled: () => moveSince(state),
        }),
      },
      this.#transport.clock,
    );
  }

  /** One poll: the first page conditionally; on a change, every page. */
  async #pollOnce(lastModified: string | undefined, since: string | undefined) {
    const base = this.#threads.request;
    const request = since ? { ...base, query: { ...base.query, since } } : base;
    let first: Pick<PollAnswer, "intervalHeader" | "validator"> | undefined;
    const threads: NotificationThread[] = [];
    let pages = 0;
    for await (const response of pollPages(this.#transport, request, this.#perPage, "last-modified", lastModified, this.#options.signal)) {
      first ??= pollHeaders(response, "last-modified");
      if (response.status === 304) {
        return { status: 304, threads: [], pages: 0, validator: first.validator ?? lastModified, intervalHeader: first.intervalHeader };
      }
      pages++;
      threads.push(...this.#threads.readPage(response.data));
    }
    // Pages can shift while they are read; keep one entry per thread, its latest update.
    const latest = new Map<string, NotificationThread>();
    for (const thread of threads) {
      const known = latest.get(thread.id);
      if (!known || Date.parse(thread.updated_at) > Date.parse(known.updated_at)) latest.set(thread.id, thread);
    }
    const validator = first?.validator ?? null;
    return { status: 200, threads: [...latest.values()], pages, validator, intervalHeader: first?.intervalHeader ?? null };
  }
}

/** Moves `since` to shortly before the newest update yielded, and forgets updates before it. */
function moveSince(state: ResumableState): void {
  let newest = Number.NEGATIVE_INFINITY;
  for (const [, at] of state.seen.entries()) newest = Math.max(newest, at === null ? Number.NEGATIVE_INFINITY : Date.parse(at));
  if (!Number.isFinite(newest)) return;
  const cutoff = newest - NOTIFICATION_SINCE_SLACK_MS;
  if (state.since !== undefined && Date.parse(state.since) >= cutoff) return;
  state.since = new Date(cutoff).toISOString().replace(/\.\d{3}Z$/, "Z");
  state.seen.dropOlderThan(cutoff);
}
