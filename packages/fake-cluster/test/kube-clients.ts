import { KubeConfig } from "@kubernetes/client-node";
import type { FakeCluster, KubeObject, ObjectMeta } from "@shiplog/fake-cluster";

/** A KubeConfig loaded from the fake cluster's kubeconfig YAML, as a user would. */
export function kubeConfigFor(cluster: FakeCluster): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  return kc;
}

/**
 * A watched object as the tests read it. Which fields it has depends on the kind (a ConfigMap has no spec, an ERROR
 * line carries a Status); a test that reads an absent one fails, as it should.
 */
export interface WatchedObject extends KubeObject {
  metadata: ObjectMeta & { name: string; resourceVersion: string; labels: Record<string, string> };
  spec: Record<string, unknown> & { replicas: number };
  status?: Record<string, unknown> & { phase?: string; conditions?: { type: string; status: string }[] };
}

/** One parsed watch line. */
export interface WatchLine {
  type: string;
  object: WatchedObject;
}

/**
 * Opens a raw watch with fetch and collects events; `until` resolves when a predicate holds, checked as each event
 * arrives (no polling), and rejects if the stream ends first.
 */
export async function rawWatch(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers });
  const events: WatchLine[] = [];
  let ended = false;
  let waiters: { predicate: (events: WatchLine[]) => boolean; resolve: (events: WatchLine[]) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    waiters = waiters.filter((w) => {
      if (w.predicate(events)) w.resolve(events);
      else if (ended)
        w.reject(new Error(`the watch ended before the awaited events arrived; got ${JSON.stringify(events.map((e) => e.type))}`));
      else return true;
      return false;
    });
  };
  const done = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as WatchLine);
        }
        check();
      }
    } catch {
      // aborted or cut
    }
    ended = true;
    check();
  })();
  return {
    response,
    events,
    /** Resolves once `predicate(events)` holds. */
    until: (predicate: (events: WatchLine[]) => boolean) =>
      new Promise<WatchLine[]>((resolve, reject) => {
        waiters.push({ predicate, resolve, reject });
        check();
      }),
    /** Resolves when the stream ends (server closed it or it was cut). */
    ended: () => done.then(() => ended),
    isEnded: () => ended,
    abort: () => controller.abort(),
  };
}
