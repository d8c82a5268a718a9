import { KubeConfig } from "@kubernetes/client-node";
import type { FakeCluster, KubeObject, ObjectMeta } from "@shiplog/fake-cluster";
import { vi } from "vitest";
import { WAIT } from "../../../test/kit/wait.js";

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

/** Opens a raw watch with fetch and collects events; `until` resolves when a predicate holds. */
export async function rawWatch(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers });
  const events: WatchLine[] = [];
  let ended = false;
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
      }
    } catch {
      // aborted or cut
    }
    ended = true;
  })();
  return {
    response,
    events,
    /** Resolves once `predicate(events)` holds. */
    until: (predicate: (events: WatchLine[]) => boolean) => vi.waitUntil(() => (predicate(events) ? events : undefined), WAIT),
    /** Resolves when the stream ends (server closed it or it was cut). */
    ended: () => done.then(() => ended),
    isEnded: () => ended,
    abort: () => controller.abort(),
  };
}
