export { Controller, CONTROLLER_VERSION, TOKEN_REFUSED_FLUSHES_UNREADY, STATE_WRITE_FAILURES_UNREADY, StateNotLoadedError, type ControllerOptions, type ControllerStatus, type FlushSummary } from "./controller.js";
export { systemClock, type Clock } from "./clock.js";
export { loadConfig, parseDuration, redactedConfig, usage, formatConfigIssue, ConfigError, MAX_TIMER_MS, SETTINGS, type ConfigIssue, type ControllerConfig } from "./config.js";
export { StartupError, type StartupErrorCode } from "./startup-error.js";
export { loadKubeConfig, type KubeConfigSources } from "./kube-config-loader.js";
export { parseImageReference, digestFromImageId, runningDigest, SHA256_DIGEST, type ImageReference, type Parsed } from "./image-reference.js";
export { resolveWorkload, workloadActivity, controllerOf, type OwnerLookup, type ResolvedWorkload, type WorkloadActivity, type WorkloadRef } from "./workload-owner.js";
export * from "./annotations.js";
export {
  podRecords,
  placeRecord,
  recordKey,
  renderDeploymentName,
  trackedContainers,
  DEFAULT_DEPLOYMENT_NAME_TEMPLATE,
  DEPLOYMENT_NAME_PLACEHOLDERS,
  type CandidateRecord,
  type MappingOptions,
  type RecordGroup,
  type SkippedItem,
} from "./pod-records.js";
export { computeDesiredState, preferCandidate, type ClusterSnapshot, type DesiredRecord, type DesiredState, type DesiredStateOptions, type NameConflict, type WorkloadKind } from "./desired-state.js";
export { DesiredStateTracker, type TrackedSnapshot } from "./desired-state-tracker.js";
export { diffRecords, entryFingerprint, type DiffOptions, type PendingRecord } from "./record-diff.js";
export { DryRunAcknowledgedStore, InMemoryAcknowledgedStore, type AcknowledgedRecord, type AcknowledgedStore } from "./acknowledged-state.js";
export { BatchSender, NotLeaderError, chunk, groupRecords, type BatchSenderOptions, type ClusterRecordsApi, type RejectedRecord, type SendResult } from "./batch-sender.js";
export { ClusterInformers, WATCHED_KINDS, type InformerOptions } from "./informers.js";
export { LIST_PAGE_SIZE, type RestartReason } from "./reflector.js";
export { isTooLargeResourceVersion, resourceVersionWentBack } from "./kube-transport.js";
export { SendGate, callBudget, classifyFailure, type CallFailure, type FailureAction, type SendGateOptions } from "./send-gate.js";
export { ControllerMetrics } from "./metrics.js";
export { startHealthServer, type HealthServer } from "./health-server.js";
export { backoffDelay } from "./backoff.js";
export type { Container, ContainerStatus, CronJob, Job, ObjectMeta, OwnerReference, Pod, PodSpec, PodStatus, PodTemplate, WatchedKind, Workload } from "./kube-objects.js";
export { slimObject, type ProjectionOptions } from "./object-projection.js";
export {
  encodeAcknowledgedState,
  decodeAcknowledgedState,
  decodeRecordSet,
  AcknowledgedStateFormatError,
  ACKNOWLEDGED_STATE_FORMAT,
  type DecodedRecordSet,
  type EncodedAcknowledgedState,
} from "./acknowledged-state-encoding.js";
export {
  ConfigMapAcknowledgedStore,
  CONFIGMAP_MAX_BYTES,
  DEFAULT_STATE_LIMITS,
  type ConfigMapStoreOptions,
  type StateWriteInfo,
  type StateWriteStep,
} from "./configmap-acknowledged-store.js";
export { AcknowledgedStateReadError, AcknowledgedStateWriteError, StateWriteFencedError } from "./state-configmaps.js";
export { AcknowledgedStateTooLargeError, planCompaction } from "./state-compaction.js";
export { STATE_LAYOUT, shardOf, slotName, slotNames, type ShardRef, type StateLimits } from "./state-shards.js";
export { LeaseElection, type LeaseElectionOptions } from "./lease-election.js";
export { LeaderElector, systemElectionClock, type ElectionClock, type LeaderElectorOptions, type LeaseElectionStatus, type StoppedLeadingReason } from "./leader-elector.js";
export { KubeLeaseLock, LeaseLockError, type KubeLeaseLockOptions, type LeaderElectionRecord, type LeaseLock } from "./lease-lock.js";
export { leaseTimingProblems } from "./lease-timing.js";
export { FileTokenSource, StaticTokenSource, type TokenSource } from "./token-source.js";
export { createServiceClient, controllerAuth, tokenSourceAuth, leaderFence, tokenKindProbe, CLASSIC_TOKEN_REFUSED, type ServiceClientOptions } from "./service-client.js";
export { parseLabelSelector, labelKeyProblem, labelValueProblem, type LabelRequirement, type LabelSelector } from "./label-selector.js";
