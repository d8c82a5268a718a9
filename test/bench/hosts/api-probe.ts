// Times the cluster's answers to a ConfigMap read every 200 ms while a benchmark phase runs: a state write waits
// as long behind the fake cluster's own simulation, or a real API server's work.
import type { ClusterGet } from "./bench-cluster.js";
import { pct, s } from "./format.js";

/** Starts probing `path`; `stop` ends it and says how the answers went. */
export function probeApiServer(get: ClusterGet, path: string): { stop(): Promise<string> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await get(path)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
      times.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return `p50 ${s(pct(times, 50))}, max ${s(Math.max(...times))} over ${times.length} reads`;
    },
  };
}
