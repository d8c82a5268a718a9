import { pageResponses } from "../endpoints/pagination.js";
import type { RouteRequest, ServiceResponse } from "../transport/route-request.js";
import type { TransportClock } from "../timing/clock.js";
import type { Transport } from "../transport/transport.js";
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

/** What a poller adds to the loop: how to poll, what a changed answer holds, and how items are recorded as yielded. */
export interface PollTarget<T, A extends PollAnswer> {
  /** One poll, conditional on `validator` when there is one; `first` until a poll has completed. */
  poll(validator: string | undefined, first: boolean): Promise<A>;
  /** The new items of a changed answer, in the order to yield them, each once (none when the first poll only marks the present). */
  take(answer: A, first: boolean): T[];
  /** Records `item` as yielded (it is part of the checkpoint from now on). */
  record(item: T): void;
  /** Called once every new item of a changed answer was yielded: trim what the listing can no longer show. */
  settled?(answer: A): void;
}

/** The loop's own progress, shared with the poller so its checkpoint can show it. */
export interface PollProgress {
  /** The validator to send next: that of the last changed poll whose items were all yielded. */
  validator: string | undefined;
  /** True until a poll completed (or when starting from a checkpoint: false). */
  first: boolean;
}

/**
 * The polling loop every poller shares (spec 6.1, 6.2): conditional polls, 304 as nothing new, at least
 * `X-Poll-Interval` between polls, backoff on errors the service or network may recover from, and a clean end
 * when the caller's signal aborts. Counts into `stats` and reports through `options.onPoll`/`onError`.
 *
 * The validator moves on only when every new item of the poll was yielded, so a checkpoint taken between two
 * items of one poll makes the next run repeat that poll (and skip, by id, what was yielded). `save`, when given,
 * is called whenever the caller comes back for more (the item before was handled) and when the iteration ends.
 */
export async function* pollLoop<T, A extends PollAnswer>(
  target: PollTarget<T, A>,
  options: PollerOptions,
  stats: PollerStats,
  progress: PollProgress,
  clock: TransportClock,
  save?: () => Promise<void>,
): AsyncGenerator<T, void, undefined> {
  const signal = options.signal;
  const schedule = new PollSchedule(options);
  let unsaved = false;

  try {
    while (!signal?.aborted) {
      let batch: T[] = [];
      let changed: A | undefined;
      let waitMs: number;
      try {
        const answer = await target.poll(progress.validator, progress.first);
        stats.polls++;
        schedule.observe(answer.intervalHeader);
        if (answer.status === 304) {
          stats.notModified++;
        } else {
          batch = target.take(answer, progress.first);
          changed = answer;
          progress.first = false;
        }
        waitMs = schedule.succeeded();
        options.onPoll?.({
          status: answer.status,
          newItems: batch.length,
          pages: answer.pages,
          intervalSeconds: schedule.intervalSeconds,
          nextPollInMs: waitMs,
        });
      } catch (error) {
        if (callerAborted(signal)) return;
        if (!isTransientPollError(error)) throw error;
        stats.errors++;
        waitMs = schedule.failed(error, clock.now());
        options.onError?.(error, { failures: schedule.failures, delayMs: waitMs });
      }
      if (changed) {
        const answer = changed;
        // Only a poll whose items were all yielded moves the validator on: one cut short must be repeated.
        const settle = () => {
          progress.validator = answer.validator ?? undefined;
          target.settled?.(answer);
        };
        if (batch.length === 0) settle();
        for (const [index, item] of batch.entries()) {
          target.record(item);
          if (index === batch.length - 1) settle();
          stats.yielded++;
          unsaved = true;
          yield item;
          if (save) {
            await save();
            unsaved = false;
          }
        }
        if (batch.length === 0 && save) await save();
      }
      if (signal?.aborted) return;
      stats.waits.push(waitMs);
      try {
        await clock.sleep(waitMs, signal);
      } catch (error) {
        if (callerAborted(signal)) return;
        throw error;
      }
    }
  } finally {
    // The caller broke out after an item, or aborted: what it was given counts as handled.
    if (unsaved && save) await save();
  }
}

/** The response header that validates a poll, and the request header that sends it back. */
const CONDITIONAL_HEADERS = { etag: "if-none-match", "last-modified": "if-modified-since" } as const;

/** The response header that validates a poll of a listing. */
export type ValidatorHeader = keyof typeof CONDITIONAL_HEADERS;

/** The pages of one poll, the first sent conditionally on the validator the last completed poll received. */
export function pollPages(
  transport: Transport,
  request: RouteRequest,
  perPage: number,
  validatorHeader: ValidatorHeader,
  validator: string | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<ServiceResponse, void, undefined> {
  const firstPageHeaders = validator ? { [CONDITIONAL_HEADERS[validatorHeader]]: validator } : undefined;
  return pageResponses(transport, request, { perPage, firstPageHeaders, signal });
}

/** What the first page of a poll says of the poll: the interval the service asks for, and its validator. */
export function pollHeaders(response: ServiceResponse, validatorHeader: ValidatorHeader): Pick<PollAnswer, "intervalHeader" | "validator"> {
  return { intervalHeader: response.headers.get("x-poll-interval"), validator: response.headers.get(validatorHeader) };
}
