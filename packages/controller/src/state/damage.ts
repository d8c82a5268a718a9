// What a damaged state lost, as data: the types the acknowledged state carries and state/recovery.ts computes. Apart
// so that the acknowledged state needs nothing of the recovery logic.

/** One piece of the state that was not read back exactly. */
export interface DamagedPiece {
  what: string;
  /** Records whose decommissioning can no longer be guaranteed because of it; null when no count survives. */
  atRisk: number | null;
}

/** The state's damage: recorded in the head's `data.damage` until an operator clears it. */
export interface StateDamage {
  /** When it was detected (ISO time). */
  detected: string;
  pieces: DamagedPiece[];
  /** The records at risk, summed over the pieces that have a count. */
  atRisk: number;
  /** Copies of the damaged objects, kept aside before anything was written over them. */
  keptAside: string[];
}
