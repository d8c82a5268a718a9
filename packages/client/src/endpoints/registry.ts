// The endpoint registry: every endpoint shiplog speaks, once, as data, keyed by its OpenAPI operation id and in
// the spec's order. The client's calls, the permission statements of section 4, the emulator's route table and
// validators, and the contract tests are all derived from it. To add an endpoint, see docs/adding-an-endpoint.md.
import { z } from "zod";
import { CLASSIC_ONLY, NO_CLASSIC, UAT_ONLY, needs, statement, type StatementGrant } from "../permissions/statement.js";
import { FEED_PARAMS, activityEventList } from "../schemas/activity.js";
import {
  appInstallation,
  createInstallationTokenParams,
  getAppParams,
  installationToken,
  orgInstallationParams,
  repoInstallationParams,
} from "../schemas/apps.js";
import {
  clusterDeploymentResult,
  createDeploymentRecordParams,
  createStorageRecordParams,
  deploymentRecordList,
  listByDigestParams,
  setClusterDeploymentRecordsParams,
  storageRecordList,
} from "../schemas/artifact-metadata.js";
import { ownerName, repositoryName, timestamp } from "../schemas/common.js";
import {
  createRefParams,
  createTagParams,
  deleteRefParams,
  getRefParams,
  getTagParams,
  gitRef,
  gitRefList,
  gitSha,
  gitTag,
  gitVerification,
  listMatchingRefsParams,
  updateRefParams,
} from "../schemas/git.js";
import {
  getIssueEventParams,
  issueEvent,
  issueEventList,
  issueEventsRepoParams,
  listIssueEventsForIssueParams,
  serviceApp,
} from "../schemas/issue-events.js";
import {
  listNotificationsParams,
  listRepoNotificationsParams,
  markNotificationsReadBody,
  markReadAccepted,
  markRepoNotificationsReadParams,
  notificationThread,
  notificationThreadList,
  setThreadSubscriptionParams,
  threadParams,
  threadSubscription,
} from "../schemas/notifications.js";
import { SOURCE_IMPORTS_RETIRED_AT, SOURCE_IMPORTS_WARNING_CODE } from "../model/values.js";
import {
  getCommitAuthorsParams,
  importAuthor,
  importAuthorList,
  importLargeFileList,
  importRepoParams,
  mapCommitAuthorParams,
  setLfsPreferenceParams,
  sourceImport,
  startImportParams,
  updateImportParams,
} from "../schemas/source-imports.js";
import type { Endpoint } from "./endpoint.js";

const R = "/repos/{owner}/{repo}";

const ARTIFACTS = "4.1 Artifact metadata";
const TAGS = "4.2 Git tags";
const NOTIFICATIONS = "4.3 Notifications";
const ACTIVITY = "4.4 Activity events";
const ISSUE_EVENTS = "4.5 Issue events";
const IMPORTS = "4.4b Source imports";

/** 4.1: write for creating calls, read for listing; app user, app installation and fine-grained tokens. */
const artifactWrite = statement(ARTIFACTS, needs("artifact_metadata", "write"), NO_CLASSIC);
const artifactRead = statement(ARTIFACTS, needs("artifact_metadata", "read"), NO_CLASSIC);
const CONTENTS_READ_FINE_GRAINED: StatementGrant = { permission: "contents", access: "read", fineGrainedOnly: true };
/** 4.3: personal access tokens (classic) only, with the notifications or repo scope. */
const notificationsOnly = statement(NOTIFICATIONS, [], { ...CLASSIC_ONLY, note: "Notifications have no fine-grained permission (4.3)." });
const NO_PERMISSION_NOTE = "Needs no permission for fine-grained tokens (4.4).";
const PRIVATE_WHEN_SELF = `${NO_PERMISSION_NOTE} Shows private events only when the caller is that user.`;
/** 4.5: the single event and the per-issue list take Issues read or Pull requests read. */
const ISSUES_OR_PULLS: readonly StatementGrant[] = [
  { permission: "issues", access: "read" },
  { permission: "pull_requests", access: "read" },
];
/** 4.4b: classic tokens; Contents read for GET, write otherwise. */
const importRead = statement(IMPORTS, needs("contents", "read"), CLASSIC_ONLY);
const importWrite = statement(IMPORTS, needs("contents", "write"), CLASSIC_ONLY);
const SOURCE_IMPORTS = { at: SOURCE_IMPORTS_RETIRED_AT, what: "The source import endpoints", warningCode: SOURCE_IMPORTS_WARNING_CODE };

