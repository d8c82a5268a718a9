import { z } from "zod";
import { EmulatorUsageError } from "./emulator-usage-error.js";

/** What a fault does to a matching request. */
export type FaultKind =
  /** Answer with an error status (503 by default), optionally with Retry-After. */
  | "status"
  /** Answer 403 with the rate limit spent and Retry-After, as the service does. */
  | "rate_limit"
  /**
   * Answer 403 (or `status` 429) saying a secondary rate limit was exceeded, the primary limit not spent; with
   * Retry-After only when `retryAfterSeconds` is given (the service often names no wait).
   */
  | "secondary_rate_limit"
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

const FAULT_KINDS = [
  "status",
  "rate_limit",
  "secondary_rate_limit",
  "drop",
  "drop_after",
  "latency",
] as const satisfies readonly FaultKind[];

/** The checks `add` applies to a rule. */
const faultRuleSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  method: z.string().min(1).optional(),
  route: z.string().startsWith("/", { message: "must be a route template starting with /" }).optional(),
  rate: z.number().min(0).max(1).optional(),
  times: z.number().int().min(1).optional(),
  status: z.number().int().min(400).max(599).optional(),
  message: z.string().optional(),
  retryAfterSeconds: z.number().min(0).optional(),
  latencyMs: z.number().min(0).optional(),
});

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

  /** `routes`: the emulator's route templates, so a rule naming a route that does not exist is refused. */
  constructor(
    seed = 42,
    private readonly routes?: ReadonlySet<string>,
  ) {
    this.#random = seededRandom(seed);
  }

  /** Adds a fault; returns its id for `remove`. Throws `EmulatorUsageError` naming the field of a bad rule. */
  add(rule: FaultRule): number {
    const checked = faultRuleSchema.safeParse(rule, { reportInput: true });
    if (!checked.success) throw EmulatorUsageError.fromZod("faults.add", "rule", checked.error);
    if (rule.route !== undefined && this.routes && !this.routes.has(rule.route)) {
      // A route that matches nothing would silently inject nothing.
      throw new EmulatorUsageError("faults.add", {
        argument: "rule.route",
        rule: "a route template of the emulator",
        message: `${JSON.stringify(rule.route)} is not a route of the emulator (templates look like /orgs/:org/artifacts/metadata/storage-record)`,
      });
    }
    const id = this.#nextId++;
    this.#faults.push({ ...rule, id, hits: 0 });
    return id;
  }

  /** The active faults, with their ids and how often each has hit. */
  list(): (FaultRule & { id: number; hits: number })[] {
    return this.#faults.map((f) => ({ ...f }));
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
