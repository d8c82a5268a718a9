// How the batch sender answers a failed call, and the sender-wide not-before gate. Pure: the decisions take plain
// data (the error's status, message and field errors), the gate takes the time; the sender does the I/O.
//
// - A 422 whose field errors name entries (`deployments[deployment_name=x]…`, `deployments[3]…`): the named entries
//   are rejected and the rest sent again at once; entries named only by index are isolated by bisection.
// - A 422 that says the endpoint is spammed: the whole sender backs off (the gate closes); nothing is bisected.
// - A 422 naming nothing: halves are tried, and bisection goes on only while a smaller batch succeeds where the larger
//   failed; a half refused the same way closes the gate instead.
// - Any whole-call refusal that repeats (the same flush, no success in between) closes the gate too.
import { backoffDelay } from "./backoff.js";

/** What a failed call means for its batch. */
export type FailureAction =
  /** The service named these entries (by deployment name): reject them, send the others again. */
  | { kind: "reject-named"; names: ReadonlySet<string> }
  /** The service refused entries it names only by position, or the client refused the batch: bisect. */
  | { kind: "bisect" }
  /** A 422 naming nothing: try halves (a smaller batch may succeed where the larger failed). */
  | { kind: "probe" }
  /** The endpoint says it is spammed: back off the whole sender. */
  | { kind: "spammed" }
  /** Anything else (5xx, network, 403, 404, 429): the batch stays pending; a repeat closes the gate. */
  | { kind: "whole-call" };

/** What the sender knows of a failed call. */
export interface CallFailure {
  code?: string;
  status?: number;
  message?: string;
  /** The 422 body's field errors. */
  errors?: readonly { field?: string; message?: string; code?: string }[];
}

const SPAMMED = /spam/i;
const NAMED_ENTRY = /^deployments\[deployment_name=(.+?)\]/;
const INDEXED_ENTRY = /^deployments\[\d+\]/;

/** Decides what a failed call means (pure). */
export function classifyFailure(failure: CallFailure): FailureAction {
  if (failure.code === "invalid_request") return { kind: "bisect" };
  if (failure.status !== 422 && failure.code !== "validation_failed") return { kind: "whole-call" };
  const texts = [failure.message ?? "", ...(failure.errors ?? []).map((e) => `${e.message ?? ""} ${e.code ?? ""}`)];
  if (texts.some((t) => SPAMMED.test(t))) return { kind: "spammed" };
  const names = new Set<string>();
  let indexed = false;
  for (const e of failure.errors ?? []) {
    const named = NAMED_ENTRY.exec(e.field ?? "");
    if (named) names.add(named[1]!);
    else if (INDEXED_ENTRY.test(e.field ?? "")) indexed = true;
  }
  if (names.size > 0 && !indexed) return { kind: "reject-named", names };
  if (names.size > 0 || indexed) return { kind: "bisect" };
  return { kind: "probe" };
}

/**
 * The most calls one flush makes for `batches` batches: every batch once, plus bisection. Isolating one bad entry
 * in a batch of n takes about 2·log2(n) calls; the allowance covers a few such entries per flush, and what is left
 * when it runs out stays pending for the next flush.
 */
export function callBudget(batches: number, batchSize: number): number {
  return batches + 4 * 2 * Math.ceil(Math.log2(Math.max(2, batchSize)));
}

/** Settings of the gate's backoff. */
export interface SendGateOptions {
  minDelayMs: number;
  maxDelayMs: number;
  random?: () => number;
}

/** The sender-wide not-before gate: closed after a spammed 422 or a repeated whole-call refusal. */
export class SendGate {
  #notBefore = 0;
  #closures = 0;
  #reason: string | undefined;

  constructor(private readonly options: SendGateOptions) {}

  /** Whether a call may go at `now`. */
  isOpen(now: number): boolean {
    return now >= this.#notBefore;
  }

  /** When calls may go again (0: now). */
  get notBefore(): number {
    return this.#notBefore;
  }

  /** Why the gate last closed. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Consecutive closures without a successful call in between. */
  get closures(): number {
    return this.#closures;
  }

  /** Closes the gate for a growing delay (at least `retryAfterMs`); returns the delay. */
  close(now: number, reason: string, retryAfterMs = 0): number {
    const delay = Math.max(
      backoffDelay(this.#closures, this.options.minDelayMs, this.options.maxDelayMs, this.options.random),
      retryAfterMs,
    );
    this.#closures += 1;
    this.#reason = reason;
    this.#notBefore = Math.max(this.#notBefore, now + delay);
    return delay;
  }

  /** A call succeeded: the next closure starts from the shortest delay again. */
  succeeded(): void {
    this.#closures = 0;
  }

  /** Forgets any closure (a new leader starts afresh). */
  reset(): void {
    this.#notBefore = 0;
    this.#closures = 0;
    this.#reason = undefined;
  }
}