/** The author or committer of a commit, with the date of its line. */
const gitIdentity = z.looseObject({ name: z.string(), email: z.string(), date: timestamp });

/** Section 8: list pages default to 30 entries and hold at most 100. */
const LIST_PAGES = { defaultPerPage: 30, maxPerPage: 100 };
const NOTIFICATION_FILTERS = ["all", "participating", "since", "before"] as const;

/** Every endpoint shiplog speaks, by OpenAPI operation id. */
export const ENDPOINTS = {
  // ── 4.1 Artifact metadata: the POSTs are upserts, so a repeat after a lost answer changes nothing ──
  "orgs/create-artifact-deployment-record": {
    method: "POST",
    route: "/orgs/{org}/artifacts/metadata/deployment-record",
    params: createDeploymentRecordParams,
    response: deploymentRecordList,
    emptyAnswer: { total_count: 0 },
    retry: "safe",
    statement: artifactWrite,
  },
  "orgs/set-cluster-deployment-records": {
    method: "POST",
    route: "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}",
    params: setClusterDeploymentRecordsParams,
    response: clusterDeploymentResult,
    emptyAnswer: { total_count: 0 },
    retry: "safe",
    statement: artifactWrite,
  },
  "orgs/create-artifact-storage-record": {
    method: "POST",
    route: "/orgs/{org}/artifacts/metadata/storage-record",
    params: createStorageRecordParams,
    response: storageRecordList,
    emptyAnswer: { total_count: 0 },
    retry: "safe",
    statement: artifactWrite,
  },
  "orgs/list-artifact-deployment-records": {
    method: "GET",
    route: "/orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records",
    params: listByDigestParams,
    response: deploymentRecordList,
    retry: "safe",
    statement: artifactRead,
  },
  "orgs/list-artifact-storage-records": {
    method: "GET",
    route: "/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records",
    params: listByDigestParams,
    response: storageRecordList,
    retry: "safe",
    // "A fine-grained token also needs content read permission on this listing."
    statement: statement(ARTIFACTS, [...needs("artifact_metadata", "read"), CONTENTS_READ_FINE_GRAINED], {
      ...NO_CLASSIC,
      note: "Lists only records of repositories the caller can read.",
    }),
  },

  // ── 4.2 Git tags, and the references of 5.3 (Contents) that make and move them ──
  "git/create-tag": {
    method: "POST",
    route: `${R}/git/tags`,
    params: createTagParams,
    response: gitTag,
    // Objects are content-addressed: a repeat makes the same object (or an unreferenced twin), never a second tag.
    retry: "safe",
    statement: statement(TAGS, needs("contents", "write"), NO_CLASSIC),
  },
  "git/get-tag": {
    method: "GET",
    route: `${R}/git/tags/{tag_sha}`,
    params: getTagParams,
    response: gitTag,
    retry: "safe",
    statement: statement(TAGS, needs("contents", "read"), NO_CLASSIC),
  },
  "git/create-ref": {
    method: "POST",
    route: `${R}/git/refs`,
    params: createRefParams,
    response: gitRef,
    // A lost answer followed by a repeat would report "already exists" for our own reference.
    retry: "unsafe",
  },
  "git/get-ref": { method: "GET", route: `${R}/git/ref/{ref}`, params: getRefParams, response: gitRef, retry: "safe" },
  "git/list-matching-refs": {
    method: "GET",
    route: `${R}/git/matching-refs/{ref}`,
    params: listMatchingRefsParams,
    response: gitRefList,
    retry: "safe",
  },
  "git/update-ref": {
    method: "PATCH",
    route: `${R}/git/refs/{ref}`,
    params: updateRefParams,
    response: gitRef,
    // Setting a reference to a given sha is idempotent: a repeat after a lost answer changes nothing.
    retry: "safe",
  },
  "git/delete-ref": {
    method: "DELETE",
    route: `${R}/git/refs/{ref}`,
    params: deleteRefParams,
    // After a lost answer a repeat would report "does not exist" for our own deletion.
    retry: "unsafe",
  },
  "git/get-commit": {
    method: "GET",
    route: `${R}/git/commits/{commit_sha}`,
    params: z.strictObject({ owner: ownerName, repo: repositoryName, commit_sha: gitSha }),
    response: z.looseObject({
      sha: z.string(),
      node_id: z.string(),
      url: z.string(),
      html_url: z.string(),
      author: gitIdentity,
      committer: gitIdentity,
      message: z.string(),
      tree: z.looseObject({ sha: z.string(), url: z.string() }),
      parents: z.array(z.looseObject({ sha: z.string(), url: z.string(), html_url: z.string().optional() })),
      verification: gitVerification.optional(),
    }),
    retry: "safe",
  },

  // ── 4.3 Notifications ──
  "activity/list-notifications-for-authenticated-user": {
    method: "GET",
    route: "/notifications",
    params: listNotificationsParams,
    query: NOTIFICATION_FILTERS,
    response: notificationThreadList,
    retry: "safe",
    // Spec 8: the inbox pages hold 50 threads, and no more.
    pages: { defaultPerPage: 50, maxPerPage: 50 },
    statement: notificationsOnly,
  },
  "activity/mark-notifications-as-read": {
    method: "PUT",
    route: "/notifications",
    params: markNotificationsReadBody,
    // 202 carries a message (marking goes on in the background); 205 carries nothing.
    response: markReadAccepted,
    emptyAnswer: {},
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/get-thread": {
    method: "GET",
    route: "/notifications/threads/{thread_id}",
    params: threadParams,
    response: notificationThread,
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/mark-thread-as-read": {
    method: "PATCH",
    route: "/notifications/threads/{thread_id}",
    params: threadParams,
    body: false,
    // Marking read twice is harmless.
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/mark-thread-as-done": {
    method: "DELETE",
    route: "/notifications/threads/{thread_id}",
    params: threadParams,
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/get-thread-subscription-for-authenticated-user": {
    method: "GET",
    route: "/notifications/threads/{thread_id}/subscription",
    params: threadParams,
    response: threadSubscription,
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/set-thread-subscription": {
    method: "PUT",
    route: "/notifications/threads/{thread_id}/subscription",
    params: setThreadSubscriptionParams,
    response: threadSubscription,
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/delete-thread-subscription": {
    method: "DELETE",
    route: "/notifications/threads/{thread_id}/subscription",
    params: threadParams,
    retry: "safe",
    statement: notificationsOnly,
  },
  "activity/list-repo-notifications-for-authenticated-user": {
    method: "GET",
    route: `${R}/notifications`,
    params: listRepoNotificationsParams,
    query: NOTIFICATION_FILTERS,
    response: notificationThreadList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: notificationsOnly,
  },
  "activity/mark-repo-notifications-as-read": {
    method: "PUT",
    route: `${R}/notifications`,
    params: markRepoNotificationsReadParams,
    response: markReadAccepted,
    emptyAnswer: {},
    retry: "safe",
    statement: notificationsOnly,
  },

  // ── 4.4 Activity events: Metadata read for a repository's feed, the organization's Events read for a user's
  //    feed of an organization (the authenticated user's own: UAT only in the official data), no permission else ──
  "activity/list-public-events": {
    method: "GET",
    route: "/events",
    params: FEED_PARAMS.public,
    response: activityEventList,
    retry: "safe",
    // Spec 8: this one feed defaults to 15 events a page.
    pages: { defaultPerPage: 15, maxPerPage: 100 },
    statement: statement(ACTIVITY, [], { note: NO_PERMISSION_NOTE }),
  },
  "activity/list-public-events-for-repo-network": {
    method: "GET",
    route: "/networks/{owner}/{repo}/events",
    params: FEED_PARAMS.network,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: NO_PERMISSION_NOTE }),
  },
  "activity/list-public-org-events": {
    method: "GET",
    route: "/orgs/{org}/events",
    params: FEED_PARAMS.org,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: NO_PERMISSION_NOTE }),
  },
  "activity/list-repo-events": {
    method: "GET",
    route: `${R}/events`,
    params: FEED_PARAMS.repo,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, needs("metadata", "read")),
  },
  "activity/list-events-for-authenticated-user": {
    method: "GET",
    route: "/users/{username}/events",
    params: FEED_PARAMS.user,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: PRIVATE_WHEN_SELF }),
  },
  "activity/list-org-events-for-authenticated-user": {
    method: "GET",
    route: "/users/{username}/events/orgs/{org}",
    params: FEED_PARAMS.user_org,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, needs("organization_events", "read"), {
      tokenTypes: UAT_ONLY,
      note: "The authenticated user's feed of an organization.",
    }),
  },
  "activity/list-public-events-for-user": {
    method: "GET",
    route: "/users/{username}/events/public",
    params: FEED_PARAMS.user_public,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: NO_PERMISSION_NOTE }),
  },
  "activity/list-received-events-for-user": {
    method: "GET",
    route: "/users/{username}/received_events",
    params: FEED_PARAMS.received,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: PRIVATE_WHEN_SELF }),
  },
  "activity/list-received-public-events-for-user": {
    method: "GET",
    route: "/users/{username}/received_events/public",
    params: FEED_PARAMS.received_public,
    response: activityEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ACTIVITY, [], { note: NO_PERMISSION_NOTE }),
  },

  // ── 4.5 Issue events ──
  "issues/list-events-for-repo": {
    method: "GET",
    route: `${R}/issues/events`,
    params: issueEventsRepoParams,
    response: issueEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ISSUE_EVENTS, needs("issues", "read")),
  },
  "issues/get-event": {
    method: "GET",
    route: `${R}/issues/events/{event_id}`,
    params: getIssueEventParams,
    response: issueEvent,
    retry: "safe",
    statement: statement(ISSUE_EVENTS, ISSUES_OR_PULLS, { combine: "anyOf" }),
  },
  "issues/list-events": {
    method: "GET",
    route: `${R}/issues/{issue_number}/events`,
    params: listIssueEventsForIssueParams,
    response: issueEventList,
    retry: "safe",
    pages: LIST_PAGES,
    statement: statement(ISSUE_EVENTS, ISSUES_OR_PULLS, { combine: "anyOf" }),
  },

  // ── 4.4b Source imports: retired at 2024-04-12 00:00 UTC ──
  "migrations/get-import-status": {
    method: "GET",
    route: `${R}/import`,
    params: importRepoParams,
    response: sourceImport,
    retry: "safe",
    statement: importRead,
    retired: SOURCE_IMPORTS,
  },
  "migrations/start-import": {
    method: "PUT",
    route: `${R}/import`,
    params: startImportParams,
    response: sourceImport,
    // A repeated start meets the import the first one created (an error, not the same answer).
    retry: "unsafe",
    statement: importWrite,
    retired: SOURCE_IMPORTS,
  },
  "migrations/update-import": {
    method: "PATCH",
    route: `${R}/import`,
    params: updateImportParams,
    response: sourceImport,
    // An update without fields restarts the import: not repeated.
    retry: "unsafe",
    statement: importWrite,
    retired: SOURCE_IMPORTS,
  },
  "migrations/cancel-import": {
    method: "DELETE",
    route: `${R}/import`,
    params: importRepoParams,
    retry: "safe",
    statement: importWrite,
    retired: SOURCE_IMPORTS,
  },
  "migrations/get-commit-authors": {
    method: "GET",
    route: `${R}/import/authors`,
    params: getCommitAuthorsParams,
    query: ["since"],
    response: importAuthorList,
    retry: "safe",
    statement: importRead,
    retired: SOURCE_IMPORTS,
  },
  "migrations/map-commit-author": {
    method: "PATCH",
    route: `${R}/import/authors/{author_id}`,
    params: mapCommitAuthorParams,
    response: importAuthor,
    retry: "safe",
    statement: importWrite,
    retired: SOURCE_IMPORTS,
  },
  "migrations/get-large-files": {
    method: "GET",
    route: `${R}/import/large_files`,
    params: importRepoParams,
    response: importLargeFileList,
    retry: "safe",
    statement: importRead,
    retired: SOURCE_IMPORTS,
  },
  "migrations/set-lfs-preference": {
    method: "PATCH",
    route: `${R}/import/lfs`,
    params: setLfsPreferenceParams,
    response: sourceImport,
    retry: "safe",
    statement: importWrite,
    retired: SOURCE_IMPORTS,
  },

  // ── Apps: called with the App's JWT (appInstallationAuth), outside the permission matrix ──
  "apps/get-authenticated": { method: "GET", route: "/app", params: getAppParams, response: serviceApp, retry: "safe", auth: "app_jwt" },
  "apps/get-org-installation": {
    method: "GET",
    route: "/orgs/{org}/installation",
    params: orgInstallationParams,
    response: appInstallation,
    retry: "safe",
    auth: "app_jwt",
  },
  "apps/get-repo-installation": {
    method: "GET",
    route: `${R}/installation`,
    params: repoInstallationParams,
    response: appInstallation,
    retry: "safe",
    auth: "app_jwt",
  },
  "apps/create-installation-access-token": {
    method: "POST",
    route: "/app/installations/{installation_id}/access_tokens",
    params: createInstallationTokenParams,
    response: installationToken,
    // Minting twice does no harm: the second token is as good as the first.
    retry: "safe",
    auth: "app_jwt",
  },
} as const satisfies Record<string, Endpoint>;

