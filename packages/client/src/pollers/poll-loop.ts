import { sleep as defaultSleep } from "../retry-policy.js";
import type { RouteRequest, ServiceResponse, Transport } from "../transport.js";
import { PollSchedule, isTransientPollError } from "./poll-schedule.js";
import { callerAborted, type PollerOptions, type PollerStats } from "./poller-options.js";

/** What one conditional poll answered. */
export interface PollAnswer {
  /** 200 (something changed) or 304 (nothing new). */
  status: number;
  /** Pages fetched (0 on 304). */
  pages: number;
  /** The `X-Poll-Interval` header, as received. */
  intervalHeader: string | null;
  /** The validator to send on the next poll (an ETag or a Last-Modified), as received. */
  validator: string | null | undefined;
}

/** What a poller adds to the loop: how to poll, what a changed answer holds, and what counts as yielded already. */
export interface PollTarget<T, A extends PollAnswer> {
  /** One poll, conditional on `validator` when there is one; `first` until a poll has completed. */
  poll(validator: string | undefined, first: boolean): Promise<A>;
  /** The items of a changed answer to yield, in order (none when the first poll only marks the present as known). */
  take(answer: A, first: boolean): T[];
  /** Whether `item` is new; if so it is recorded as yielded. */
  admit(item: T): boolean;
}

/**
 * The polling loop every poller shares (spec 6.1, 6.2): conditional polls, 304 as nothing new, at least
 * `X-Poll-Interval` between polls, backoff on errors the service or network may recover from, and a clean end
 * when the caller's signal aborts. Counts into `stats` and reports through `options.onPoll`/`onError`.
 */
export async function* pollLoop<T, A extends PollAnswer>(target: PollTarget<T, A>, options: PollerOptions, stats: PollerStats): AsyncGenerator<T, void, undefined> {
  const signal = options.signal;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const schedule = new PollSchedule(options);
  let validator: string | undefined;
  let first = true;

  while (!signal?.aborted) {
    let batch: T[] = [];
    let waitMs: number;
    try {
      const answer = await target.poll(validator, first);
      stats.polls++;
      schedule.observe(answer.intervalHeader);
      if (answer.status === 304) {
        stats.notModified++;
      } else {
        batch = target.take(answer, first);
        // Only a poll that completed moves the validator on: a poll cut short must be repeated in full.
        validator = answer.validator ?? undefined;
        first = false;
      }
      waitMs = schedule.succeeded();
      options.onPoll?.({ status: answer.status, newItems: batch.length, pages: answer.pages, intervalSeconds: schedule.intervalSeconds, nextPollInMs: waitMs });
    } catch (error) {
      if (callerAborted(signal)) return;
      if (!isTransientPollError(error)) throw error;
      stats.errors++;
      waitMs = schedule.failed(error, now());
      options.onError?.(error, { failures: schedule.failures, delayMs: waitMs });
    }
    for (const item of batch) {
      if (!target.admit(item)) continue;
      stats.yielded++;
      yield item;
    }
    if (signal?.aborted) return;
    stats.waits.push(waitMs);
    try {
      await sleep(waitMs, signal);
    } catch (error) {
      if (callerAborted(signal)) return;
      throw error;
    }
  }
}

/** The response header that validates a poll, and the request header that sends it back. */
const CONDITIONAL_HEADERS = { etag: "if-none-match", "last-modified": "if-modified-since" } as const;

/** The first page of a poll, sent conditionally on the validator the last completed poll received. */
export async function requestFirstPage(
  transport: Transport,
  request: Pick<RouteRequest, "route" | "params" | "query">,
  perPage: number,
  validatorHeader: keyof typeof CONDITIONAL_HEADERS,
  validator: string | undefined,
  signal: AbortSignal | undefined,
): Promise<{ response: ServiceResponse; intervalHeader: string | null; validator: string | null }> {
  const url = transport.buildUrl(request.route, request.params, { ...request.query, per_page: perPage, page: 1 });
  const headers: Record<string, string> = validator ? { [CONDITIONAL_HEADERS[validatorHeader]]: validator } : {};
  const response = await transport.request({ method: "GET", ...request, url, headers, signal });
  return { response, intervalHeader: response.headers.get("x-poll-interval"), validator: response.headers.get(validatorHeader) };
}
