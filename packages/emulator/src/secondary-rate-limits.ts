// The service's secondary rate limits (its REST documentation, "rate limits" and "best practices"): per caller,
// no more than 100 requests in flight, 900 points a minute per endpoint (GET 1, a write 5), 80 content-generating
// requests a minute and 500 an hour. Pure decisions on the time the caller passes (the emulator's clock); the HTTP
// answer is in secondary-rate-limit-answer.ts.
import { z } from "zod";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { SlidingWindow } from "./sliding-window.js";

/** The limits, by the names counters and answers use. */
export const SECONDARY_LIMIT_NAMES = ["concurrent_requests", "endpoint_points", "content_per_minute", "content_per_hour"] as const;
export type SecondaryLimitName = (typeof SECONDARY_LIMIT_NAMES)[number];

/** What the limits are and how a refusal is answered. */
export interface SecondaryLimitSettings {
  /** Off: every request is admitted and nothing is counted. */
  enabled: boolean;
  /** Requests of one caller in flight at once. */
  concurrentRequests: number;
  /** Points one caller may spend on one endpoint (method and route) in any 60 s: GET, HEAD, OPTIONS 1, others 5. */
  endpointPointsPerMinute: number;
  /** Content-generating requests of one caller in any 60 s. */
  contentPerMinute: number;
  /** Content-generating requests of one caller in any hour. */
  contentPerHour: number;
  /** The service answers 403, sometimes 429. */
  status: 403 | 429;
  /** Send `retry-after` (the seconds until the window admits the request) on refusals by a window limit. */
  retryAfter: boolean;
}

/** The service's published secondary limits (they "may change without notice"). */
export const PUBLISHED_SECONDARY_LIMITS: Readonly<SecondaryLimitSettings> = Object.freeze({
  enabled: true,
  concurrentRequests: 100,
  endpointPointsPerMinute: 900,
  contentPerMinute: 80,
  contentPerHour: 500,
  status: 403,
  retryAfter: true,
});

