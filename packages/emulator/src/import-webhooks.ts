import { randomUUID } from "node:crypto";
import type { TransportClock } from "@shiplog/client";
import { timerOn } from "@shiplog/client/internal";

/**
 * `RepositoryImportEvent` deliveries. The spec says a webhook reports import state but shows neither the
 * delivery nor the payload (6.4), so the emulator keeps both minimal:
 *
 * POST <url>, `content-type: application/json`, `x-service-event: repository_import`,
 * `x-service-delivery: <uuid>`, body
 * `{ status, previous_status, repository: { id, name, full_name, owner: { login } }, import }` where
 * `status` is the import's new status (`cancelled` when the import was deleted), `previous_status` the one
 * before (null for a new import) and `import` the same object GET import answers (null once deleted).
 * One delivery per status change and per PATCH import (a restart may keep the status), in order; no retries
 * (a failed delivery is recorded, not repeated).
 */
export interface ImportWebhookPayload {
  status: string;
  previous_status: string | null;
  repository: { id: number; name: string; full_name: string; owner: { login: string } };
  import: Record<string, unknown> | null;
}

/** One delivery attempt, for tests and the demo to inspect. */
export interface ImportWebhookDelivery {
  id: string;
  url: string;
  payload: ImportWebhookPayload;
  /** The receiver's HTTP status; 0 when it could not be reached. */
  responseStatus: number;
  error?: string;
}

const DELIVERY_TIMEOUT_MS = 10_000;

/** Sends import events to the configured URL, one at a time so they arrive in order. */
export class ImportWebhooks {
  #url: string | undefined;
  #queue: Promise<void> = Promise.resolve();
  readonly #deliveries: ImportWebhookDelivery[] = [];

  /** `clock` times a delivery out (the emulator's clock's waits). */
  constructor(
    private readonly clock: TransportClock,
    url?: string,
  ) {
    this.#url = url;
  }

  /** Where deliveries go; undefined turns them off. */
  setUrl(url: string | undefined): void {
    this.#url = url;
  }

  get url(): string | undefined {
    return this.#url;
  }

  /** Queues a delivery when a URL is configured. */
  deliver(payload: ImportWebhookPayload): void {
    const url = this.#url;
    if (!url) return;
    this.#queue = this.#queue.then(() => this.#send(url, payload));
  }

  /** Resolves when every queued delivery has been attempted. */
  idle(): Promise<void> {
    return this.#queue;
  }

  /** Deliveries attempted so far, oldest first. */
  deliveries(): ImportWebhookDelivery[] {
    return [...this.#deliveries];
  }

  clear(): void {
    this.#deliveries.length = 0;
  }

  async #send(url: string, payload: ImportWebhookPayload): Promise<void> {
    const id = randomUUID();
    const delivery: ImportWebhookDelivery = { id, url, payload, responseStatus: 0 };
    // AbortSignal.timeout's own reason, on the emulator's clock.
    const timeout = new AbortController();
    const cancelTimeout = timerOn(this.clock, DELIVERY_TIMEOUT_MS, () =>
      timeout.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    );
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Service-Hookshot/emulator",
          "x-service-event": "repository_import",
          "x-service-delivery": id,
        },
        body: JSON.stringify(payload),
        signal: timeout.signal,
      });
      delivery.responseStatus = response.status;
      await response.body?.cancel();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    } finally {
      cancelTimeout();
    }
    this.#deliveries.push(delivery);
  }
}
