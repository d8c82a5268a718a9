// Participants of the state head: parts of the controller that keep a small state of their own in the head of the
// acknowledged state, each under its own data key, written with every head write and read back at every load. The
// store carries their sections without knowing what they hold: the write budget's calls are one (flush/write-budget.ts,
// writeBudgetParticipant), so a restarted or newly elected leader keeps to the windows its predecessor's calls filled.

/** A participant's section for one write. */
export interface HeadSection {
  text: string;
  /** Written even when no record changed (it holds what must be durable before a call leaves). */
  urgent: boolean;
}

/** What a write is for, as participants see it. */
export interface HeadWriteContext {
  now: number;
  /** Calls about to leave once this write succeeds (an intent write's). */
  plannedCalls: number;
}

/** A part that keeps its own section in the state head. */
export interface StateHeadParticipant {
  /** The head's data key of its section (never one of the layout's own keys). */
  readonly key: string;
  /** Its section for the write about to be made; undefined: nothing to keep. */
  section(context: HeadWriteContext): HeadSection | undefined;
  /** Its section as the loaded head carries it (undefined: none, or a store that keeps none). */
  restore(text: string | undefined, now: number): void;
}
