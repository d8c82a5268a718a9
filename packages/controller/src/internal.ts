// @shiplog/controller/internal: the parts shiplog's own tests and benchmarks drive directly (the mapping, the diff,
// the state encoding, the election, the informers). Not for users: no compatibility promise.
export { STATE_WRITE_FAILURES_UNREADY, TOKEN_REFUSED_FLUSHES_UNREADY } from "./controller.js";
export { MAX_TIMER_MS, SETTINGS, parseDuration } from "./config/config.js";
export { digestFromImageId, runningDigest } from "./mapping/image-reference.js";
export { parseImageReference } from "@shiplog/client/internal";
export { resolvesAlike, resolveWorkload } from "./mapping/workload-owner.js";
export { mergeAnnotations, readIgnore, readRecordAnnotations } from "./mapping/annotations.js";
export { DEPLOYMENT_NAME_PLACEHOLDERS, podRecords, recordKey, renderDeploymentName } from "./mapping/pod-records.js";
export { computeDesiredState, type ClusterSnapshot, type DesiredStateOptions, type WorkloadKind } from "./mapping/desired-state.js";
export { DesiredStateTracker, type TrackedSnapshot } from "./mapping/desired-state-tracker.js";
export { LISTING_SLICE, listingSlicer } from "./kube/listing-slicer.js";
export { diffRecords, entryFingerprint, type PendingRecord } from "./mapping/record-diff.js";
export { BatchSender, chunk, groupRecords } from "./flush/batch-sender.js";
export { ClusterInformers, MAX_NAMESPACED_WATCHES, WATCHED_KINDS } from "./kube/informers.js";
export { LIST_PAGE_SIZE, type RestartReason } from "./kube/reflector.js";
export { isTooLargeResourceVersion, resourceVersionWentBack } from "./kube/transport.js";
export { SendGate, callBudget, classifyFailure } from "./flush/send-gate.js";
export type { CronJob, Job, OwnerReference, Pod, WatchedKind, Workload } from "./kube/objects.js";
export { slimObject } from "./kube/object-projection.js";
export {
  AcknowledgedStateFormatError,
  decodeAcknowledgedState,
  decodeRecordSet,
  encodeAcknowledgedState,
} from "./state/encoding.js";
export {
  ConfigMapAcknowledgedStore,
  CONFIGMAP_MAX_BYTES,
  DEFAULT_STATE_LIMITS,
  type ConfigMapStoreOptions,
  type StateWriteInfo,
  type StateWriteStep,
} from "./state/configmap-store.js";
export { DryRunAcknowledgedStore } from "./state/acknowledged-state.js";
export { AcknowledgedStateTooLargeError, planCompaction } from "./state/compaction.js";
export { writeShardSlots, type SlotWriteContext } from "./state/compaction-slots.js";
export { StateConfigMaps, StateConflictError } from "./state/configmaps.js";
export { runControllerProcess, type ProcessOptions } from "./process.js";
export type { RoundPoint, RoundProbe } from "./flush/round.js";
export {
  STATE_LAYOUT,
  type StateLimits,
  encodeSegment,
  encodeShard,
  segmentPrefix,
  shardOf,
  slotName,
  slotNames,
  type ShardRef,
} from "./state/shards.js";
export {
  addDamage,
  damageReason,
  damagedCopyName,
  headFormat,
  parseDamage,
  readJournal,
  readShardSlots,
  scanSlots,
  verifySlot,
  witnessName,
  witnessVerdict,
  type StateDamage,
  type StoredConfigMap,
} from "./state/recovery.js";
export { LeaseElection } from "./election/lease-election.js";
export { LeaderElector, type StoppedLeadingReason } from "./election/leader-elector.js";
export { KubeLeaseLock, LeaseLockError, type LeaderElectionRecord, type LeaseLock } from "./election/lease-lock.js";
export { leaseTimingProblems } from "./election/lease-timing.js";
export { SETTING_MAX_LENGTHS, SETTING_PATTERNS } from "./config/rules.js";
export { defaultText, SETTING_RELATIONS, settingEntries, type ChartValue, type Setting, type SettingName } from "./config/settings.js";
export { createServiceClient } from "./service/service-client.js";
export { LABEL_SELECTOR_LONG_PREFIX, LABEL_SELECTOR_PATTERN, parseLabelSelector } from "./kube/label-selector.js";
