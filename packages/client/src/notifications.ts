import { MarkReadTimeoutError } from "./errors.js";
import { checkPageOptions, paginateItems, type PageOptions } from "./pagination.js";
import { NotificationPoller, type NotificationPollOptions } from "./pollers/notification-poller.js";
import { sleep as defaultSleep } from "./sleep.js";
import {
  NOTIFICATIONS_PAGE_LIMITS,
  REPO_NOTIFICATIONS_PAGE_LIMITS,
  listNotificationsParams,
  listRepoNotificationsParams,
  markAllAsReadAndWaitParams,
  markNotificationsReadBody,
  markReadAccepted,
  markRepoNotificationsReadParams,
  notificationThread,
  notificationThreadList,
  setThreadSubscriptionParams,
  threadParams,
  threadSubscription,
  type ListNotificationsParams,
  type ListRepoNotificationsParams,
  type MarkAllAsReadAndWaitParams,
  type MarkNotificationsReadBody,
  type MarkRepoNotificationsReadParams,
  type NotificationThread,
  type SetThreadSubscriptionParams,
  type ThreadParams,
  type ThreadSubscription,
} from "./schemas/notifications.js";
import { parseRequest, parseResponse } from "./schema-validation.js";
import type { HttpMethod, ServiceResponse, Transport } from "./transport.js";
import type { CallOptions } from "./artifact-metadata.js";

export const NOTIFICATION_ROUTES = {
  list: "/notifications",
  thread: "/notifications/threads/{thread_id}",
  subscription: "/notifications/threads/{thread_id}/subscription",
  repo: "/repos/{owner}/{repo}/notifications",
} as const;

/** The answer to a mark-as-read call: 205 done, or 202 accepted and still going on in the background. */
export interface MarkReadResult {
  status: 202 | 205;
  /** True on 202: the service marks the rest in the background. */
  background: boolean;
  message?: string;
  /** The service's time of the answer (its `Date` header, ms): the cut-off when `last_read_at` was omitted. */
  serverTime?: number;
}

export interface WaitForReadOptions extends CallOptions {
  /** Pause between checks of the unread listing. Default 1 s. */
  intervalMs?: number;
  /** Give up after this long (throws a TimeoutError-like ShiplogError). Default 5 minutes. */
  timeoutMs?: number;
  /** Injectable wait, for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable clock (ms), for tests. */
  now?: () => number;
}

/** Marking result after waiting: how many checks of the listing it took. */
export interface MarkReadAndWaitResult extends MarkReadResult {
  checks: number;
}


function filterQuery(params: { all?: boolean; participating?: boolean; since?: string; before?: string }) {
  return { all: params.all, participating: params.participating, since: params.since, before: params.before };
}

