import { GoneError, NotFoundError, RetiredEndpointError } from "./errors.js";
import { followImport, type FollowImportOptions, type ImportUpdate } from "./import-follower.js";
import { parseRequest, parseResponse } from "./schema-validation.js";
import {
  SOURCE_IMPORTS_RETIRED_AT,
  chooseProjectParams,
  getCommitAuthorsParams,
  importAuthor,
  importAuthorList,
  importLargeFileList,
  importRepoParams,
  mapCommitAuthorParams,
  setLfsPreferenceParams,
  sourceImport,
  startImportParams,
  updateImportParams,
  type ChooseProjectParams,
  type GetCommitAuthorsParams,
  type ImportAuthor,
  type ImportLargeFile,
  type ImportRepoParams,
  type MapCommitAuthorParams,
  type SetLfsPreferenceParams,
  type SourceImport,
  type StartImportParams,
  type UpdateImportParams,
} from "./schemas/source-imports.js";
import type { HttpMethod, RouteRequest, Transport } from "./transport.js";

export interface ImportCallOptions {
  signal?: AbortSignal;
}

const ROUTES = {
  import: "/repos/{owner}/{repo}/import",
  authors: "/repos/{owner}/{repo}/import/authors",
  author: "/repos/{owner}/{repo}/import/authors/{author_id}",
  largeFiles: "/repos/{owner}/{repo}/import/large_files",
  lfs: "/repos/{owner}/{repo}/import/lfs",
} as const;

/** Stable code of the deprecation warning the source import methods emit (once per process). */
export const SOURCE_IMPORTS_WARNING_CODE = "SHIPLOG_SOURCE_IMPORTS_RETIRED";

let warned = false;

/** Emits the retirement notice once per process: the endpoints closed on 2024-04-12. */
function warnRetired(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `The service's source import endpoints were retired and closed at ${SOURCE_IMPORTS_RETIRED_AT} (2024-04-12 00:00 UTC); ` +
      "calls succeed only against a service that still runs them (an emulator set before the cutoff).",
    { type: "DeprecationWarning", code: SOURCE_IMPORTS_WARNING_CODE },
  );
}

/**
 * Source imports (spec 4.4b, 2.9, 3.1): a retired API, kept for services that still answer it.
 * Every method emits a DeprecationWarning once per process, and a 410 answer becomes `RetiredEndpointError`.
 * Only a personal access token (classic) is accepted (5.1): a client told another token type refuses locally.
 */
