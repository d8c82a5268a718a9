import {
  SOURCE_IMPORTS_RETIRED_AT,
  type ImportProblemStatus,
  type LfsPreference,
  type MapCommitAuthorBody,
  type StartImportBody,
  type UpdateImportBody,
} from "@shiplog/client";
import type { Clock } from "./clock.js";
import { ImportWebhooks } from "./import-webhooks.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import {
  advance,
  createImport,
  failureApplies,
  defaultSource,
  isWorking,
  renderImport,
  updateImport,
  type ImportState,
  type InjectedFailure,
  type SimulatedAuthor,
  type SimulatedSource,
  type SimulatedStatus,
  type UpdateRefusal,
} from "./simulated-importer.js";

/** Where an import lives: its repository, and the base URL its `url` fields point at. */
export interface StoredImport {
  owner: string;
  repo: string;
  repositoryId: number;
  baseUrl: string;
  state: ImportState;
}

const key = (owner: string, repo: string) => `${owner.toLowerCase()}/${repo.toLowerCase()}`;

/**
 * Source imports of the emulator (spec 4.4b, 3.1): the imports per repository, the simulated importer's
 * sources and injected failures, maintenance mode, the retirement date, and webhook deliveries.
 * Tests steer it through `emulator.imports`.
 */
export class SourceImportStore {
  readonly #clock: Clock;
  readonly #imports = new Map<string, StoredImport>();
  readonly #failures = new Map<string, InjectedFailure[]>();
  readonly #sources = new Map<string, Partial<SimulatedSource>>();
  #nextAuthorId = 2_268_557;
  #maintenance = false;
  #stopTimer: (() => void) | undefined;
  readonly webhooks: ImportWebhooks;

  constructor(clock: Clock, options: { webhookUrl?: string } = {}) {
    this.#clock = clock;
    this.webhooks = new ImportWebhooks(clock, options.webhookUrl);
  }

  /** Whether the endpoints are closed at the emulator's current time (from 2024-04-12 00:00 UTC). */
  get retired(): boolean {
    return this.#clock.now() >= Date.parse(SOURCE_IMPORTS_RETIRED_AT);
  }

  /** Maintenance mode: every source import endpoint answers 503. */
  setMaintenance(on: boolean): void {
    this.#maintenance = on;
  }

  get maintenance(): boolean {
    return this.#maintenance;
  }

  /** Defines what the importer finds at a URL (fields left out keep the URL's default source). */
  defineSource(vcsUrl: string, source: Partial<SimulatedSource>): void {
    this.#sources.set(vcsUrl, source);
  }

