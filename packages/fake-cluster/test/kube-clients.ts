import { KubeConfig } from "@kubernetes/client-node";
import type { FakeCluster } from "@shiplog/fake-cluster";

/** A KubeConfig loaded from the fake cluster's kubeconfig YAML, as a user would. */
export function kubeConfigFor(cluster: FakeCluster): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  return kc;
}

/** Resolves with the first value `next()` produces that is not undefined, re-checking on every `onChange`. */
export function eventually<T>(subscribe: (check: () => void) => () => void, next: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    const check = () => {
      const value = next();
      if (value !== undefined) {
        unsubscribe?.();
        resolve(value);
      }
    };
    unsubscribe = subscribe(check);
    check();
  });
}

/** One parsed watch line. */
export interface WatchLine {
  type: string;
  object: any;
}

/** Opens a raw watch with fetch and collects events; `until` resolves when a predicate holds. */
export async function rawWatch(url: string) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const events: WatchLine[] = [];
  const listeners = new Set<() => void>();
  let ended = false;
  const done = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as WatchLine);
          for (const l of listeners) l();
        }
      }
    } catch {
      // aborted or cut
    }
    ended = true;
    for (const l of listeners) l();
  })();
  const subscribe = (check: () => void) => {
    listeners.add(check);
    return () => listeners.delete(check);
  };
  return {
    response,
    events,
    /** Resolves once `predicate(events)` holds. */
    until: (predicate: (events: WatchLine[]) => boolean) => eventually(subscribe, () => (predicate(events) ? events : undefined)),
    /** Resolves when the stream ends (server closed it or it was cut). */
    ended: () => done.then(() => ended),
    isEnded: () => ended,
    abort: () => controller.abort(),
  };
}
