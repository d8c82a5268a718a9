// The public surface of @shiplog/client: the client, its APIs, errors, the types of parameters and results,
// pollers, checkpoint stores, authentication, redaction and the loopback rule. Zod schemas are at
// `@shiplog/client/schemas`, the permission matrix at `@shiplog/client/permissions`, the endpoint registry at
// `@shiplog/client/endpoints`.

// The client and its transport.
export { ShiplogClient, type ClientOptions } from "./client.js";
export { ENVIRONMENT_VARIABLES, clientOptionsFromEnv, type Environment as ShiplogEnvironment } from "./environment.js";
export { Transport, type HttpMethod, type RouteRequest, type ServiceResponse } from "./transport/transport.js";
export type { TransportHooks, TransportOptions } from "./transport/options.js";
export { API_VERSIONS, DEFAULT_API_VERSION, type ApiVersion } from "./transport/api-versions.js";
export type { RetryOptions } from "./transport/retry-policy.js";
export type { Attempt, SendAttempt, TransportPlugin } from "./transport/pipeline.js";
export type { EngineResponse } from "./transport/http-engine.js";
export type { ThrottleOptions, TransportClock } from "./transport/throttle.js";
export type { CallAnswer, CallOptions } from "./endpoints/endpoint-call.js";
export type { ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./endpoints/registry.js";
export type { PageOptions } from "./endpoints/pagination.js";

// The APIs, by area.
export { ArtifactMetadataApi } from "./api/artifact-metadata.js";
export { GitApi, type AnnotatedTagResult } from "./api/git.js";
export { DERIVED_TAGS, createReleaseTags, derivedTagNames, releaseTags } from "./api/release-tags.js";
export type { CreateReleaseTagsParams, DerivedTags, ReleaseTag, ReleaseTagOutcome } from "./api/release-tags.js";
export { NotificationsApi, type MarkReadAndWaitResult, type MarkReadResult, type WaitForReadOptions } from "./api/notifications.js";
export { ActivityApi } from "./api/activity.js";
export { IssueEventsApi } from "./api/issue-events.js";
export { SourceImportsApi, type ImportCallOptions } from "./api/source-imports.js";
export { describeImport, followImport, isImportProblem } from "./api/import-follower.js";
export type { FollowImportOptions, ImportNextStep, ImportStatusReader, ImportUpdate } from "./api/import-follower.js";
export { SOURCE_IMPORTS_WARNING_CODE } from "./endpoints/registry.js";

// Errors: every one has a stable `code`.
export * from "./errors/errors.js";
export { isShiplogError, type ShiplogClientError, type ShiplogErrorByCode, type ShiplogErrorCode } from "./error-codes.js";
export { PartialClusterWriteError, type FailedChunkOutcome, type PartialClusterWriteDetails } from "./api/partial-write-error.js";
export { CheckpointFileError } from "./pollers/file-checkpoint-store.js";
export type { AcceptedPermission, AcceptedPermissionSet } from "./errors/accepted-permissions.js";

// Authentication, and what a client may be told of its token.
export {
  staticToken,
  tokenProvider,
  type AuthContext,
  type AuthKind,
  type AuthStrategy,
  type ProvidedToken,
  type TokenProviderOptions,
} from "./transport/auth.js";
export {
  appInstallationAuth,
  type AppInstallationAuth,
  type AppInstallationAuthOptions,
  type InstallationTokenInfo,
} from "./app-installation-auth.js";
export type { DeclaredToken } from "./access/permission-check.js";
export type { TokenKind } from "./permissions/token-rules.js";

// Pollers and where they keep their place.
export { FeedPoller, type FeedPollOptions } from "./pollers/feed-poller.js";
export { NotificationPoller, type NotificationPollOptions } from "./pollers/notification-poller.js";
export { IssueEventPoller, type IssueEventPollOptions } from "./pollers/issue-event-poller.js";
export { FileCheckpointStore } from "./pollers/file-checkpoint-store.js";
export type { CheckpointStore, PollCheckpoint } from "./pollers/checkpoint.js";
export type { PollerOptions, PollerStats, PollInfo } from "./pollers/poller-options.js";
export type { PollScheduleOptions } from "./pollers/poll-schedule.js";

// Secrets and service URLs.
export { redactSecrets } from "./transport/redaction.js";
export { isLoopbackHost, serviceUrlProblem, type ServiceUrlProblem } from "./transport/loopback.js";

// The values parameters and results take, and the types of both (the schemas themselves: ./schemas).
export {
  MAX_CLUSTER_ENTRIES,
  RUNTIME_RISKS,
  DEPLOYMENT_STATUSES,
  STORAGE_STATUSES,
  SHA256_DIGEST_PATTERN,
} from "./schemas/index.js";
export { GIT_OBJECT_TYPES, IF_TAG_EXISTS, TAGGABLE_OBJECT_TYPES, VERIFICATION_REASONS } from "./schemas/index.js";
export { NOTIFICATION_REASONS, NOTIFICATION_SUBJECT_TYPES, ISSUE_EVENT_KINDS, ISSUE_STATE_REASONS } from "./schemas/index.js";
export { IMPORT_STATUSES, IMPORT_PROBLEM_STATUSES, SOURCE_IMPORTS_RETIRED_AT } from "./schemas/index.js";
export { isKnownValue, isCreateEvent, isPushEvent, isWatchEvent } from "./schemas/index.js";
export type { ServiceErrorBody } from "./schemas/common.js";
export type { OpenEnum, UnknownValue } from "./schemas/open-enum.js";
export type { SimpleUser } from "./schemas/users.js";
export type {
  ClusterDeploymentEntry,
  ClusterDeploymentError,
  ClusterDeploymentRecordsBody,
  ClusterDeploymentResult,
  CreateDeploymentRecordParams,
  CreateStorageRecordParams,
  DeploymentRecord,
  DeploymentRecordBody,
  DeploymentRecordList,
  DeploymentStatus,
  ListByDigestParams,
  RuntimeRisk,
  SetClusterDeploymentRecordsParams,
  StorageRecord,
  StorageRecordBody,
  StorageRecordList,
  StorageStatus,
} from "./schemas/artifact-metadata.js";
export type {
  CreateAnnotatedTagParams,
  CreateRefBody,
  CreateRefParams,
  CreateTagBody,
  CreateTagParams,
  DeleteRefParams,
  GetRefParams,
  GetTagParams,
  GitObjectPointer,
  GitObjectType,
  GitRef,
  GitTag,
  GitVerification,
  IfTagExists,
  ListMatchingRefsParams,
  TaggableObjectType,
  Tagger,
  UnknownSignatureReason,
  UpdateRefBody,
  UpdateRefParams,
  VerificationReason,
} from "./schemas/git.js";
export type {
  KnownNotificationReason,
  ListNotificationsParams,
  ListRepoNotificationsParams,
  MarkAllAsReadAndWaitParams,
  MarkNotificationsReadBody,
  MarkRepoNotificationsReadParams,
  NotificationReason,
  NotificationRepository,
  NotificationSubject,
  NotificationSubjectType,
  NotificationThread,
  SetThreadSubscriptionParams,
  ThreadParams,
  ThreadSubscription,
} from "./schemas/notifications.js";
export type {
  ActivityEvent,
  CreateEvent,
  CreateEventPayload,
  EventActor,
  EventFeed,
  EventFeedKind,
  EventOrg,
  EventRepo,
  OtherActivityEvent,
  PushCommit,
  PushEvent,
  PushEventPayload,
  WatchEvent,
  WatchEventPayload,
} from "./schemas/activity.js";
export type {
  GetIssueEventParams,
  Issue,
  IssueEvent,
  IssueEventKind,
  IssueEventsRepoParams,
  IssueLabel,
  IssueMilestone,
  IssueStateReason,
  ListIssueEventsForIssueParams,
  ServiceApp,
} from "./schemas/issue-events.js";
export type {
  ChooseProjectParams,
  GetCommitAuthorsParams,
  ImportAuthor,
  ImportLargeFile,
  ImportProblemStatus,
  ImportRepoParams,
  ImportStatus,
  ImportVcs,
  ImportWorkingStatus,
  LfsPreference,
  MapCommitAuthorBody,
  MapCommitAuthorParams,
  ProjectChoice,
  SetLfsPreferenceBody,
  SetLfsPreferenceParams,
  SourceImport,
  StartImportBody,
  StartImportParams,
  UpdateImportBody,
  UpdateImportParams,
} from "./schemas/source-imports.js";
export type {
  AppInstallation,
  CreateInstallationTokenParams,
  InstallationToken,
  OrgInstallationParams,
  RepoInstallationParams,
} from "./schemas/apps.js";
