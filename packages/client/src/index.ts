// The public surface of @shiplog/client: the client and what its calls take and give, errors, authentication,
// pollers and their checkpoint store, release tags, import following, redaction and the loopback rule. Each name
// here is one a user calls, or a type a user writes (an option, a parameter, a result, a plugin). The types are
// declared interfaces (src/model/), so a program importing the client type-checks no schema. Zod schemas are at
// `@shiplog/client/schemas`, the permission matrix at `@shiplog/client/permissions`, the endpoint registry at
// `@shiplog/client/endpoints`.

// The client, its options and its transport.
export { ShiplogClient, type ClientOptions } from "./client.js";
export { ENVIRONMENT_VARIABLES, clientOptionsFromEnv, type Environment as ShiplogEnvironment } from "./environment.js";
export type { Transport, HttpMethod, RouteRequest, ServiceResponse } from "./transport/transport.js";
export type { TransportHooks } from "./transport/options.js";
export { API_VERSIONS, type ApiVersion } from "./transport/api-versions.js";
export type { RetryOptions } from "./transport/retry-policy.js";
export type { Attempt, SendAttempt, TransportPlugin, RefusedCall, RefusalExplanation } from "./transport/pipeline.js";
export type { EngineResponse } from "./transport/http-engine.js";
export type { TransportClock } from "./timing/clock.js";
export type { CallOptions, PageOptions } from "./endpoints/call-options.js";
export type { Operations } from "./model/operations.js";
export type { ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./model/operation-types.js";

// The APIs, by area (reached as client.artifacts, client.git, ...).
export type { ArtifactMetadataApi } from "./api/artifact-metadata.js";
export type { GitApi, AnnotatedTagResult } from "./api/git.js";
export type { NotificationsApi, MarkReadAndWaitResult, MarkReadResult, WaitForReadOptions } from "./api/notifications.js";
export type { ActivityApi } from "./api/activity.js";
export type { IssueEventsApi } from "./api/issue-events.js";
export type { SourceImportsApi } from "./api/source-imports.js";
export { DERIVED_TAGS, createReleaseTags, derivedTagNames, releaseTags } from "./api/release-tags.js";
export type { CreateReleaseTagsParams, DerivedTags, ReleaseTag, ReleaseTagOutcome } from "./api/release-tags.js";
export { describeImport, followImport } from "./api/import-follower.js";
export type { FollowImportOptions, ImportNextStep, ImportStatusReader, ImportUpdate } from "./api/import-follower.js";

// Errors: every one has a stable `code`.
export {
  AbortedError,
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  ForeignUrlError,
  GoneError,
  MarkReadTimeoutError,
  MissingGrantError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  RetiredEndpointError,
  ServiceError,
  ServiceValidationError,
  ShiplogError,
  TagExistsError,
  TimeoutError,
  TokenTypeRefusedError,
  UnavailableError,
  UnexpectedStatusError,
  type FieldIssue,
  type ServiceErrorCode,
  type ServiceErrorDetails,
  type ServiceFieldError,
} from "./errors/errors.js";
export { isShiplogError, type ShiplogClientError, type ShiplogErrorByCode, type ShiplogErrorCode } from "./error-codes.js";
export { PartialClusterWriteError } from "./api/partial-write-error.js";
export { CheckpointFileError } from "./pollers/file-checkpoint-store.js";
export type { AcceptedPermissionSet } from "./errors/accepted-permissions.js";

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
export { appInstallationAuth, type AppInstallationAuthOptions, type InstallationTokenInfo } from "./app-installation-auth.js";
export type { DeclaredToken } from "./permissions/declared-token.js";
export type { TokenKind } from "./permissions/token-rules.js";

// Pollers (client.activity.poll, ...) and where they keep their place.
export type { FeedPoller, FeedPollOptions } from "./pollers/feed-poller.js";
export type { NotificationPoller, NotificationPollOptions } from "./pollers/notification-poller.js";
export type { IssueEventPoller, IssueEventPollOptions } from "./pollers/issue-event-poller.js";
export { FileCheckpointStore } from "./pollers/file-checkpoint-store.js";
export type { CheckpointStore, PollCheckpoint } from "./pollers/checkpoint.js";
export type { PollerOptions, PollerStats, PollInfo } from "./pollers/poller-options.js";

// Secrets and service URLs.
export { redactSecrets } from "./transport/redaction.js";
export { isLoopbackHost, serviceUrlProblem, type ServiceUrlProblem } from "./transport/loopback.js";

// The values parameters and results take: the known values of each enumeration, and the service's limits.
export {
  DEPLOYMENT_STATUSES,
  GIT_OBJECT_TYPES,
  IF_TAG_EXISTS,
  IMPORT_STATUSES,
  ISSUE_EVENT_KINDS,
  ISSUE_STATE_REASONS,
  MAX_CLUSTER_ENTRIES,
  NOTIFICATION_REASONS,
  NOTIFICATION_SUBJECT_TYPES,
  RUNTIME_RISKS,
  SHA256_DIGEST_PATTERN,
  SOURCE_IMPORTS_RETIRED_AT,
  SOURCE_IMPORTS_WARNING_CODE,
  STORAGE_STATUSES,
  TAGGABLE_OBJECT_TYPES,
  VERIFICATION_REASONS,
} from "./model/values.js";
export { isKnownValue, type OpenEnum, type UnknownEventType, type UnknownValue } from "./model/open-enum.js";

// The types of parameters and results (declared from the schemas: src/model/).
export type {
  ClusterDeploymentEntry,
  ClusterDeploymentResult,
  CreateDeploymentRecordParams,
  CreateStorageRecordParams,
  DeploymentRecord,
  DeploymentRecordList,
  ListByDigestParams,
  RuntimeRisk,
  SetClusterDeploymentRecordsParams,
  StorageRecord,
  StorageRecordList,
} from "./model/artifact-metadata.js";
export type {
  CreateAnnotatedTagParams,
  CreateRefParams,
  CreateTagParams,
  DeleteRefParams,
  GetRefParams,
  GetTagParams,
  GitRef,
  GitTag,
  IfTagExists,
  ListMatchingRefsParams,
  TaggableObjectType,
  Tagger,
  UpdateRefParams,
} from "./model/git.js";
export type {
  ListNotificationsParams,
  ListRepoNotificationsParams,
  MarkAllAsReadAndWaitParams,
  MarkRepoNotificationsReadParams,
  NotificationThread,
  SetThreadSubscriptionParams,
  ThreadParams,
  ThreadSubscription,
} from "./model/notifications.js";
export type {
  ActivityEvent,
  CreateEvent,
  OtherActivityEvent,
  PushEvent,
  WatchEvent,
} from "./model/activity.js";
export type { EventFeed } from "./model/event-feed.js";
export type {
  GetIssueEventParams,
  Issue,
  IssueEvent,
  IssueEventsRepoParams,
  ListIssueEventsForIssueParams,
} from "./model/issue-events.js";
export type {
  ChooseProjectParams,
  GetCommitAuthorsParams,
  ImportAuthor,
  ImportLargeFile,
  ImportProblemStatus,
  ImportRepoParams,
  ImportStatus,
  ImportVcs,
  LfsPreference,
  MapCommitAuthorBody,
  MapCommitAuthorParams,
  ProjectChoice,
  SetLfsPreferenceParams,
  SourceImport,
  StartImportBody,
  StartImportParams,
  UpdateImportBody,
  UpdateImportParams,
} from "./model/source-imports.js";