  /** The source at a URL: the defined one over the URL's default. */
  sourceFor(vcsUrl: string): SimulatedSource {
    return { ...defaultSource(vcsUrl), ...this.#sources.get(vcsUrl) };
  }

  /**
   * Makes the importer of this repository fail into `status` at the next step where that can happen
   * (the detection failures while detecting, `auth_failed` and `error` in any working state). Can be
   * set before the import starts. Several queue up in order.
   */
  failNext(owner: string, repo: string, status: ImportProblemStatus, options: { message?: string } = {}): void {
    const list = this.#failures.get(key(owner, repo)) ?? [];
    list.push({ status, ...(options.message !== undefined ? { message: options.message } : {}) });
    this.#failures.set(key(owner, repo), list);
  }

  /** Forgets every import, source, injected failure and delivery, and leaves maintenance (between tests). */
  reset(): void {
    this.#imports.clear();
    this.#failures.clear();
    this.#sources.clear();
    this.#maintenance = false;
    this.webhooks.clear();
  }

  get(owner: string, repo: string): StoredImport | undefined {
    return this.#imports.get(key(owner, repo));
  }

  /** The import's wire form (spec 2.9). */
  render(stored: StoredImport): Record<string, unknown> {
    const repository = `${stored.baseUrl}/repos/${stored.owner}/${stored.repo}`;
    return renderImport(stored.state, {
      api: `${repository}/import`,
      web: `${stored.baseUrl}/${stored.owner}/${stored.repo}/import`,
      repository,
    });
  }

  /** PUT import: a new import in `detecting` or `importing`. */
  start(target: { owner: string; repo: string; repositoryId: number; baseUrl: string }, body: StartImportBody): StoredImport {
    const stored: StoredImport = { ...target, state: createImport(body, this.sourceFor(body.vcs_url)) };
    this.#imports.set(key(target.owner, target.repo), stored);
    this.#changed(stored, null);
    return stored;
  }

  /** PATCH import: credentials, a project choice, or a restart. */
  update(stored: StoredImport, body: UpdateImportBody): { ok: true } | { ok: false; refusal: UpdateRefusal } {
    const previous = stored.state.status;
    const result = updateImport(stored.state, body, this.sourceFor(stored.state.vcs_url));
    if (!result.ok) return result;
    stored.state = result.state;
    this.#changed(stored, previous, true);
    return { ok: true };
  }

  /** DELETE import: the import stops and is gone. */
  cancel(stored: StoredImport): void {
    this.#imports.delete(key(stored.owner, stored.repo));
    this.webhooks.deliver({ status: "cancelled", previous_status: stored.state.status, repository: repositoryOf(stored), import: null });
  }

  /** PATCH import/authors/{id}: maps an author; undefined when the import has no such author. */
  mapAuthor(stored: StoredImport, authorId: number, body: MapCommitAuthorBody): SimulatedAuthor | undefined {
    const index = stored.state.authors.findIndex((a) => a.id === authorId);
    const author = stored.state.authors[index];
    if (!author) return undefined;
    const mapped = {
      ...author,
      ...(body.email !== undefined ? { email: body.email } : {}),
      ...(body.name !== undefined ? { name: body.name } : {}),
    };
    stored.state = { ...stored.state, authors: stored.state.authors.map((a, i) => (i === index ? mapped : a)) };
    return mapped;
  }

  /** PATCH import/lfs. */
  setLfs(stored: StoredImport, preference: Exclude<LfsPreference, "undecided">): void {
    stored.state = { ...stored.state, use_lfs: preference };
  }

  /** One step of the importer for this repository's import; returns the status after it. */
  step(owner: string, repo: string): SimulatedStatus {
    const stored = this.get(owner, repo);
    if (!stored)
      throw new EmulatorUsageError("imports.step", {
        argument: "repo",
        rule: "has an import",
        message: `${owner}/${repo} has no import (start one with PUT /repos/{owner}/{repo}/import)`,
      });
    return this.#step(stored);
  }

  /** Steps until the import is complete or in a problem state; returns that status. */
  runToCompletion(owner: string, repo: string, options: { maxSteps?: number } = {}): SimulatedStatus {
    const maxSteps = options.maxSteps ?? 100;
    for (let i = 0; i < maxSteps; i++) {
      const status = this.step(owner, repo);
      if (!isWorking(status)) return status;
    }
    throw new EmulatorUsageError("imports.runToCompletion", {
      argument: "options.maxSteps",
      rule: "the import finishes within maxSteps",
      message: `${maxSteps} steps were not enough: the import in ${owner}/${repo} is still working`,
    });
  }

  /** Advances every working import on a timer (for the demo); tests step explicitly instead. */
  startTimer(intervalMs: number): void {
    this.stopTimer();
    this.#stopTimer = this.#clock.every(intervalMs, () => {
      for (const stored of this.#imports.values()) if (isWorking(stored.state.status)) this.#step(stored);
      return true;
    });
  }

  stopTimer(): void {
    this.#stopTimer?.();
    this.#stopTimer = undefined;
  }

  #step(stored: StoredImport): SimulatedStatus {
    const failures = this.#failures.get(key(stored.owner, stored.repo)) ?? [];
    const previous = stored.state.status;
    const source = this.sourceFor(stored.state.vcs_url);
    // The first queued failure that can happen now is the one used.
    const index = failures.findIndex((f) => failureApplies(previous, f));
    const result = advance(stored.state, source, failures[index], () => this.#nextAuthorId++);
    if (result.usedFailure) failures.splice(index, 1);
    stored.state = result.state;
    this.#changed(stored, previous);
    return stored.state.status;
  }

  /** Webhook on a status change (or on every update when `always`: a restart may keep the status). */
  #changed(stored: StoredImport, previous: SimulatedStatus | null, always = false): void {
    if (!always && previous === stored.state.status) return;
    this.webhooks.deliver({
      status: stored.state.status,
      previous_status: previous,
      repository: repositoryOf(stored),
      import: this.render(stored),
    });
  }
}

function repositoryOf(stored: StoredImport) {
  return { id: stored.repositoryId, name: stored.repo, full_name: `${stored.owner}/${stored.repo}`, owner: { login: stored.owner } };
}
