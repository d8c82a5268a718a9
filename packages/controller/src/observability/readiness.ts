// /readyz as a pure function of a status snapshot: ready, or the reason why not.

/** Consecutive rounds whose every call the service refused for the token (401/403) before /readyz fails. */
export const TOKEN_REFUSED_FLUSHES_UNREADY = 3;

/** Consecutive failed state writes (each retried with backoff) before /readyz fails. */
export const STATE_WRITE_FAILURES_UNREADY = 3;

/**
 * The service refuses records and holds none of the cluster's: nothing the controller sends lands. Typically a first
 * install whose images no rule links to a repository of the organization (cause not_found).
 */
export function everyRecordRefused(refused: number, acknowledged: number): boolean {
  return refused > 0 && acknowledged === 0;
}

/**
 * Lists or watches of one informer failing this many times in a row (each retried with backoff: about 7 s at the
 * default delays) before /readyz fails: a cache that no longer follows the cluster would leave what stops running
 * deployed, and a permission the chart lacks (403) would look healthy.
 */
export const INFORMER_FAILURES_UNREADY = 4;

/** The informers failing past the bound, as one reason, or undefined. */
export function failingInformers(
  informers: readonly { kind: string; namespace: string; failures: number; lastError: string }[],
): string | undefined {
  const failing = informers.filter((i) => i.failures >= INFORMER_FAILURES_UNREADY);
  if (failing.length === 0) return undefined;
  const first = failing[0]!;
  const where = first.namespace ? ` in namespace ${first.namespace}` : "";
  const more = failing.length > 1 ? ` (and ${failing.length - 1} more informers)` : "";
  return `list/watch of ${first.kind}${where} failed ${first.failures} times in a row (${first.lastError})${more}; the cache no longer follows the cluster`;
}

/** What readiness looks at. */
export interface ReadinessSnapshot {
  synced: boolean;
  /** Why the informer caches no longer follow the cluster (failingInformers), if they do not. */
  informersFailing?: string;
  /** This replica may post (it holds the lease, or no election is configured). */
  leading: boolean;
  /** Leader election is configured. */
  electing: boolean;
  /** An election round has shown who holds the Lease. */
  electionDecided: boolean;
  readyWhenStandby: boolean;
  stateLoaded: boolean;
  /** A round has run since this replica became the leader. */
  flushed: boolean;
  stateWriteFailures: number;
  stateWriteError: string;
  /** Another controller writes the same state (state/conflicting-writers.ts, reason()), while it does. */
  conflictingWriter?: string;
  /** Why the loaded state cannot be trusted whole (state/recovery.ts, damageReason), until an operator clears it. */
  stateDamage?: string;
  tokenRefusedFlushes: number;
  tokenRefusedStatus: number;
  /** Records the service refuses now, by cause. */
  refused: ReadonlyMap<string, number>;
  /** Records the service holds (acknowledged). */
  acknowledged: number;
}

/** Ready, or why not. */
export type Readiness = { ready: true; role: "leader" | "standby" } | { ready: false; reason: string };

/**
 * Ready: caches synced, and either leading with a first round done (the state written, the token accepted), or
 * standing by (someone else holds the Lease) when standbys count as ready: a standby is a healthy replica, and a
 * rollout must be able to proceed.
 */
export function readiness(s: ReadinessSnapshot): Readiness {
  if (!s.synced) return { ready: false, reason: "informer caches not synced" };
  if (s.informersFailing) return { ready: false, reason: s.informersFailing };
  if (s.leading) {
    // First: it is why state writes fail, and every record is posted twice meanwhile.
    if (s.conflictingWriter) return { ready: false, reason: s.conflictingWriter };
    if (s.stateWriteFailures >= STATE_WRITE_FAILURES_UNREADY) {
      return {
        ready: false,
        reason:
          `writing the state ConfigMap failed ${s.stateWriteFailures} times in a row (${s.stateWriteError}); ` +
          "nothing is sent until it is written",
      };
    }
    // Damage first: it does not pass with time, and what it costs (records that may stay deployed) is not seen elsewhere.
    if (s.stateDamage) return { ready: false, reason: s.stateDamage };
    if (s.tokenRefusedFlushes >= TOKEN_REFUSED_FLUSHES_UNREADY) {
      return {
        ready: false,
        reason: `the service refused the API token (${s.tokenRefusedStatus}) on every call of the last ${s.tokenRefusedFlushes} flushes`,
      };
    }
    if (!s.flushed) return { ready: false, reason: s.stateLoaded ? "first flush pending" : "acknowledged state not loaded" };
    const refused = [...s.refused.values()].reduce((a, b) => a + b, 0);
    if (everyRecordRefused(refused, s.acknowledged)) {
      const causes = [...s.refused.entries()].map(([cause, n]) => `${cause}: ${n}`).join(", ");
      return {
        ready: false,
        reason:
          `the service refused every record (${refused}; ${causes}) and holds none: ` +
          (s.refused.has("not_found")
            ? "nothing links their images to a repository of the organization: annotate or label the workloads or their namespaces " +
              "shiplog.dev/repository, or map the images with --image-repositories (runbook: ShiplogRecordsRejected)"
            : "see the `service refused a deployment record` log lines (runbook: ShiplogRecordsRejected)"),
      };
    }
    return { ready: true, role: "leader" };
  }
  // Not a standby until an election round has shown someone else holds the Lease.
  if (s.electing && !s.electionDecided) return { ready: false, reason: "leader election pending" };
  return s.readyWhenStandby ? { ready: true, role: "standby" } : { ready: false, reason: "standing by (not the leader)" };
}
