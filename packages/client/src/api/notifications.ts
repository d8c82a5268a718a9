import { EndpointCaller, operationName, type CallAnswer } from "../endpoints/endpoint-call.js";
import type { CallOptions } from "../endpoints/call-options.js";
import { ENDPOINTS } from "../endpoints/registry.js";
import { MarkReadTimeoutError } from "../errors/errors.js";
import type { PageOptions } from "../endpoints/call-options.js";
import { NotificationPoller, type NotificationPollOptions } from "../pollers/notification-poller.js";
import { parseRequest } from "../schemas/validation.js";
import { markAllAsReadAndWaitParams } from "../schemas/notifications.js";
import type {
  ListNotificationsParams,
  ListRepoNotificationsParams,
  MarkAllAsReadAndWaitParams,
  MarkNotificationsReadBody,
  MarkRepoNotificationsReadParams,
  NotificationThread,
  SetThreadSubscriptionParams,
  ThreadParams,
  ThreadSubscription,
} from "../model/notifications.js";
import type { TransportClock } from "../timing/clock.js";
import type { Transport } from "../transport/transport.js";

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
  /** The clock the checks wait on and the deadline is read from. Default the client's. */
  clock?: TransportClock;
}

/** Marking result after waiting: how many checks of the listing it took. */
export interface MarkReadAndWaitResult extends MarkReadResult {
  checks: number;
}

/** Notification threads, read and done marking, and thread subscriptions (spec 4.3, 3.2). */
export class NotificationsApi {
  readonly #transport: Transport;
  readonly #calls: EndpointCaller;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.#calls = new EndpointCaller(transport);
  }

  /** Iterates the caller's threads (unread only unless `all`), every page; `per_page` at most 50. */
  list(params: ListNotificationsParams = {}, options: PageOptions = {}): AsyncGenerator<NotificationThread, void, undefined> {
    return this.#calls.list("activity/list-notifications-for-authenticated-user", params, options);
  }

  /** Iterates the caller's threads of one repository; `per_page` at most 100. */
  listForRepo(params: ListRepoNotificationsParams, options: PageOptions = {}): AsyncGenerator<NotificationThread, void, undefined> {
    return this.#calls.list("activity/list-repo-notifications-for-authenticated-user", params, options);
  }

  /**
   * Marks threads read (or unread with `read: false`); threads updated after `last_read_at` stay unread.
   * A 202 answer means the service goes on in the background: see `markAllAsReadAndWait`.
   */
  async markAllAsRead(body: MarkNotificationsReadBody = {}, options: CallOptions = {}): Promise<MarkReadResult> {
    const id = "activity/mark-notifications-as-read";
    return markResult(await this.#calls.send(id, this.#calls.check(id, body), options));
  }

  /** Marks the threads of one repository read; 202 means it goes on in the background. */
  async markRepoAsRead(params: MarkRepoNotificationsReadParams, options: CallOptions = {}): Promise<MarkReadResult> {
    const id = "activity/mark-repo-notifications-as-read";
    return markResult(await this.#calls.send(id, this.#calls.check(id, params), options));
  }

  /**
   * Marks all threads read (or those of one repository, given `owner` and `repo`) and, when the service
   * answers 202, waits until the unread listing holds none of the threads the call covered.
   */
  async markAllAsReadAndWait(params: MarkAllAsReadAndWaitParams = {}, options: WaitForReadOptions = {}): Promise<MarkReadAndWaitResult> {
    const clock = options.clock ?? this.#transport.clock;
    // Checked before anything is sent: owner without repo must not become a mark of the whole inbox.
    const { owner, repo, ...body } = parseRequest(markAllAsReadAndWaitParams, params, "markAllAsReadAndWait");
    const repository = owner !== undefined && repo !== undefined ? { owner, repo } : undefined;
    const marking = repository ? "activity/mark-repo-notifications-as-read" : "activity/mark-notifications-as-read";
    const result = repository
      ? await this.markRepoAsRead({ ...repository, last_read_at: body.last_read_at }, options)
      : await this.markAllAsRead(body, options);
    if (!result.background) return { ...result, checks: 0 };
    // Threads updated after the cut-off legitimately stay unread; only those up to it are waited for.
    const cutoff = body.last_read_at !== undefined ? Date.parse(body.last_read_at) : (result.serverTime ?? clock.now());
    const deadline = clock.now() + (options.timeoutMs ?? 300_000);
    for (let checks = 1; ; checks++) {
      const listing = repository
        ? this.listForRepo(repository, { per_page: 100, signal: options.signal })
        : this.list({}, { signal: options.signal });
      let pending = 0;
      for await (const thread of listing) if (thread.unread && Date.parse(thread.updated_at) <= cutoff) pending++;
      if (pending === 0) return { status: result.status, background: result.background, message: result.message, checks };
      if (clock.now() >= deadline) {
        throw new MarkReadTimeoutError(operationName(ENDPOINTS[marking]), pending, options.timeoutMs ?? 300_000);
      }
      await clock.sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  /** One thread. */
  getThread(params: ThreadParams, options: CallOptions = {}): Promise<NotificationThread> {
    return this.#calls.call("activity/get-thread", params, options);
  }

  /** Marks one thread read (as opening it would). */
  markThreadAsRead(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    return this.#calls.call("activity/mark-thread-as-read", params, options);
  }

  /** Marks one thread done: it leaves the inbox. */
  markThreadAsDone(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    return this.#calls.call("activity/mark-thread-as-done", params, options);
  }

  /** The caller's subscription to a thread. */
  getThreadSubscription(params: ThreadParams, options: CallOptions = {}): Promise<ThreadSubscription> {
    return this.#calls.call("activity/get-thread-subscription-for-authenticated-user", params, options);
  }

  /** Subscribes to a thread, or with `ignored: true` blocks all its notifications. */
  setThreadSubscription(params: SetThreadSubscriptionParams, options: CallOptions = {}): Promise<ThreadSubscription> {
    return this.#calls.call("activity/set-thread-subscription", params, options);
  }

  /** Deletes the subscription: the thread is muted until a comment or mention (a watched repository still notifies). */
  deleteThreadSubscription(params: ThreadParams, options: CallOptions = {}): Promise<void> {
    return this.#calls.call("activity/delete-thread-subscription", params, options);
  }

  /**
   * Polls the inbox, yielding each new or newly updated thread once. Sends `If-Modified-Since` with the
   * `Last-Modified` received, obeys `X-Poll-Interval`, backs off on errors, ends when the signal aborts.
   */
  poll(options: NotificationPollOptions = {}): NotificationPoller {
    return new NotificationPoller(this.#transport, options);
  }
}

/** A mark-as-read answer: 205 done, or 202 with the service's message and time (its `Date`). */
function markResult(answer: CallAnswer<{ message?: string | undefined }>): MarkReadResult {
  if (answer.status !== 202) return { status: 205, background: false };
  const date = Date.parse(answer.headers.get("date") ?? "");
  return {
    status: 202,
    background: true,
    ...(answer.data.message === undefined ? {} : { message: answer.data.message }),
    ...(Number.isNaN(date) ? {} : { serverTime: date }),
  };
}
