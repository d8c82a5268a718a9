// Watches the cluster's pods (the fake's or a real API server's) from this (mostly idle) process and notes when each watched container first runs
// with its new digest: the start of the "pod Running -> record at the service" latency. Also counts pod watch events
// and containers that started running, for CPU per pod change and "one request per container event".
import type { ClusterGet } from "./bench-cluster.js";

export class PodStopwatch {
  #abort: AbortController | undefined;
  #wanted = new Map<string, string>();
  #first = new Map<string, number>();
  #running = new Set<string>();
  /** Pod watch events since the last `watch`. */
  events = 0;
  /** When each of them arrived (the trace the window replay works on). */
  eventTimes: number[] = [];
  /** Containers that started running since the last `watch`. */
  containerEvents = 0;

  constructor(private readonly get: ClusterGet) {}

  /** Starts watching from `resourceVersion` for `wanted` (deployment name -> new digest). */
  async watch(wanted: Map<string, string>, resourceVersion: string): Promise<void> {
    this.stop();
    this.#wanted = wanted;
    this.#first = new Map();
    this.#running = new Set();
    this.events = 0;
    this.eventTimes = [];
    this.containerEvents = 0;
    const abort = new AbortController();
    this.#abort = abort;
    const response = await this.get(`/api/v1/pods?watch=true&resourceVersion=${resourceVersion}`, { signal: abort.signal });
    void readWatch<WatchEvent>(response.body!, (event, now) => this.#event(event, now)).catch(() => undefined);
  }

  /** Deployment name -> when its new digest first ran. */
  firstRunning(): ReadonlyMap<string, number> {
    return this.#first;
  }

  stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
  }

  #event(event: WatchEvent, now: number): void {
    this.events++;
    this.eventTimes.push(now);
    const pod = event.object;
    if (pod.status?.phase !== "Running") return;
    for (const status of pod.status.containerStatuses ?? []) {
      if (!status.state?.running) continue;
      const id = `${pod.metadata.uid}/${status.name}`;
      if (!this.#running.has(id)) {
        this.#running.add(id);
        this.containerEvents++;
      }
      const name = `${pod.metadata.namespace}-${pod.metadata.labels?.app}-${status.name}`;
      const digest = (status.imageID ?? "").split("@")[1];
      if (this.#wanted.get(name) === digest && !this.#first.has(name)) this.#first.set(name, now);
    }
  }
}

interface WatchEvent {
  type: string;
  object: {
    metadata: { uid: string; namespace: string; labels?: Record<string, string> };
    status?: { phase?: string; containerStatuses?: { name: string; imageID?: string; state?: { running?: unknown } }[] };
  };
}

/** Reads a watch's stream, event by event, with when each chunk arrived. */
export async function readWatch<T>(body: ReadableStream<Uint8Array>, onEvent: (event: T, now: number) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    const now = Date.now();
    for (const line of lines) if (line) onEvent(JSON.parse(line) as T, now);
  }
}
