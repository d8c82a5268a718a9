import { checkPageOptions, parseLinkHeader } from "../pagination.js";
import { parseRequest, parseResponse } from "../schema-validation.js";
import {
  NOTIFICATIONS_PAGE_LIMITS,
  REPO_NOTIFICATIONS_PAGE_LIMITS,
  listNotificationsParams,
  notificationThreadList,
  type NotificationThread,
} from "../schemas/notifications.js";
import { ownerName } from "../schemas/common.js";
import type { RouteRequest, ServiceResponse, Transport } from "../transport.js";
import { pollLoop, requestFirstPage } from "./poll-loop.js";
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
 * Follows the notification inbox (spec 6.2): polls with `If-Modified-Since` carrying the exact `Last-Modified`
 * received, treats 304 as nothing new, waits at least `X-Poll-Interval` between polls, and yields each thread
 * once per update (a thread that is updated again comes again), oldest update first.
 */
export class NotificationPoller implements AsyncIterable<NotificationThread> {
  readonly stats: PollerStats = { polls: 0, notModified: 0, errors: 0, yielded: 0, waits: [] };
  readonly #transport: Transport;
  readonly #options: NotificationPollOptions;
  readonly #request: Pick<RouteRequest, "route" | "params" | "query">;
  readonly #perPage: number;

  constructor(transport: Transport, options: NotificationPollOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    const filters = parseRequest(listNotificationsParams, { all: options.all, participating: options.participating }, "notification poller");
    const limits = options.repository ? REPO_NOTIFICATIONS_PAGE_LIMITS : NOTIFICATIONS_PAGE_LIMITS;
    if (options.repository) {
      parseRequest(ownerName, options.repository.owner, "notification poller repository.owner");
      parseRequest(ownerName, options.repository.repo, "notification poller repository.repo");
    }
    this.#request = options.repository
      ? { route: "/repos/{owner}/{repo}/notifications", params: { ...options.repository }, query: { ...filters } }
      : { route: "/notifications", query: { ...filters } };
    checkPageOptions(`GET ${this.#request.route}`, { per_page: options.per_page }, limits);
    this.#perPage = options.per_page ?? limits.maxPerPage;
  }

  [Symbol.asyncIterator](): AsyncGenerator<NotificationThread, void, undefined> {
    return this.#run();
  }

  /** A fresh follow of the inbox: its own record of what was yielded and its own Last-Modified. */
  #run(): AsyncGenerator<NotificationThread, void, undefined> {
    const options = this.#options;
    // Thread id -> the updated_at last yielded (or skipped at start).
    const yielded = new Map<string, string>();
    return pollLoop(
      {
        poll: (lastModified) => this.#pollOnce(lastModified),
        take: (result, first) => {
          const fresh = result.threads.filter((t) => yielded.get(t.id) !== t.updated_at);
          if (first && options.start === "now") {
            for (const thread of fresh) yielded.set(thread.id, thread.updated_at);
            return [];
          }
          return fresh.sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || Number(a.id) - Number(b.id));
        },
        admit: (thread) => {
          if (yielded.get(thread.id) === thread.updated_at) return false;
          yielded.set(thread.id, thread.updated_at);
          return true;
        },
      },
      options,
      this.stats,
    );
  }

  /** One poll: the first page conditionally; on a change, every page. */
  async #pollOnce(lastModified: string | undefined) {
    const signal = this.#options.signal;
    const operation = `GET ${this.#request.route}`;
    const firstPage = await requestFirstPage(this.#transport, this.#request, this.#perPage, "last-modified", lastModified, signal);
    const { intervalHeader, validator: newLastModified } = firstPage;
    let response: ServiceResponse = firstPage.response;
    if (response.status === 304) return { status: 304, threads: [], pages: 0, validator: newLastModified ?? lastModified, intervalHeader };
    const threads: NotificationThread[] = [];
    let pages = 0;
    for (;;) {
      pages++;
      threads.push(...parseResponse(notificationThreadList, response.data, operation));
      const next = parseLinkHeader(response.headers.get("link"))["next"];
      if (!next) break;
      response = await this.#transport.request({ method: "GET", ...this.#request, url: next, signal });
    }
    // Pages can shift while they are read; keep one entry per thread, its latest update.
    const latest = new Map<string, NotificationThread>();
    for (const thread of threads) {
      const known = latest.get(thread.id);
      if (!known || Date.parse(thread.updated_at) > Date.parse(known.updated_at)) latest.set(thread.id, thread);
    }
    return { status: 200, threads: [...latest.values()], pages, validator: newLastModified, intervalHeader };
  }
}
