import { z } from "zod";
import { ownerName, positiveId, repositoryName, timestamp } from "./common.js";
import { openEnum, type OpenEnum } from "./open-enum.js";
import { simpleUser } from "./users.js";
import { ISSUE_EVENT_KINDS, ISSUE_STATE_REASONS } from "../model/values.js";
export { ISSUE_EVENT_KINDS, ISSUE_STATE_REASONS } from "../model/values.js";

export type IssueEventKind = OpenEnum<(typeof ISSUE_EVENT_KINDS)[number]>;

export type IssueStateReason = OpenEnum<(typeof ISSUE_STATE_REASONS)[number]>;

export const issueLabel = z.looseObject({
  id: z.number().int().optional(),
  node_id: z.string().optional(),
  url: z.string().optional(),
  name: z.string(),
  description: z.string().nullable().optional(),
  color: z.string().nullable().optional(),
  default: z.boolean().optional(),
});
export type IssueLabel = z.infer<typeof issueLabel>;

export const issueMilestone = z.looseObject({
  url: z.string(),
  html_url: z.string().optional(),
  labels_url: z.string().optional(),
  id: z.number().int(),
  node_id: z.string().optional(),
  number: z.number().int(),
  state: z.string(),
  title: z.string(),
  description: z.string().nullable().optional(),
  creator: simpleUser.nullable().optional(),
  open_issues: z.number().int().optional(),
  closed_issues: z.number().int().optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
  closed_at: timestamp.nullable().optional(),
  due_on: timestamp.nullable().optional(),
});
export type IssueMilestone = z.infer<typeof issueMilestone>;

/** The app that performed an action (`performed_via_service_app`). */
export const serviceApp = z.looseObject({
  id: z.number().int(),
  slug: z.string().optional(),
  node_id: z.string(),
  owner: simpleUser.nullable(),
  name: z.string(),
  description: z.string().nullable(),
  external_url: z.string(),
  html_url: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  permissions: z.record(z.string(), z.string().optional()),
  events: z.array(z.string()),
});
export type ServiceApp = z.infer<typeof serviceApp>;

/** An issue (or a pull request, which is an issue with `pull_request`), as issue events embed it (spec 2.8). */
export const issueObject = z.looseObject({
  id: z.number().int(),
  node_id: z.string(),
  url: z.string(),
  repository_url: z.string(),
  labels_url: z.string().optional(),
  comments_url: z.string().optional(),
  events_url: z.string().optional(),
  html_url: z.string(),
  number: z.number().int(),
  state: openEnum(["open", "closed"]),
  title: z.string(),
  body: z.string().nullable().optional(),
  user: simpleUser.nullable(),
  labels: z.array(z.union([z.string(), issueLabel])),
  assignee: simpleUser.nullable().optional(),
  assignees: z.array(simpleUser).nullable().optional(),
  milestone: issueMilestone.nullable().optional(),
  locked: z.boolean(),
  active_lock_reason: z.string().nullable().optional(),
  comments: z.number().int(),
  pull_request: z
    .looseObject({
      url: z.string().nullable(),
      html_url: z.string().nullable(),
      diff_url: z.string().nullable(),
      patch_url: z.string().nullable(),
    })
    .optional(),
  closed_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  author_association: z.string().optional(),
  state_reason: openEnum(ISSUE_STATE_REASONS).nullable().optional(),
});
export type Issue = z.infer<typeof issueObject>;

/**
 * An issue event (spec 2.8). The repository list and the single event carry `issue`; the per-issue
 * list carries the kind's own fields (`label` for labeled/unlabeled, `assignee` for assigned, ...).
 */
export const issueEvent = z.looseObject({
  id: z.number().int(),
  node_id: z.string(),
  url: z.string(),
  actor: simpleUser.nullable(),
  event: openEnum(ISSUE_EVENT_KINDS),
  commit_id: z.string().nullable(),
  commit_url: z.string().nullable(),
  created_at: timestamp,
  performed_via_service_app: serviceApp.nullable().optional(),
  label: z.looseObject({ name: z.string(), color: z.string() }).optional(),
  issue: issueObject.nullable().optional(),
  assignee: simpleUser.nullable().optional(),
  assigner: simpleUser.nullable().optional(),
});
export type IssueEvent = z.infer<typeof issueEvent>;
export const issueEventList = z.array(issueEvent);

// ---- requests -------------------------------------------------------------------------------

export const issueEventsRepoParams = z.strictObject({ owner: ownerName, repo: repositoryName });
export type IssueEventsRepoParams = z.input<typeof issueEventsRepoParams>;

export const getIssueEventParams = z.strictObject({ owner: ownerName, repo: repositoryName, event_id: positiveId });
export type GetIssueEventParams = z.input<typeof getIssueEventParams>;

export const listIssueEventsForIssueParams = z.strictObject({ owner: ownerName, repo: repositoryName, issue_number: positiveId });
export type ListIssueEventsForIssueParams = z.input<typeof listIssueEventsForIssueParams>;
