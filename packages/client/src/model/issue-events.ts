// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { OpenEnum } from "./open-enum.js";
import type { SimpleUser } from "./users.js";

export type IssueEventKind = OpenEnum<
  | "deployed"
  | "review_requested"
  | "subscribed"
  | "added_to_project"
  | "assigned"
  | "automatic_base_change_failed"
  | "automatic_base_change_succeeded"
  | "base_ref_changed"
  | "closed"
  | "commented"
  | "committed"
  | "connected"
  | "converted_note_to_issue"
  | "converted_to_discussion"
  | "cross-referenced"
  | "demilestoned"
  | "deployment_environment_changed"
  | "disconnected"
  | "head_ref_deleted"
  | "head_ref_force_pushed"
  | "head_ref_restored"
  | "labeled"
  | "locked"
  | "marked_as_duplicate"
  | "mentioned"
  | "merged"
  | "milestoned"
  | "moved_columns_in_project"
  | "pinned"
  | "ready_for_review"
  | "referenced"
  | "removed_from_project"
  | "renamed"
  | "reopened"
  | "review_dismissed"
  | "review_request_removed"
  | "reviewed"
  | "transferred"
  | "unassigned"
  | "unlabeled"
  | "unlocked"
  | "unmarked_as_duplicate"
  | "unpinned"
  | "unsubscribed"
  | "user_blocked"
>;

export type IssueStateReason = OpenEnum<"reopened" | "completed" | "not_planned" | "duplicate">;

export type IssueLabel = {
  name: string;
  id?: number;
  node_id?: string;
  url?: string;
  description?: null | string;
  color?: null | string;
  default?: boolean;
};

export type IssueMilestone = {
  url: string;
  id: number;
  number: number;
  state: string;
  title: string;
  html_url?: string;
  labels_url?: string;
  node_id?: string;
  description?: null | string;
  creator?: null | SimpleUser;
  open_issues?: number;
  closed_issues?: number;
  created_at?: string;
  updated_at?: string;
  closed_at?: null | string;
  due_on?: null | string;
};

/** The app that performed an action (`performed_via_service_app`). */
export type ServiceApp = {
  id: number;
  node_id: string;
  owner: null | SimpleUser;
  name: string;
  description: null | string;
  external_url: string;
  html_url: string;
  created_at: string;
  updated_at: string;
  permissions: Record<string, undefined | string>;
  events: string[];
  slug?: string;
};

/** An issue (or a pull request, which is an issue with `pull_request`), as issue events embed it (spec 2.8). */
export type Issue = {
  id: number;
  node_id: string;
  url: string;
  repository_url: string;
  html_url: string;
  number: number;
  state: OpenEnum<"closed" | "open">;
  title: string;
  user: null | SimpleUser;
  labels: (string | IssueLabel)[];
  locked: boolean;
  comments: number;
  closed_at: null | string;
  created_at: string;
  updated_at: string;
  labels_url?: string;
  comments_url?: string;
  events_url?: string;
  body?: null | string;
  assignee?: null | SimpleUser;
  assignees?: null | SimpleUser[];
  milestone?: null | IssueMilestone;
  active_lock_reason?: null | string;
  pull_request?: {
    url: null | string;
    html_url: null | string;
    diff_url: null | string;
    patch_url: null | string;
  };
  author_association?: string;
  state_reason?: null | OpenEnum<"reopened" | "completed" | "not_planned" | "duplicate">;
};

/**
 * An issue event (spec 2.8). The repository list and the single event carry `issue`; the per-issue
 * list carries the kind's own fields (`label` for labeled/unlabeled, `assignee` for assigned, ...).
 */
export type IssueEvent = {
  id: number;
  node_id: string;
  url: string;
  actor: null | SimpleUser;
  event: IssueEventKind;
  commit_id: null | string;
  commit_url: null | string;
  created_at: string;
  performed_via_service_app?: null | ServiceApp;
  label?: {
    name: string;
    color: string;
  };
  issue?: null | Issue;
  assignee?: null | SimpleUser;
  assigner?: null | SimpleUser;
};

export type IssueEventsRepoParams = {
  owner: string;
  repo: string;
};

export type GetIssueEventParams = {
  owner: string;
  repo: string;
  event_id: string | number;
};

export type ListIssueEventsForIssueParams = {
  owner: string;
  repo: string;
  issue_number: string | number;
};
