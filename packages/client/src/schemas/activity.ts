import { z } from "zod";
import type { UnknownEventType } from "../model/open-enum.js";
import { ownerName, repositoryName, timestamp } from "./common.js";
import { username } from "./users.js";

/** The most events one feed holds (spec 6.1). */
export const MAX_FEED_EVENTS = 300;
/** Events older than this have left every feed (spec 6.1). */
export const FEED_MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** The actor of an event (spec 2.7). */
export const eventActor = z.looseObject({
  id: z.number().int(),
  login: z.string(),
  display_login: z.string().optional(),
  gravatar_id: z.string().nullable().optional(),
  url: z.string(),
  avatar_url: z.string(),
});
export type EventActor = z.infer<typeof eventActor>;

export const eventRepo = z.looseObject({ id: z.number().int(), name: z.string(), url: z.string() });
export type EventRepo = z.infer<typeof eventRepo>;

/** Present on organization feeds. */
export const eventOrg = z.looseObject({
  id: z.number().int(),
  login: z.string(),
  gravatar_id: z.string().nullable().optional(),
  url: z.string(),
  avatar_url: z.string(),
});
export type EventOrg = z.infer<typeof eventOrg>;

const eventBase = {
  id: z.string(),
  actor: eventActor,
  repo: eventRepo,
  public: z.boolean(),
  created_at: timestamp.nullable(),
  org: eventOrg.optional(),
};

export const watchEventPayload = z.looseObject({ action: z.string() });
export type WatchEventPayload = z.infer<typeof watchEventPayload>;

export const pushCommit = z.looseObject({
  sha: z.string(),
  author: z.looseObject({ email: z.string(), name: z.string() }),
  message: z.string(),
  distinct: z.boolean(),
  url: z.string(),
});
export type PushCommit = z.infer<typeof pushCommit>;

/** PushEvent payload. Newer API versions leave out `size`, `distinct_size` and `commits`. */
export const pushEventPayload = z.looseObject({
  repository_id: z.number().int(),
  push_id: z.number().int(),
  size: z.number().int().optional(),
  distinct_size: z.number().int().optional(),
  ref: z.string(),
  head: z.string(),
  before: z.string(),
  commits: z.array(pushCommit).optional(),
});
export type PushEventPayload = z.infer<typeof pushEventPayload>;

/** CreateEvent payload; `ref` is null when a repository was created. */
export const createEventPayload = z.looseObject({
  ref: z.string().nullable(),
  ref_type: z.string(),
  full_ref: z.string().optional(),
  master_branch: z.string(),
  description: z.string().nullable().optional(),
  pusher_type: z.string(),
});
export type CreateEventPayload = z.infer<typeof createEventPayload>;

/** The event types whose payloads the spec shows and the client types. */
export const TYPED_EVENT_TYPES = ["WatchEvent", "PushEvent", "CreateEvent"] as const;
const typedEventTypes: ReadonlySet<string> = new Set(TYPED_EVENT_TYPES);

export const watchEvent = z.looseObject({ ...eventBase, type: z.literal("WatchEvent"), payload: watchEventPayload });
export const pushEvent = z.looseObject({ ...eventBase, type: z.literal("PushEvent"), payload: pushEventPayload });
export const createEvent = z.looseObject({ ...eventBase, type: z.literal("CreateEvent"), payload: createEventPayload });

/**
 * Any other event type (the service's list is open, spec 6.4): the documented unknown branch. Its `type` is the
 * string received and its payload is kept as data, not rejected. A typed event with a malformed
 * payload does not fall through to this branch (its type is excluded), so it fails validation.
 */
export const otherActivityEvent = z.looseObject({
  ...eventBase,
  // Typed apart from the typed names (see UnknownEventType), so that comparing `type` with one narrows an event.
  type: z
    .string()
    .refine((type) => !typedEventTypes.has(type), { message: "typed event with a malformed payload" }) as unknown as z.ZodType<
    UnknownEventType,
    string
  >,
  payload: z.record(z.string(), z.unknown()),
});

export type WatchEvent = z.infer<typeof watchEvent>;
export type PushEvent = z.infer<typeof pushEvent>;
export type CreateEvent = z.infer<typeof createEvent>;
export type OtherActivityEvent = z.infer<typeof otherActivityEvent>;

/**
 * An activity event (spec 2.7): a union on `type`, so `event.type === "PushEvent"` narrows it (and its payload);
 * an event type this client does not type arrives as OtherActivityEvent, its payload as data.
 */
export const activityEvent = z.union([watchEvent, pushEvent, createEvent, otherActivityEvent]);
export type ActivityEvent = WatchEvent | PushEvent | CreateEvent | OtherActivityEvent;
export const activityEventList = z.array(activityEvent);

// ---- feeds ------------------------------------------------------------------------------------

const ownerRepo = { owner: ownerName, repo: repositoryName };

/** The parameters of each of the nine feeds of spec 4.4, by what the feed follows. */
export const FEED_PARAMS = {
  public: z.strictObject({}),
  network: z.strictObject(ownerRepo),
  org: z.strictObject({ org: ownerName }),
  repo: z.strictObject(ownerRepo),
  user: z.strictObject({ username }),
  user_org: z.strictObject({ username, org: ownerName }),
  user_public: z.strictObject({ username }),
  received: z.strictObject({ username }),
  received_public: z.strictObject({ username }),
} as const;

const feedOf = <K extends keyof typeof FEED_PARAMS>(feed: K) => FEED_PARAMS[feed].extend({ feed: z.literal(feed) });

/** One of the nine feeds, named by what it follows: `{ feed: "org", org: "acme" }`. */
export const eventFeed = z.discriminatedUnion("feed", [
  feedOf("public"),
  feedOf("network"),
  feedOf("org"),
  feedOf("repo"),
  feedOf("user"),
  feedOf("user_org"),
  feedOf("user_public"),
  feedOf("received"),
  feedOf("received_public"),
]);
// The declared union of src/model/event-feed.ts; the schema's inferred type is broader than the feeds it takes.
export type { EventFeed, EventFeedKind } from "../model/event-feed.js";
