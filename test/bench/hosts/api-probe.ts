// Times the fake cluster's answers to a ConfigMap read every 200 ms while a benchmark phase runs: a state write waits
// as long behind the fake cluster's own simulation (a real API server answers in milliseconds).
import { pct, s } from "./format.js";

/** Starts probing `url`; `stop` ends it and says how the answers went. */
export function probeApiServer(url: string): { stop(): Promise<string> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await fetch(url)
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
