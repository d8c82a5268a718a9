/** What a fault does to a matching request. */
export type FaultKind =
  /** Answer with an error status (503 by default), optionally with Retry-After. */
  | "status"
  /** Answer 403 with the rate limit spent and Retry-After, as the service does. */
  | "rate_limit"
  /** Destroy the connection before the handler runs: nothing is applied, the client sees a network error. */
  | "drop"
  /**
   * Run the handler, then destroy the connection instead of answering: the write is applied but the client
   * sees a network error, so a retry delivers the same request again (what a lost response does).
   */
  | "drop_after"
  /** Answer normally, after a delay. */
  | "latency";

export interface FaultRule {
  kind: FaultKind;
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Route template to match, in the emulator's form (`/orgs/:org/artifacts/metadata/storage-record`); any when absent. */
  route?: string;
  /** Share of matching requests hit, 0..1. Default 1. */
  rate?: number;
  /** Stop after this many hits. */
  times?: number;
  status?: number;
  /** The error body's message for a `status` fault; default the service's usual one. */
  message?: string;
  retryAfterSeconds?: number;
  latencyMs?: number;
}

interface ActiveFault extends FaultRule {
  id: number;
  hits: number;
}

/** Deterministic pseudo-random numbers (mulberry32), so a seeded fault run repeats exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per-route fault injection that tests switch on and off while the emulator runs. */
export class FaultInjector {
  #faults: ActiveFault[] = [];
  #nextId = 1;
  #random: () => number;

  constructor(seed = 42) {
    this.#random = seededRandom(seed);
  }

  /** Adds a fault; returns its id for `remove`. */
  add(rule: FaultRule): number {
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) {
      throw new RangeError(`fault rate must be between 0 and 1 (got ${rule.rate})`);
    }
    const id = this.#nextId++;
    this.#faults.push({ ...rule, id, hits: 0 });
    return id;
  }

  remove(id: number): void {
    this.#faults = this.#faults.filter((f) => f.id !== id);
  }

  clear(): void {
    this.#faults = [];
  }

  /** Reseeds the random source so a run repeats. */
  reseed(seed: number): void {
    this.#random = seededRandom(seed);
  }

  /** The faults that hit this request, at most one of each kind, in the order added. */
  pick(method: string, route: string | undefined): FaultRule[] {
    const hit: FaultRule[] = [];
    const kinds = new Set<FaultKind>();
    for (const fault of this.#faults) {
      if (fault.method && fault.method.toUpperCase() !== method.toUpperCase()) continue;
      if (fault.route && fault.route !== route) continue;
      if (fault.times !== undefined && fault.hits >= fault.times) continue;
      if (kinds.has(fault.kind)) continue;
      if (this.#random() >= (fault.rate ?? 1)) continue;
      fault.hits++;
      kinds.add(fault.kind);
      hit.push(fault);
    }
    return hit;
  }
}
