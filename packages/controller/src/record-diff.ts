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
}

/**
 * Entries to send: desired records that differ from what was acknowledged, and decommissions for acknowledged
 * deployed records that are neither desired nor held. Pure.
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
    if (!options.resendAll && acked && entryFingerprint(acked.entry) === fingerprint) continue;
    if (options.rejected?.get(key) === fingerprint) continue;
    pending.push({ key, group: record.group, entry: record.entry });
  }
  for (const [key, acked] of acknowledged) {
    if ((acked.entry.status ?? "deployed") !== "deployed") continue;
    if (desired.records.has(key) || desired.held.has(key)) continue;
    const entry: ClusterDeploymentEntry = { ...acked.entry, status: "decommissioned" };
    if (options.rejected?.get(key) === entryFingerprint(entry)) continue;
    pending.push({ key, group: acked.group, entry });
  }
  return pending;
}