/** Notification threads, read and done marking, and thread subscriptions (spec 4.3, 3.2). */
export class NotificationsApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Iterates the caller's threads (unread only unless `all`), every page; `per_page` at most 50. */
  list(params: ListNotificationsParams = {}, options: PageOptions = {}): AsyncGenerator<NotificationThread, void, undefined> {
    const operation = `GET ${NOTIFICATION_ROUTES.list}`;
    const parsed = parseRequest(listNotificationsParams, params, operation);
    checkPageOptions(operation, options, NOTIFICATIONS_PAGE_LIMITS);
    return paginateItems(
      this.#transport,
      { method: "GET", route: NOTIFICATION_ROUTES.list, query: filterQuery(parsed) },
      options,
      NOTIFICATIONS_PAGE_LIMITS,
      (body) => parseResponse(notificationThreadList, body, operation),
    );
  }

  /** Iterates the caller's threads of one repository; `per_page` at most 100. */
  listForRepo(params: ListRepoNotificationsParams, options: PageOptions = {}): AsyncGenerator<NotificationThread, void, undefined> {
    const operation = `GET ${NOTIFICATION_ROUTES.repo}`;
    const { owner, repo, ...filters } = parseRequest(listRepoNotificationsParams, params, operation);
    checkPageOptions(operation, options, REPO_NOTIFICATIONS_PAGE_LIMITS);
    return paginateItems(
      this.#transport,
      { method: "GET", route: NOTIFICATION_ROUTES.repo, params: { owner, repo }, query: filterQuery(filters) },
      options,
      REPO_NOTIFICATIONS_PAGE_LIMITS,
      (body) => parseResponse(notificationThreadList, body, operation),
    );
  }

  /**
   * Marks threads read (or unread with `read: false`); threads updated after `last_read_at` stay unread.
   * A 202 answer means the service goes on in the background: see `markAllAsReadAndWait`.
   */
  async markAllAsRead(body: MarkNotificationsReadBody = {}, options: CallOptions = {}): Promise<MarkReadResult> {
    const operation = `PUT ${NOTIFICATION_ROUTES.list}`;
    const parsed = parseRequest(markNotificationsReadBody, body, operation);
    const response = await this.#transport.request({ method: "PUT", route: NOTIFICATION_ROUTES.list, body: parsed, signal: options.signal });
    return markResult(response, operation);
  }

  /** Marks the threads of one repository read; 202 means it goes on in the background. */
  async markRepoAsRead(params: MarkRepoNotificationsReadParams, options: CallOptions = {}): Promise<MarkReadResult> {
    const operation = `PUT ${NOTIFICATION_ROUTES.repo}`;
    const { owner, repo, ...body } = parseRequest(markRepoNotificationsReadParams, params, operation);
    const response = await this.#transport.request({ method: "PUT", route: NOTIFICATION_ROUTES.repo, params: { owner, repo }, body, signal: options.signal });
    return markResult(response, operation);
  }

  /**
   * Marks all threads read (or those of one repository, given `owner` and `repo`) and, when the service
   * answers 202, waits until the unread listing holds none of the threads the call covered.
   */
  async markAllAsReadAndWait(params: MarkAllAsReadAndWaitParams = {}, options: WaitForReadOptions = {}): Promise<MarkReadAndWaitResult> {
    const sleep = options.sleep ?? defaultSleep;
    const now = options.now ?? Date.now;
    // Checked before anything is sent: owner without repo must not become a mark of the whole inbox.
    const { owner, repo, ...body } = parseRequest(markAllAsReadAndWaitParams, params, "markAllAsReadAndWait");
    const result =
      owner !== undefined && repo !== undefined
        ? await this.markRepoAsRead({ owner, repo, last_read_at: body.last_read_at }, options)
        : await this.markAllAsRead(body, options);
    if (!result.background) return { ...result, checks: 0 };
    // Threads updated after the cut-off legitimately stay unread; only those up to it are waited for.
    const cutoff = body.last_read_at !== undefined ? Date.parse(body.last_read_at) : result.serverTime ?? now();
    const deadline = now() + (options.timeoutMs ?? 300_000);
    for (let checks = 1; ; checks++) {
      const listing =
        owner !== undefined && repo !== undefined
          ? this.listForRepo({ owner, repo }, { per_page: 100, signal: options.signal })
          : this.list({}, { signal: options.signal });
      let pending = 0;
      for await (const thread of listing) if (thread.unread && Date.parse(thread.updated_at) <= cutoff) pending++;
      if (pending === 0) return { status: result.status, background: result.background, message: result.message, checks };
      if (now() >= deadline) {
        throw new MarkReadTimeoutError(`PUT ${NOTIFICATION_ROUTES.list}`, pending, options.timeoutMs ?? 300_000);
      }
      await sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  /** One thread. */
  async getThread(params: ThreadParams, options: CallOptions = {}): Promise<NotificationThread> {
    const operation = `GET ${NOTIFICATION_ROUTES.thread}`;
    const { thread_id } = parseRequest(threadParams, params, operation);
    const response = await this.#transport.request({ method: "GET", route: NOTIFICATION_ROUTES.thread, params: { thread_id }, signal: options.signal });
    return parseResponse(notificationThread, response.data, operation);
  }

  /** Marks one thread read (as opening it would). */
  async markThreadAsRead(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    const operation = `PATCH ${NOTIFICATION_ROUTES.thread}`;
    const { thread_id } = parseRequest(threadParams, params, operation);
    // Marking read twice is harmless, so the PATCH may be retried.
    await this.#transport.request({ method: "PATCH", route: NOTIFICATION_ROUTES.thread, params: { thread_id }, signal: options.signal, safeToRetry: true });
  }

  /** Marks one thread done: it leaves the inbox. */
  async markThreadAsDone(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    const operation = `DELETE ${NOTIFICATION_ROUTES.thread}`;
    const { thread_id } = parseRequest(threadParams, params, operation);
    await this.#transport.request({ method: "DELETE", route: NOTIFICATION_ROUTES.thread, params: { thread_id }, signal: options.signal });
  }

  /** The caller's subscription to a thread. */
  async getThreadSubscription(params: ThreadParams, options: CallOptions = {}): Promise<ThreadSubscription> {
    const operation = `GET ${NOTIFICATION_ROUTES.subscription}`;
    const { thread_id } = parseRequest(threadParams, params, operation);
    const response = await this.#transport.request({ method: "GET", route: NOTIFICATION_ROUTES.subscription, params: { thread_id }, signal: options.signal });
    return parseResponse(threadSubscription, response.data, operation);
  }

  /** Subscribes to a thread, or with `ignored: true` blocks all its notifications. */
  async setThreadSubscription(params: SetThreadSubscriptionParams, options: CallOptions = {}): Promise<ThreadSubscription> {
    const operation = `PUT ${NOTIFICATION_ROUTES.subscription}`;
    const { thread_id, ...body } = parseRequest(setThreadSubscriptionParams, params, operation);
    const response = await this.#transport.request({
      method: "PUT",
      route: NOTIFICATION_ROUTES.subscription,
      params: { thread_id },
      body,
      signal: options.signal,
    });
    return parseResponse(threadSubscription, response.data, operation);
  }

  /** Deletes the subscription: the thread is muted until a comment or mention (a watched repository still notifies). */
  async deleteThreadSubscription(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    const operation = `DELETE ${NOTIFICATION_ROUTES.subscription}`;
    const { thread_id } = parseRequest(threadParams, params, operation);
    await this.#transport.request({ method: "DELETE", route: NOTIFICATION_ROUTES.subscription, params: { thread_id }, signal: options.signal });
  }

  /**
   * Polls the inbox, yielding each new or newly updated thread once. Sends `If-Modified-Since` with the
   * `Last-Modified` received, obeys `X-Poll-Interval`, backs off on errors, ends when the signal aborts.
   */
  poll(options: NotificationPollOptions = {}): NotificationPoller {
    return new NotificationPoller(this.#transport, options);
  }
}

function markResult(response: ServiceResponse, operation: string): MarkReadResult {
  if (response.status === 202) {
    const body = parseResponse(markReadAccepted, response.data ?? {}, operation);
    const date = Date.parse(response.headers.get("date") ?? "");
    return {
      status: 202,
      background: true,
      ...(body.message === undefined ? {} : { message: body.message }),
      ...(Number.isNaN(date) ? {} : { serverTime: date }),
    };
  }
  return { status: 205, background: false };
}