const WRITE_POINTS = 5;
const positive = z.number().int().min(1);
/** The checks `configure` applies: every field optional, unknown fields refused (a typo would change nothing). */
const settingsSchema = z
  .strictObject({
    enabled: z.boolean(),
    concurrentRequests: positive,
    endpointPointsPerMinute: z.number().int().min(WRITE_POINTS, { message: "must admit one write (5 points)" }),
    contentPerMinute: positive,
    contentPerHour: positive,
    status: z.literal([403, 429], { message: "must be 403 or 429" }),
    retryAfter: z.boolean(),
  })
  .partial();

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Points a request costs against its endpoint's budget: reads 1, writes 5 (the service's "most" cases). */
export function requestPoints(method: string): number {
  return ["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase()) ? 1 : WRITE_POINTS;
}

/**
 * Whether a request generates content: a write that creates or changes what others see in an organization or
 * repository (deployment and storage records, tag objects, refs, imports). Not content: marking notifications
 * read or done and subscriptions (the caller's own inbox), and minting App installation tokens (limited apart).
 */
export function isContentGenerating(method: string, route: string): boolean {
  if (requestPoints(method) === 1) return false;
  return !/(^|\/)notifications(\/|$)/.test(route) && !route.startsWith("/app/");
}

/** One request as the limits see it. */
export interface LimitedRequest {
  /** Who is limited: a user, an App installation, a token without a user, or an address (see `callerKey`). */
  caller: string;
  method: string;
  /** The route template (`/repos/:owner/:repo/git/refs`): one endpoint whatever the path's values. */
  route: string;
}

/** An admitted request holds a concurrency slot until `release`; a refused one names the limit and the wait. */
export type Admission =
  | { admitted: true; release: () => void }
  | { admitted: false; limit: SecondaryLimitName; retryAfterSeconds: number | undefined };

/** What one caller has used now. */
export interface SecondaryLimitUsage {
  inFlight: number;
  /** Points in the last 60 s per endpoint (`POST /orgs/:org/...`), endpoints with none left out. */
  endpointPoints: Record<string, number>;
  contentPerMinute: number;
  contentPerHour: number;
}

interface CallerState {
  inFlight: number;
  endpoints: Map<string, SlidingWindow>;
  contentMinute: SlidingWindow;
  contentHour: SlidingWindow;
}

const NOTHING = () => {};

/** The secondary limits of every caller, with counters of what they refused. */
export class SecondaryRateLimits {
  #settings: SecondaryLimitSettings;
  #callers = new Map<string, CallerState>();
  #refused = zeroCounts();
  #admitted = 0;

  constructor(
    settings: Partial<SecondaryLimitSettings> | false | undefined,
    private readonly now: () => number,
  ) {
    this.#settings = { ...PUBLISHED_SECONDARY_LIMITS };
    this.configure(settings === false ? { enabled: false } : (settings ?? {}), "startEmulator", "secondaryLimits");
  }

  /** The limits in force (a copy). */
  get settings(): SecondaryLimitSettings {
    return { ...this.#settings };
  }

  /** Changes settings while the emulator runs (windows and counters kept); throws `EmulatorUsageError` naming the field. */
  configure(
    changes: Partial<SecondaryLimitSettings>,
    operation = "secondaryLimits.configure",
    argument = "settings",
  ): SecondaryLimitSettings {
    const checked = settingsSchema.safeParse(changes, { reportInput: true });
    if (!checked.success) throw EmulatorUsageError.fromZod(operation, argument, checked.error);
    this.#settings = { ...this.#settings, ...(checked.data as Partial<SecondaryLimitSettings>) };
    return this.settings;
  }

  /** Decides one request at the current time; an admitted one is counted in its windows and holds a slot. */
  admit(request: LimitedRequest): Admission {
    const settings = this.#settings;
    if (!settings.enabled) return { admitted: true, release: NOTHING };
    const now = this.now();
    const state = this.#caller(request.caller);
    const points = requestPoints(request.method);
    const content = isContentGenerating(request.method, request.route);
    const endpointKey = `${request.method.toUpperCase()} ${request.route}`;
    let endpoint = state.endpoints.get(endpointKey);
    if (!endpoint) {
      endpoint = new SlidingWindow(MINUTE_MS);
      state.endpoints.set(endpointKey, endpoint);
    }

    const refuse = (limit: SecondaryLimitName, waitMs: number | undefined): Admission => {
      this.#refused[limit]++;
      const retryAfterSeconds = waitMs === undefined || !settings.retryAfter ? undefined : Math.max(1, Math.ceil(waitMs / 1000));
      return { admitted: false, limit, retryAfterSeconds };
    };
    // In flight: no wait can be named (a slot frees when another request ends), so the caller waits a minute.
    if (state.inFlight >= settings.concurrentRequests) return refuse("concurrent_requests", undefined);
    // Of the windows that refuse, the longest wait is named, so a caller that obeys is not refused again.
    const waits: [SecondaryLimitName, number][] = [["endpoint_points", endpoint.waitMs(now, points, settings.endpointPointsPerMinute)]];
    if (content) {
      waits.push(["content_per_hour", state.contentHour.waitMs(now, 1, settings.contentPerHour)]);
      waits.push(["content_per_minute", state.contentMinute.waitMs(now, 1, settings.contentPerMinute)]);
    }
    const [limit, waitMs] = waits.reduce((longest, wait) => (wait[1] > longest[1] ? wait : longest));
    if (waitMs > 0) return refuse(limit, waitMs);

    endpoint.record(now, points);
    if (content) {
      state.contentMinute.record(now, 1);
      state.contentHour.record(now, 1);
    }
    this.#admitted++;
    state.inFlight++;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        state.inFlight--;
      },
    };
  }

  /** How many requests were admitted, and refused per limit (each refusal counted once, under the limit it names). */
  counts(): { admitted: number; refused: Record<SecondaryLimitName, number> & { total: number } } {
    const total = SECONDARY_LIMIT_NAMES.reduce((sum, name) => sum + this.#refused[name], 0);
    return { admitted: this.#admitted, refused: { ...this.#refused, total } };
  }

  /** What one caller has used now: requests in flight, points per endpoint, content this minute and this hour. */
  usage(caller: string): SecondaryLimitUsage {
    const now = this.now();
    const state = this.#caller(caller);
    const endpointPoints: Record<string, number> = {};
    for (const [key, window] of state.endpoints) if (window.used(now) > 0) endpointPoints[key] = window.used(now);
    const [contentPerMinute, contentPerHour] = [state.contentMinute.used(now), state.contentHour.used(now)];
    return { inFlight: state.inFlight, endpointPoints, contentPerMinute, contentPerHour };
  }

  /** Empties every window and zeroes the counters; requests in flight keep their slots until they end. */
  reset(): void {
    for (const state of this.#callers.values()) {
      state.endpoints.clear();
      state.contentMinute.clear();
      state.contentHour.clear();
    }
    this.#refused = zeroCounts();
    this.#admitted = 0;
  }

  #caller(caller: string): CallerState {
    let state = this.#callers.get(caller);
    if (!state) {
      state = { inFlight: 0, endpoints: new Map(), contentMinute: new SlidingWindow(MINUTE_MS), contentHour: new SlidingWindow(HOUR_MS) };
      this.#callers.set(caller, state);
    }
    return state;
  }
}

function zeroCounts(): Record<SecondaryLimitName, number> {
  return { concurrent_requests: 0, endpoint_points: 0, content_per_minute: 0, content_per_hour: 0 };
}
