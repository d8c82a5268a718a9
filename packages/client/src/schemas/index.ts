// @shiplog/client/schemas: the zod schemas of the requests and answers, and the helpers that turn a schema's
// verdict into field issues. zod is the client's dependency; importing these ties your code to its major version.
// The types of the same requests and answers are declared at @shiplog/client (src/model/, printed from these).
export { activityEvent, activityEventList, eventFeed } from "./activity.js";
export {
  appInstallation,
  createInstallationTokenParams,
  getAppParams,
  installationToken,
  orgInstallationParams,
  repoInstallationParams,
} from "./apps.js";
export {
  clusterDeploymentResult,
  createDeploymentRecordParams,
  createStorageRecordParams,
  deploymentRecord,
  deploymentRecordList,
  listByDigestParams,
  setClusterDeploymentRecordsParams,
  storageRecord,
  storageRecordList,
} from "./artifact-metadata.js";
export { serviceErrorBody } from "./common.js";
export {
  createAnnotatedTagParams,
  createRefParams,
  createTagParams,
  deleteRefParams,
  getRefParams,
  getTagParams,
  gitRef,
  gitRefList,
  gitTag,
  listMatchingRefsParams,
  tagger,
  updateRefParams,
} from "./git.js";
export { getIssueEventParams, issueEvent, issueEventList, issueEventsRepoParams, listIssueEventsForIssueParams } from "./issue-events.js";
export {
  listNotificationsParams,
  listRepoNotificationsParams,
  markAllAsReadAndWaitParams,
  markRepoNotificationsReadParams,
  notificationThread,
  notificationThreadList,
  setThreadSubscriptionParams,
  threadParams,
  threadSubscription,
} from "./notifications.js";
export { pollCheckpoint } from "./poll-checkpoint.js";
export {
  LARGE_FILE_THRESHOLD_BYTES,
  chooseProjectParams,
  getCommitAuthorsParams,
  importAuthor,
  importAuthorList,
  importLargeFile,
  importLargeFileList,
  importRepoParams,
  mapCommitAuthorParams,
  setLfsPreferenceParams,
  sourceImport,
  startImportParams,
  updateImportParams,
} from "./source-imports.js";
export { simpleUser } from "./users.js";
export { parseRequest, parseResponse, toFieldIssues } from "./validation.js";
