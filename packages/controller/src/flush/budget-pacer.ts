// Every attempt of a cluster call (the client's retries and the sender's bisection included) waits for a slot of
// the write budget before it leaves: a transport plugin, outside the leader fence, so the fence is checked after
// the wait. It also waits for the client's own rate-limit gate first, so a slot is not spent on an attempt that
// would then sit behind the gate. An attempt counts in the budget's windows from when it leaves until it is answered
// (or fails). With `serialize`, an attempt holds the pacer until then too: one call at a time, as the service advises.
import { AbortedError, type Attempt, type TransportClock, type TransportPlugin } from "@shiplog/client";
import type { SettleCall, WriteBudget } from "./write-budget.js";

/** The cluster endpoint's route, as the client names it. */
export const CLUSTER_ROUTE = "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}";

/** Settings of the pacer. */
export interface BudgetPacerOptions {
  budget: WriteBudget;
  clock: TransportClock;
  /** One call at a time (the service's advice; `--serialize-writes`). */
  serialize: boolean;
  /** When the client's rate-limit gate opens (epoch ms); 0 when open. */
  gateOpensAt?: () => number;
  /** Told when an attempt takes its slot and leaves. */
  onCall?: (attempt: Attempt) => void;
}

/** The write budget as a transport plugin: cluster POSTs wait for their slot. */
export function budgetPacer(options: BudgetPacerOptions): TransportPlugin {
  const { budget, clock } = options;
  let tail: Promise<void> = Promise.resolve();
  const waitForSlot = async (attempt: Attempt): Promise<SettleCall> => {
    for (;;) {
      const now = clock.now();
      const wait = Math.max(budget.nextSlot(now), options.gateOpensAt?.() ?? 0) - now;
      if (wait <= 0) break;
      try {
        await clock.sleep(wait, attempt.signal);
      } catch (reason) {
        throw new AbortedError(attempt.operation, { cause: reason });
      }
    }
    const settle = budget.take(clock.now());
    options.onCall?.(attempt);
    return settle;
  };
  return {
    name: "write budget",
    async wrap(send, attempt) {
      if (attempt.method !== "POST" || attempt.route !== CLUSTER_ROUTE) return send(attempt);
      const previous = tail;
      let release!: () => void;
      tail = new Promise<void>((resolve) => (release = resolve));
      let settle: SettleCall | undefined;
      try {
        await previous;
        settle = await waitForSlot(attempt);
        if (!options.serialize) release();
        return await send(attempt);
      } finally {
        settle?.(clock.now());
        release();
      }
    },
  };
}
