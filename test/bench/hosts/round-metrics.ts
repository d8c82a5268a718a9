// What the controller's metrics say about its rounds: where their time goes (shiplog_controller_round_phase_seconds)
// and what the write-ahead costs (state writes per round, bytes).
import { s } from "./format.js";

/** Reads a metric of the controller, summed over the label sets whose labels contain `labels`. */
export type MetricReader = (name: string, labels?: string) => Promise<number>;

/** Per phase of a round: seconds spent so far and rounds counted. */
export type RoundPhases = Record<string, { sum: number; count: number }>;

/** Seconds spent in each phase of the rounds so far, and the rounds counted. */
export async function roundPhases(metric: MetricReader): Promise<RoundPhases> {
  const out: RoundPhases = {};
  for (const phase of ["plan", "intent_write", "calls", "answer_write"]) {
    const label = `phase="${phase}"`;
    out[phase] = {
      sum: await metric("shiplog_controller_round_phase_seconds_sum", label),
      count: await metric("shiplog_controller_round_phase_seconds_count", label),
    };
  }
  return out;
}

/**
 * The phases once every round since `before` that made calls has finished its answer write (records land before their
 * round ends), or after 10 s.
 */
export async function answeredPhases(metric: MetricReader, before: RoundPhases): Promise<RoundPhases> {
  let after = await roundPhases(metric);
  for (const end = Date.now() + 10_000; Date.now() < end; after = await roundPhases(metric)) {
    const answered = after.answer_write!.count - (before.answer_write?.count ?? 0);
    if (answered >= after.calls!.count - (before.calls?.count ?? 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return after;
}

/** The mean seconds per round of each phase between two readings. */
export function phaseMeans(before: RoundPhases, after: RoundPhases): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).map((phase) => {
      const n = after[phase]!.count - (before[phase]?.count ?? 0);
      return [phase, n ? (after[phase]!.sum - (before[phase]?.sum ?? 0)) / n : 0];
    }),
  );
}

/** Where a round's time goes, as one line. */
export function phaseLine(before: RoundPhases, after: RoundPhases): string {
  return Object.entries(phaseMeans(before, after))
    .map(([phase, mean]) => `${phase.replace("_", " ")} ${s(mean * 1000)}`)
    .join(", ");
}

/** The write-ahead's cost so far: state writes per round, and the size of the state last written. */
export async function writeAheadCost(metric: MetricReader): Promise<string> {
  const writes = await metric("shiplog_controller_state_writes_total");
  const rounds = await metric("shiplog_controller_flush_duration_seconds_count");
  const bytes = await metric("shiplog_controller_state_bytes");
  const perRound = (writes / Math.max(1, rounds)).toFixed(2);
  return (
    `${writes} state writes in ${rounds} rounds (${perRound} per round: intent, then answer, for a round that sends a new or ` +
    `changed record), last ${(bytes / 1e3).toFixed(0)} KB`
  );
}
