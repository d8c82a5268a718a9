// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { ActivityEvent } from "./activity.js";
import type {
  AppInstallation,
  CreateInstallationTokenParams,
  InstallationToken,
  OrgInstallationParams,
  RepoInstallationParams,
} from "./apps.js";
import type {
  ClusterDeploymentResult,
  CreateDeploymentRecordParams,
  CreateStorageRecordParams,
  DeploymentRecordList,
  ListByDigestParams,
  SetClusterDeploymentRecordsParams,
  StorageRecordList,
} from "./artifact-metadata.js";
import type {
  CreateRefParams,
  CreateTagParams,
  GetRefParams,
  GetTagParams,
  GitRef,
  GitTag,
  GitVerification,
  ListMatchingRefsParams,
  UpdateRefParams,
} from "./git.js";
import type { GetIssueEventParams, IssueEvent, IssueEventsRepoParams, ListIssueEventsForIssueParams, ServiceApp } from "./issue-events.js";
import type {
  ListNotificationsParams,
  ListRepoNotificationsParams,
  MarkNotificationsReadBody,
  MarkRepoNotificationsReadParams,
  NotificationThread,
  SetThreadSubscriptionParams,
  ThreadParams,
  ThreadSubscription,
} from "./notifications.js";
import type {
  GetCommitAuthorsParams,
  ImportAuthor,
  ImportLargeFile,
  ImportRepoParams,
  MapCommitAuthorParams,
  SetLfsPreferenceParams,
  SourceImport,
  StartImportParams,
  UpdateImportParams,
} from "./source-imports.js";

/** Every operation of the registry by its id: its parameters, its answer, and the item of a list. */
export type Operations = {
  "orgs/create-artifact-deployment-record": {
    params: CreateDeploymentRecordParams;
    result: DeploymentRecordList;
  };
  "orgs/set-cluster-deployment-records": {
    params: SetClusterDeploymentRecordsParams;
    result: ClusterDeploymentResult;
  };
  "orgs/create-artifact-storage-record": {
    params: CreateStorageRecordParams;
    result: StorageRecordList;
  };
  "orgs/list-artifact-deployment-records": {
    params: ListByDigestParams;
    result: DeploymentRecordList;
  };
  "orgs/list-artifact-storage-records": {
    params: ListByDigestParams;
    result: StorageRecordList;
  };
  "git/create-tag": {
    params: CreateTagParams;
    result: GitTag;
  };
  "git/get-tag": {
    params: GetTagParams;
    result: GitTag;
  };
  "git/create-ref": {
    params: CreateRefParams;
    result: GitRef;
  };
  "git/get-ref": {
    params: GetRefParams;
    result: GitRef;
  };
  "git/list-matching-refs": {
    params: ListMatchingRefsParams;
    result: GitRef[];
  };
  "git/update-ref": {
    params: UpdateRefParams;
    result: GitRef;
  };
  "git/delete-ref": {
    params: GetRefParams;
    result: undefined;
  };
  "git/get-commit": {
    params: {
      owner: string;
      repo: string;
      commit_sha: string;
    };
    result: {
      sha: string;
      node_id: string;
      url: string;
      html_url: string;
      author: {
        name: string;
        email: string;
        date: string;
      };
      committer: {
        name: string;
        email: string;
        date: string;
      };
      message: string;
      tree: {
        sha: string;
        url: string;
      };
      parents: {
        sha: string;
        url: string;
        html_url?: string;
      }[];
      verification?: GitVerification;
    };
  };
  "activity/list-notifications-for-authenticated-user": {
    params: ListNotificationsParams;
    result: NotificationThread[];
    item: NotificationThread;
  };
  "activity/mark-notifications-as-read": {
    params: MarkNotificationsReadBody;
    result: {
      message?: string;
    };
  };
  "activity/get-thread": {
    params: ThreadParams;
    result: NotificationThread;
  };
  "activity/mark-thread-as-read": {
    params: ThreadParams;
    result: undefined;
  };
  "activity/mark-thread-as-done": {
    params: ThreadParams;
    result: undefined;
  };
  "activity/get-thread-subscription-for-authenticated-user": {
    params: ThreadParams;
    result: ThreadSubscription;
  };
  "activity/set-thread-subscription": {
    params: SetThreadSubscriptionParams;
    result: ThreadSubscription;
  };
  "activity/delete-thread-subscription": {
    params: ThreadParams;
    result: undefined;
  };
  "activity/list-repo-notifications-for-authenticated-user": {
    params: ListRepoNotificationsParams;
    result: NotificationThread[];
    item: NotificationThread;
  };
  "activity/mark-repo-notifications-as-read": {
    params: MarkRepoNotificationsReadParams;
    result: {
      message?: string;
    };
  };
  "activity/list-public-events": {
    params: Record<string, never>;
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-public-events-for-repo-network": {
    params: {
      owner: string;
      repo: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-public-org-events": {
    params: {
      org: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-repo-events": {
    params: {
      owner: string;
      repo: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-events-for-authenticated-user": {
    params: {
      username: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-org-events-for-authenticated-user": {
    params: {
      username: string;
      org: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-public-events-for-user": {
    params: {
      username: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-received-events-for-user": {
    params: {
      username: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "activity/list-received-public-events-for-user": {
    params: {
      username: string;
    };
    result: ActivityEvent[];
    item: ActivityEvent;
  };
  "issues/list-events-for-repo": {
    params: IssueEventsRepoParams;
    result: IssueEvent[];
    item: IssueEvent;
  };
  "issues/get-event": {
    params: GetIssueEventParams;
    result: IssueEvent;
  };
  "issues/list-events": {
    params: ListIssueEventsForIssueParams;
    result: IssueEvent[];
    item: IssueEvent;
  };
  "migrations/get-import-status": {
    params: ImportRepoParams;
    result: SourceImport;
  };
  "migrations/start-import": {
    params: StartImportParams;
    result: SourceImport;
  };
  "migrations/update-import": {
    params: UpdateImportParams;
    result: SourceImport;
  };
  "migrations/cancel-import": {
    params: ImportRepoParams;
    result: undefined;
  };
  "migrations/get-commit-authors": {
    params: GetCommitAuthorsParams;
    result: ImportAuthor[];
  };
  "migrations/map-commit-author": {
    params: MapCommitAuthorParams;
    result: ImportAuthor;
  };
  "migrations/get-large-files": {
    params: ImportRepoParams;
    result: ImportLargeFile[];
  };
  "migrations/set-lfs-preference": {
    params: SetLfsPreferenceParams;
    result: SourceImport;
  };
  "apps/get-authenticated": {
    params: Record<string, never>;
    result: ServiceApp;
  };
  "apps/get-org-installation": {
    params: OrgInstallationParams;
    result: AppInstallation;
  };
  "apps/get-repo-installation": {
    params: RepoInstallationParams;
    result: AppInstallation;
  };
  "apps/create-installation-access-token": {
    params: CreateInstallationTokenParams;
    result: InstallationToken;
  };
};