/** The operation id of an endpoint in the registry (`git/create-tag`). */
export type OperationId = keyof typeof ENDPOINTS;

/** The registry's entry for an operation. */
export type EndpointOf<K extends OperationId> = (typeof ENDPOINTS)[K];

/** The parameters a call of an operation takes. */
export type ParamsOf<K extends OperationId> = z.input<EndpointOf<K>["params"]>;

/** The parameters of a call once checked (defaults applied). */
export type CheckedOf<K extends OperationId> = z.output<EndpointOf<K>["params"]>;

/** What a call of an operation gives: its answer, parsed, or nothing for a 204. */
export type ResultOf<K extends OperationId> = EndpointOf<K> extends { response: infer S extends z.ZodType } ? z.output<S> : undefined;

/** One item of a list operation's answer. */
export type ItemOf<K extends OperationId> = ResultOf<K> extends readonly (infer T)[] ? T : never;

/** The operations that list (their answers page). */
export type ListOperationId = { [K in OperationId]: EndpointOf<K> extends { pages: object } ? K : never }[OperationId];

/** Every entry with its operation id, in the registry's order (the spec's). */
export function endpointList(): (Endpoint & { operationId: OperationId })[] {
  return (Object.entries(ENDPOINTS) as [OperationId, Endpoint][]).map(([operationId, endpoint]) => ({ operationId, ...endpoint }));
}
