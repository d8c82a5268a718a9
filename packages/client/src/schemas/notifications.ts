import { z } from "zod";
import { ownerName, positiveId, repositoryName, timestamp } from "./common.js";
import { openEnum, type OpenEnum } from "./open-enum.js";
import { simpleUser } from "./users.js";
import { NOTIFICATION_REASONS, NOTIFICATION_SUBJECT_TYPES } from "../model/values.js";
export { NOTIFICATION_REASONS, NOTIFICATION_SUBJECT_TYPES } from "../model/values.js";

export type KnownNotificationReason = (typeof NOTIFICATION_REASONS)[number];
/** A thread's `reason`: a known one, or (from a newer service) any other string, passed through. */
export type NotificationReason = OpenEnum<KnownNotificationReason>;

export type NotificationSubjectType = OpenEnum<(typeof NOTIFICATION_SUBJECT_TYPES)[number]>;

/** The repository summary a thread carries (spec 2.5: id, names, owner, privacy, links). */
export const notificationRepository = z.looseObject({
  id: z.number().int(),
  node_id: z.string().optional(),
  name: z.string(),
  full_name: z.string(),
  owner: simpleUser,
  private: z.boolean(),
  html_url: z.string().optional(),
  description: z.string().nullable().optional(),
  fork: z.boolean().optional(),
  url: z.string().optional(),
});
export type NotificationRepository = z.infer<typeof notificationRepository>;

export const notificationSubject = z.looseObject({
  title: z.string(),
  url: z.string().nullable(),
  latest_comment_url: z.string().nullable(),
  type: openEnum(NOTIFICATION_SUBJECT_TYPES),
});
export type NotificationSubject = z.infer<typeof notificationSubject>;

/** A notification thread (spec 2.5). */
export const notificationThread = z.looseObject({
  id: z.string(),
  repository: notificationRepository,
  subject: notificationSubject,
  reason: openEnum(NOTIFICATION_REASONS),
  unread: z.boolean(),
  updated_at: timestamp,
  /** Null until the thread was first read. */
  last_read_at: timestamp.nullable(),
  url: z.string(),
  subscription_url: z.string(),
});
export type NotificationThread = z.infer<typeof notificationThread>;
export const notificationThreadList = z.array(notificationThread);

/** A thread subscription (spec 2.5). */
export const threadSubscription = z.looseObject({
  subscribed: z.boolean(),
  ignored: z.boolean(),
  reason: openEnum(NOTIFICATION_REASONS).nullable(),
  created_at: timestamp.nullable(),
  url: z.string(),
  thread_url: z.string().optional(),
  repository_url: z.string().optional(),
});
export type ThreadSubscription = z.infer<typeof threadSubscription>;

/** The 202 body of the mark-as-read calls. */
export const markReadAccepted = z.looseObject({ message: z.string().optional() });

// ---- requests -------------------------------------------------------------------------------

/** An ISO 8601 timestamp the client sends (`YYYY-MM-DDTHH:MM:SSZ`, fractions and offsets allowed). */
export const isoTimestamp = z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z" });

const listFilters = {
  /** Include read threads too. Default false. */
  all: z.boolean().optional(),
  /** Only threads the user participates in or is mentioned in. Default false. */
  participating: z.boolean().optional(),
  /** Only threads updated after this time. */
  since: isoTimestamp.optional(),
  /** Only threads updated before this time. */
  before: isoTimestamp.optional(),
};

export const listNotificationsParams = z.strictObject(listFilters);
export type ListNotificationsParams = z.input<typeof listNotificationsParams>;

export const listRepoNotificationsParams = z.strictObject({ owner: ownerName, repo: repositoryName, ...listFilters });
export type ListRepoNotificationsParams = z.input<typeof listRepoNotificationsParams>;

/** Body of `PUT /notifications`. */
export const markNotificationsReadBody = z.strictObject({
  /** Threads updated after this time stay unread. Default: now. */
  last_read_at: isoTimestamp.optional(),
  /** Whether to mark read. Default true. */
  read: z.boolean().optional(),
});
export type MarkNotificationsReadBody = z.input<typeof markNotificationsReadBody>;

export const markRepoNotificationsReadParams = z.strictObject({
  owner: ownerName,
  repo: repositoryName,
  last_read_at: isoTimestamp.optional(),
});
export type MarkRepoNotificationsReadParams = z.input<typeof markRepoNotificationsReadParams>;

/**
 * Parameters of `markAllAsReadAndWait`: the whole inbox (no `owner`, no `repo`) or one repository (both).
 * `read: false` is refused: marking unread leaves threads unread, so the wait for none unread could never end.
 */
export const markAllAsReadAndWaitParams = z
  .strictObject({
    owner: ownerName.optional(),
    repo: repositoryName.optional(),
    last_read_at: isoTimestamp.optional(),
    read: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    // Owner alone would otherwise fall through to PUT /notifications and mark the whole inbox.
    if (value.owner !== undefined && value.repo === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["repo"],
        message: "is required with owner (give both to mark one repository, neither for the whole inbox)",
        params: { rule: "owner and repo together" },
      });
    }
    if (value.repo !== undefined && value.owner === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["owner"],
        message: "is required with repo (give both to mark one repository, neither for the whole inbox)",
        params: { rule: "owner and repo together" },
      });
    }
    if (value.read === false) {
      ctx.addIssue({
        code: "custom",
        path: ["read"],
        message: "must be true or absent here: marking unread never ends a wait for no unread threads (use markAllAsRead)",
        params: { rule: "not false" },
      });
    }
  });
export type MarkAllAsReadAndWaitParams = z.input<typeof markAllAsReadAndWaitParams>;

/** Thread ids are integers on the path (the thread object carries them as strings). */
export const threadId = positiveId;
export const threadParams = z.strictObject({ thread_id: threadId });
export type ThreadParams = z.input<typeof threadParams>;

export const setThreadSubscriptionParams = z.strictObject({
  thread_id: threadId,
  /** Block every notification of the thread. Default false. */
  ignored: z.boolean().optional(),
});
export type SetThreadSubscriptionParams = z.input<typeof setThreadSubscriptionParams>;

/** Body of `PUT /notifications/threads/{thread_id}/subscription`. */
export const setThreadSubscriptionBody = z.strictObject({ ignored: z.boolean().optional() });
