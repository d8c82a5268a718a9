import type { TransportClock } from "@shiplog/client";
import type { VirtualClock } from "../../../test/kit/virtual-clock.js";

/**
 * A virtual clock as the fake cluster sees it, telling the test when the cluster starts a wait: a request's wait
 * begins on the server only once the request has arrived, so a test moves the clock after `started(ms)`, not before
 * (moving it earlier would leave the wait unfired, whatever the server does).
 */
export function observedClock(virtual: VirtualClock): { clock: TransportClock; started(ms: number): Promise<void> } {
  let waiters: { ms: number; resolve: () => void }[] = [];
  return {
    clock: {
      now: () => virtual.now(),
      sleep: (ms, signal) => {
        const waiting = virtual.sleep(ms, signal);
        waiters = waiters.filter((w) => {
          if (w.ms !== ms) return true;
          w.resolve();
          return false;
        });
        return waiting;
      },
    },
    /** Resolves when the cluster next starts a wait of `ms` (call it before the request that starts the wait). */
    started: (ms) => new Promise((resolve) => waiters.push({ ms, resolve })),
  };
}
