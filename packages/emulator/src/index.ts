export { startEmulator, DEFAULT_REQUEST_API_VERSION, type Emulator, type EmulatorOptions } from "./server.js";
export { defaultFixture, fixtureSchema, type Fixture, type FixtureInput, type TokenFixture, type TokenType, type AccessLevel } from "./fixture.js";
export { FaultInjector, type FaultRule, type FaultKind } from "./fault-injection.js";
export { EmulatorUsageError, type UsageIssue } from "./emulator-usage-error.js";
export { RequestLog, type LoggedRequest } from "./request-log.js";
export { Clock } from "./clock.js";
export { RateLimits } from "./rate-limits.js";
export {
  SecondaryRateLimits,
  PUBLISHED_SECONDARY_LIMITS,
  SECONDARY_LIMIT_NAMES,
  isContentGenerating,
  requestPoints,
  type SecondaryLimitName,
  type SecondaryLimitSettings,
  type SecondaryLimitUsage,
} from "./secondary-rate-limits.js";
export { AppRegistry, JWT_MESSAGES, INSTALLATION_TOKEN_LIFETIME_MS, JWT_CLOCK_SKEW_S, JWT_MAX_LIFETIME_S, type MintedToken } from "./app-registry.js";
export { ArtifactStore, type StoredDeploymentRecord, type StoredStorageRecord } from "./artifact-store.js";
export { resolveArtifactRepository, type ArtifactRepositoryFacts, type ArtifactWriteRequest, type RepositoryFailure, type RepositoryResolution, type ResolvedRepository } from "./artifact-repository-resolution.js";
export { AccessControl, decideAccess, type AccessDecision, type AccessQuestion, type AccessRule, type PermissionNeed, type Principal } from "./access-control.js";
export type { EmulatorContext, EmulatorState } from "./emulator-context.js";
export { GitStore, GitRepository, type StoredCommit, type StoredGitObject, type StoredTag } from "./git-store.js";
export { hashObject, tagContent, commitContent, treeContent, gitTime, type GitIdent, type GitObjectKind, type TreeEntry } from "./git-objects.js";
export { SourceImportStore, type StoredImport } from "./import-store.js";
export { ImportWebhooks, type ImportWebhookDelivery, type ImportWebhookPayload } from "./import-webhooks.js";
export { advance, createImport, updateImport, renderImport, defaultSource, vcsFromUrl, type ImportState, type SimulatedSource, type SimulatedStatus, type InjectedFailure } from "./simulated-importer.js";
export { RETIRED_STATUS, RETIRED_MESSAGE } from "./routes/source-imports.js";
export { ActivityGenerator, type RepoName } from "./activity-generator.js";
export { EventFeeds, FEED_CAPACITY, FEED_MAX_AGE_MS, type StoredEvent } from "./event-feeds.js";
export type { FeedLatencyOptions } from "./feed-latency.js";
export { NotificationStore, type StoredThread, type SubscriptionState, type Delivery, type DeliveryTrigger } from "./notification-store.js";
export { IssueEventStore, type StoredIssue, type StoredIssueEvent } from "./issue-event-store.js";
