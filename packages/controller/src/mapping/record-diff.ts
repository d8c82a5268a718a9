// The difference between desired state and what the service has acknowledged: the entries to send.
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { AcknowledgedRecord } from "../state/acknowledged-state.js";
import type { DesiredState } from "./desired-state.js";
import type { RecordGroup } from "./pod-records.js";

/** An entry waiting to be sent. */
export interface PendingRecord {
  key: string;
  group: RecordGroup;
  entry: ClusterDeploymentEntry;
}

/** A stable text form of an entry: equal entries give equal fingerprints whatever the key or array order. */
export function entryFingerprint(entry: ClusterDeploymentEntry): string {
  const tags = entry.tags ? Object.entries(entry.tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return JSON.stringify([
    entry.name,
    entry.digest,
    entry.version ?? null,
    entry.status ?? "deployed",
    entry.deployment_name,
    entry.github_repository ?? null,
    tags,
    [...(entry.runtime_risks ?? [])].sort(),
  ]);
}

/** Two entries are the same: the same object, or equal fingerprints. */
export function sameEntry(a: ClusterDeploymentEntry, b: ClusterDeploymentEntry): boolean {
  return a === b || entryFingerprint(a) === entryFingerprint(b);
}

/** Options of the diff. */
export interface DiffOptions {
  /** Send every desired record even when acknowledged (the periodic full resync). */
  resendAll?: boolean;
  /** Fingerprints the service rejected, by key: not resent until the entry changes or a full resync. */
  rejected?: ReadonlyMap<string, string>;
  /**
   * The write-ahead set: entries sent without an answer, which may or may not exist at the service. A desired record
   * whose key is in flight with another entry is sent again; an in-flight key no longer desired is decommissioned
   * (with the in-flight entry, the latest the service may hold), even when it was never acknowledged.
   */
  inFlight?: ReadonlyMap<string, AcknowledgedRecord>;
  /**
   * Only these keys (and every in-flight key: that set is small) are looked at: the keys whose desired record or
   * held status changed since the last diff (DesiredStateTracker.changedKeys), plus whatever the caller still has
   * to settle. The result is the full diff's entries for those keys. Absent: every key.
   */
  keys?: Iterable<string>;
  /**
   * The pod cache is still being listed: only desired records go (new or changed), nothing is decommissioned, since
   * a record missing from a partial view may only not have been listed yet.
   */
  upsertsOnly?: boolean;
}

/**
 * Entries to send: desired records that differ from what was acknowledged (or are in flight with another entry), and
 * decommissions for acknowledged deployed or in-flight records that are neither desired nor held. Pure.
 */
export function diffRecords(
  desired: DesiredState,
  acknowledged: ReadonlyMap<string, AcknowledgedRecord>,
  options: DiffOptions = {},
): PendingRecord[] {
  if (options.keys) return diffKeys(desired, acknowledged, options, options.keys);
  const pending: PendingRecord[] = [];
  for (const [key, record] of desired.records) {
    const entry = sendDesired(key, record.entry, acknowledged, options);
    if (entry) pending.push({ key, group: record.group, entry });
  }
  if (options.upsertsOnly) return pending;
  for (const [key, acked] of acknowledged) {
    const entry = isDeployed(acked) ? sendDecommission(key, desired, options.inFlight?.get(key) ?? acked, options) : undefined;
    if (entry) pending.push({ key, group: (options.inFlight?.get(key) ?? acked).group, entry });
  }
  for (const [key, flying] of options.inFlight ?? []) {
    const entry = isDeployed(acknowledged.get(key)) ? undefined : sendDecommission(key, desired, flying, options);
    if (entry) pending.push({ key, group: flying.group, entry });
  }
  return pending;
}

function diffKeys(
  desired: DesiredState,
  acknowledged: ReadonlyMap<string, AcknowledgedRecord>,
  options: DiffOptions,
  keys: Iterable<string>,
): PendingRecord[] {
  const pending: PendingRecord[] = [];
  const seen = new Set<string>();
  const look = (key: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    const record = desired.records.get(key);
    if (record) {
      const entry = sendDesired(key, record.entry, acknowledged, options);
      if (entry) pending.push({ key, group: record.group, entry });
      return;
    }
    if (options.upsertsOnly) return;
    const acked = acknowledged.get(key);
    const latest = isDeployed(acked) ? (options.inFlight?.get(key) ?? acked) : options.inFlight?.get(key);
    const entry = latest ? sendDecommission(key, desired, latest, options) : undefined;
    if (entry) pending.push({ key, group: latest!.group, entry });
  };
  for (const key of keys) look(key);
  for (const key of options.inFlight?.keys() ?? []) look(key);
  return pending;
}

const isDeployed = (record: AcknowledgedRecord | undefined): record is AcknowledgedRecord =>
  record !== undefined && (record.entry.status ?? "deployed") === "deployed";

/** The entry to send for a desired record, or undefined when the service holds it already (or refused it). */
function sendDesired(
  key: string,
  entry: ClusterDeploymentEntry,
  acknowledged: ReadonlyMap<string, AcknowledgedRecord>,
  options: DiffOptions,
): ClusterDeploymentEntry | undefined {
  const fingerprint = entryFingerprint(entry);
  const acked = acknowledged.get(key);
  const flying = options.inFlight?.get(key);
  const settled = acked && entryFingerprint(acked.entry) === fingerprint && (!flying || entryFingerprint(flying.entry) === fingerprint);
  if (!options.resendAll && settled) return undefined;
  if (options.rejected?.get(key) === fingerprint) return undefined;
  return entry;
}

/** The decommission of a key no longer desired nor held, from the latest entry the service may hold. */
function sendDecommission(
  key: string,
  desired: DesiredState,
  latest: AcknowledgedRecord,
  options: DiffOptions,
): ClusterDeploymentEntry | undefined {
  if (desired.records.has(key) || desired.held.has(key)) return undefined;
  const entry: ClusterDeploymentEntry = { ...latest.entry, status: "decommissioned" };
  if (options.rejected?.get(key) === entryFingerprint(entry)) return undefined;
  return entry;
}
