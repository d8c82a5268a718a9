// When the flush loop runs its next round, and how many calls it may make. Pure: a snapshot of what is waiting and
// of the gates in, a time and a reason out.
//
// A change opens a coalescing window: the round runs once the cluster has been quiet for `windowMs`, and at the latest
// `maxWaitMs` after the first change, so a lone change goes out within the window while a rollout of thousands
// gathers into full batches. Work already known (a backlog the budget held back, a first round, a state write to
// retry) goes as soon as the gates allow. Nothing goes before the failure backoff, the sender's gate and the write
// budget's next slot. A round held by the budget starts early by the time the last round took to prepare (its plan
// and intent write), so its call leaves at the slot rather than that long after it: the budget, not the sum of the
// budget's waits and preparation, sets the rate of a long backlog. Between rounds the loop still ticks every
// `heartbeatMs` (liveness for /healthz).

/** What the schedule looks at. */
export interface ScheduleSnapshot {
  now: number;
  /** This replica may post and its caches have synced. */
  active: boolean;
  /** The acknowledged state is loaded (else the next round loads it first). */
  stateLoaded: boolean;
  /** No round has run since this replica became the leader. */
  firstRound: boolean;
  /** The first and the last change not yet diffed, if any. */
  firstChangeAt: number | undefined;
  lastChangeAt: number | undefined;
  /** Entries the last round left to send as soon as the budget allows. */
  backlog: boolean;
  /** The state holds changes a failed write did not persist. */
  stateDirty: boolean;
  /** When known work comes due without a change (a refused entry's retry, the resync's share, the next resync). */
  dueAt: number | undefined;
  /** Failure backoff: no round before it (state load or write, failed calls). */
  notBefore: number;
  /** The sender-wide gate and the write budget's next slot: no call before them. */
  gateOpensAt: number;
  budgetSlotAt: number;
  /** How long the last round took to prepare its calls (plan and intent write, ms): how early a held round starts. */
  prepareMs: number;
}

/** Timings of the schedule. */
export interface ScheduleTimings {
  windowMs: number;
  maxWaitMs: number;
  heartbeatMs: number;
}

/** Why the loop wakes. */
export type WakeReason = "heartbeat" | "load-state" | "first-round" | "state-write" | "backlog" | "changes" | "due";

/** The next wake: when, and whether a round runs then. */
export interface Wake {
  at: number;
  reason: WakeReason;
  /** The budget, not the work, set the time (counted as a deferral). */
  heldByBudget: boolean;
}

/** When the loop should wake next, and why. */
export function nextWake(s: ScheduleSnapshot, t: ScheduleTimings): Wake {
  const heartbeat: Wake = { at: s.now + t.heartbeatMs, reason: "heartbeat", heldByBudget: false };
  if (!s.active) return heartbeat;
  if (!s.stateLoaded) return pick({ at: Math.max(s.now, s.notBefore), reason: "load-state", heldByBudget: false }, heartbeat);
  const work: { at: number; reason: WakeReason }[] = [];
  if (s.firstRound) work.push({ at: s.now, reason: "first-round" });
  if (s.stateDirty) work.push({ at: s.now, reason: "state-write" });
  if (s.backlog) work.push({ at: s.now, reason: "backlog" });
  if (s.firstChangeAt !== undefined) {
    const quiet = (s.lastChangeAt ?? s.firstChangeAt) + t.windowMs;
    work.push({ at: Math.min(quiet, s.firstChangeAt + t.maxWaitMs), reason: "changes" });
  }
  if (s.dueAt !== undefined) work.push({ at: s.dueAt, reason: "due" });
  if (work.length === 0) return heartbeat;
  const first = work.reduce((a, b) => (b.at < a.at ? b : a));
  // A state write alone needs no call, so neither the sender's gate nor the budget holds it.
  const calls = first.reason !== "state-write";
  const gated = Math.max(first.at, s.notBefore, calls ? s.gateOpensAt : 0);
  // The round's calls wait in the pacer for the slot itself; the preparation may not start before the gates.
  const at = Math.max(gated, calls ? s.budgetSlotAt - s.prepareMs : 0);
  return pick({ at, reason: first.reason, heldByBudget: at > gated }, heartbeat);
}

/** The wake that comes first (the heartbeat only when nothing is due before it). */
function pick(due: Wake, heartbeat: Wake): Wake {
  return due.at <= heartbeat.at ? due : heartbeat;
}
