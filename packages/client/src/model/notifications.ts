// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { OpenEnum } from "./open-enum.js";
import type { SimpleUser } from "./users.js";

export type KnownNotificationReason =
  | "approval_requested"
  | "assign"
  | "author"
  | "ci_activity"
  | "comment"
  | "invitation"
  | "manual"
  | "member_feature_requested"
  | "mention"
  | "review_requested"
  | "state_change"
  | "subscribed"
  | "team_mention";

/** A thread's `reason`: a known one, or (from a newer service) any other string, passed through. */
export type NotificationReason = OpenEnum<
  | "approval_requested"
  | "assign"
  | "author"
  | "ci_activity"
  | "comment"
  | "invitation"
  | "manual"
  | "member_feature_requested"
  | "mention"
  | "review_requested"
  | "state_change"
  | "subscribed"
  | "team_mention"
>;

export type NotificationSubjectType = OpenEnum<
  | "Issue"
  | "PullRequest"
  | "Commit"
  | "Release"
  | "Discussion"
  | "CheckSuite"
  | "WorkflowRun"
  | "RepositoryInvitation"
  | "RepositoryVulnerabilityAlert"
  | "RepositoryDependabotAlertsThread"
  | "SecurityAdvisory"
  | "MemberFeatureRequest"
>;

/** The repository summary a thread carries (spec 2.5: id, names, owner, privacy, links). */
export type NotificationRepository = {
  id: number;
  name: string;
  full_name: string;
  owner: SimpleUser;
  private: boolean;
  node_id?: string;
  html_url?: string;
  description?: null | string;
  fork?: boolean;
  url?: string;
};

export type NotificationSubject = {
  title: string;
  url: null | string;
  latest_comment_url: null | string;
  type: NotificationSubjectType;
};

/** A notification thread (spec 2.5). */
export type NotificationThread = {
  id: string;
  repository: NotificationRepository;
  subject: NotificationSubject;
  reason: NotificationReason;
  unread: boolean;
  updated_at: string;
  /** Null until the thread was first read. */
  last_read_at: null | string;
  url: string;
  subscription_url: string;
};

/** A thread subscription (spec 2.5). */
export type ThreadSubscription = {
  subscribed: boolean;
  ignored: boolean;
  reason: null | OpenEnum<
    | "approval_requested"
    | "assign"
    | "author"
    | "ci_activity"
    | "comment"
    | "invitation"
    | "manual"
    | "member_feature_requested"
    | "mention"
    | "review_requested"
    | "state_change"
    | "subscribed"
    | "team_mention"
  >;
  created_at: null | string;
  url: string;
  thread_url?: string;
  repository_url?: string;
};

export type ListNotificationsParams = {
  /** Include read threads too. Default false. */
  all?: boolean;
  /** Only threads the user participates in or is mentioned in. Default false. */
  participating?: boolean;
  /** Only threads updated after this time. */
  since?: string;
  /** Only threads updated before this time. */
  before?: string;
};

export type ListRepoNotificationsParams = {
  owner: string;
  repo: string;
  /** Include read threads too. Default false. */
  all?: boolean;
  /** Only threads the user participates in or is mentioned in. Default false. */
  participating?: boolean;
  /** Only threads updated after this time. */
  since?: string;
  /** Only threads updated before this time. */
  before?: string;
};

/** Body of `PUT /notifications`. */
export type MarkNotificationsReadBody = {
  /** Threads updated after this time stay unread. Default: now. */
  last_read_at?: string;
  /** Whether to mark read. Default true. */
  read?: boolean;
};

export type MarkRepoNotificationsReadParams = {
  owner: string;
  repo: string;
  last_read_at?: string;
};

/**
 * Parameters of `markAllAsReadAndWait`: the whole inbox (no `owner`, no `repo`) or one repository (both).
 * `read: false` is refused: marking unread leaves threads unread, so the wait for none unread could never end.
 */
export type MarkAllAsReadAndWaitParams = {
  owner?: string;
  repo?: string;
  last_read_at?: string;
  read?: boolean;
};

export type ThreadParams = {
  thread_id: string | number;
};

export type SetThreadSubscriptionParams = {
  thread_id: string | number;
  /** Block every notification of the thread. Default false. */
  ignored?: boolean;
};
