// The difference between desired state and what the service has acknowledged: the entries to send.
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
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
  const pending: PendingRecord[] = [];
  for (const [key, record] of desired.records) {
    const fingerprint = entryFingerprint(record.entry);
    const acked = acknowledged.get(key);
    const flying = options.inFlight?.get(key);
    const settled = acked && entryFingerprint(acked.entry) === fingerprint && (!flying || entryFingerprint(flying.entry) === fingerprint);
    if (!options.resendAll && settled) continue;
    if (options.rejected?.get(key) === fingerprint) continue;
    pending.push({ key, group: record.group, entry: record.entry });
  }
  const decommission = (key: string, latest: AcknowledgedRecord): void => {
    if (desired.records.has(key) || desired.held.has(key)) return;
    const entry: ClusterDeploymentEntry = { ...latest.entry, status: "decommissioned" };
    if (options.rejected?.get(key) === entryFingerprint(entry)) return;
    pending.push({ key, group: latest.group, entry });
  };
  const isDeployed = (record: AcknowledgedRecord | undefined) => record !== undefined && (record.entry.status ?? "deployed") === "deployed";
  for (const [key, acked] of acknowledged) {
    if (isDeployed(acked)) decommission(key, options.inFlight?.get(key) ?? acked);
  }
  for (const [key, flying] of options.inFlight ?? []) if (!isDeployed(acknowledged.get(key))) decommission(key, flying);
  return pending;
}