export class SourceImportsApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** View the progress of the repository's import (200 import; 404 when there is none). */
  async getImportStatus(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `GET ${ROUTES.import}`;
    const { owner, repo } = parseRequest(importRepoParams, params, operation);
    const data = await this.#send({ method: "GET", route: ROUTES.import, params: { owner, repo }, signal: options.signal });
    return parseResponse(sourceImport, data, operation);
  }

  /**
   * Start an import into the repository (201). Without `vcs` the importer first detects the version-control
   * type. Not retried automatically: a repeated start meets the import the first one created.
   */
  async startImport(params: StartImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `PUT ${ROUTES.import}`;
    const { owner, repo, ...body } = parseRequest(startImportParams, params, operation);
    const data = await this.#send({
      method: "PUT",
      route: ROUTES.import,
      params: { owner, repo },
      body,
      signal: options.signal,
      safeToRetry: false,
    });
    return parseResponse(sourceImport, data, operation);
  }

  /**
   * Update the import: credentials (after `auth_failed` or `detection_needs_auth`), a project choice (after
   * `detection_found_multiple`), or nothing at all, which restarts the import.
   */
  async updateImport(params: UpdateImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `PATCH ${ROUTES.import}`;
    const { owner, repo, ...body } = parseRequest(updateImportParams, params, operation);
    const data = await this.#send({ method: "PATCH", route: ROUTES.import, params: { owner, repo }, body, signal: options.signal });
    return parseResponse(sourceImport, data, operation);
  }

  /** Stop and remove the import (204). */
  async cancelImport(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<void> {
    const operation = `DELETE ${ROUTES.import}`;
    const { owner, repo } = parseRequest(importRepoParams, params, operation);
    await this.#send({ method: "DELETE", route: ROUTES.import, params: { owner, repo }, signal: options.signal });
  }

  /** The commit authors the importer found; `since` keeps only authors with a greater id. */
  async getCommitAuthors(params: GetCommitAuthorsParams, options: ImportCallOptions = {}): Promise<ImportAuthor[]> {
    const operation = `GET ${ROUTES.authors}`;
    const { owner, repo, since } = parseRequest(getCommitAuthorsParams, params, operation);
    const data = await this.#send({ method: "GET", route: ROUTES.authors, params: { owner, repo }, query: { since }, signal: options.signal });
    return parseResponse(importAuthorList, data, operation);
  }

  /** Map a commit author to a name and email; possible until new commits are pushed to the repository. */
  async mapCommitAuthor(params: MapCommitAuthorParams, options: ImportCallOptions = {}): Promise<ImportAuthor> {
    const operation = `PATCH ${ROUTES.author}`;
    const { owner, repo, author_id, ...body } = parseRequest(mapCommitAuthorParams, params, operation);
    const data = await this.#send({
      method: "PATCH",
      route: ROUTES.author,
      params: { owner, repo, author_id },
      body,
      signal: options.signal,
      safeToRetry: true,
    });
    return parseResponse(importAuthor, data, operation);
  }

  /** Files over 100MB the importing step found. */
  async getLargeFiles(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<ImportLargeFile[]> {
    const operation = `GET ${ROUTES.largeFiles}`;
    const { owner, repo } = parseRequest(importRepoParams, params, operation);
    const data = await this.#send({ method: "GET", route: ROUTES.largeFiles, params: { owner, repo }, signal: options.signal });
    return parseResponse(importLargeFileList, data, operation);
  }

  /** Keep large files with Git LFS (`opt_in`) or remove them (`opt_out`); `use_lfs` is `undecided` until then. */
  async setLfsPreference(params: SetLfsPreferenceParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `PATCH ${ROUTES.lfs}`;
    const { owner, repo, ...body } = parseRequest(setLfsPreferenceParams, params, operation);
    const data = await this.#send({
      method: "PATCH",
      route: ROUTES.lfs,
      params: { owner, repo },
      body,
      signal: options.signal,
      safeToRetry: true,
    });
    return parseResponse(sourceImport, data, operation);
  }

  /** Settles `detection_found_multiple` by sending back one of the import's `project_choices`. */
  async chooseProject(params: ChooseProjectParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `PATCH ${ROUTES.import}`;
    const { owner, repo, choice } = parseRequest(chooseProjectParams, params, operation);
    const { vcs, tfvc_project, human_name } = choice;
    return this.updateImport(
      { owner, repo, vcs: vcs as UpdateImportParams["vcs"], tfvc_project, human_name },
      options,
    );
  }

  /**
   * Settles `detection_found_nothing`: cancels the import, then starts a new one with the corrected URL
   * (the table of spec 3.1: DELETE import, then PUT import).
   */
  async restartWithUrl(params: StartImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const operation = `PUT ${ROUTES.import}`;
    const checked = parseRequest(startImportParams, params, operation);
    try {
      await this.cancelImport({ owner: checked.owner, repo: checked.repo }, options);
    } catch (error) {
      // Already gone (cancelled elsewhere, or a retried call): the new import can start all the same.
      if (!(error instanceof NotFoundError)) throw error;
    }
    return this.startImport(checked, options);
  }

  /**
   * Polls the import until it is `complete` or in a problem state, yielding each change with its progress
   * and, for a problem state, the step that settles it. See `followImport`.
   */
  follow(params: ImportRepoParams, options: FollowImportOptions = {}): AsyncGenerator<ImportUpdate, void, undefined> {
    return followImport(this, params, options);
  }

  async #send(request: RouteRequest & { method: HttpMethod }): Promise<unknown> {
    warnRetired();
    const operation = `${request.method} ${request.route}`;
    try {
      return (await this.#transport.request(request)).data;
    } catch (error) {
      if (error instanceof GoneError) {
        throw new RetiredEndpointError(
          {
            status: error.status,
            method: error.method,
            route: error.route,
            serviceMessage: error.serviceMessage,
            documentationUrl: error.documentationUrl,
            acceptedPermissions: [...error.acceptedPermissions],
            requestId: error.requestId,
            body: error.body,
          },
          SOURCE_IMPORTS_RETIRED_AT,
          "The source import endpoints",
        );
      }
      throw error;
    }
  }
}
