import { EndpointCaller, operationName } from "../endpoints/endpoint-call.js";
import type { CallOptions } from "../endpoints/call-options.js";
import { ENDPOINTS } from "../endpoints/registry.js";
import { NotFoundError } from "../errors/errors.js";
import { followImport, type FollowImportOptions, type ImportUpdate } from "./import-follower.js";
import { parseRequest } from "../schemas/validation.js";
import { chooseProjectParams } from "../schemas/source-imports.js";
import type {
  ChooseProjectParams,
  GetCommitAuthorsParams,
  ImportAuthor,
  ImportLargeFile,
  ImportRepoParams,
  MapCommitAuthorParams,
  SetLfsPreferenceParams,
  SourceImport,
  StartImportParams,
  UpdateImportParams,
} from "../model/source-imports.js";
import type { Transport } from "../transport/transport.js";

/** Options of one source import call. */
export type ImportCallOptions = CallOptions;

/**
 * Source imports (spec 4.4b, 2.9, 3.1): a retired API, kept for services that still answer it.
 * Every method emits a DeprecationWarning once per process, and a 410 answer becomes `RetiredEndpointError`
 * (both from the endpoints' registry entries). Only a personal access token (classic) is accepted (5.1): a client
 * told another token type refuses locally.
 */
export class SourceImportsApi {
  readonly #calls: EndpointCaller;
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.#calls = new EndpointCaller(transport);
  }

  /** View the progress of the repository's import (200 import; 404 when there is none). */
  getImportStatus(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    return this.#calls.call("migrations/get-import-status", params, options);
  }

  /**
   * Start an import into the repository (201). Without `vcs` the importer first detects the version-control
   * type. Not retried automatically: a repeated start meets the import the first one created.
   */
  startImport(params: StartImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    return this.#calls.call("migrations/start-import", params, options);
  }

  /**
   * Update the import: credentials (after `auth_failed` or `detection_needs_auth`), a project choice (after
   * `detection_found_multiple`), or nothing at all, which restarts the import.
   */
  updateImport(params: UpdateImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    return this.#calls.call("migrations/update-import", params, options);
  }

  /** Stop and remove the import (204). */
  cancelImport(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<void> {
    return this.#calls.call("migrations/cancel-import", params, options);
  }

  /** The commit authors the importer found; `since` keeps only authors with a greater id. */
  getCommitAuthors(params: GetCommitAuthorsParams, options: ImportCallOptions = {}): Promise<ImportAuthor[]> {
    return this.#calls.call("migrations/get-commit-authors", params, options);
  }

  /** Map a commit author to a name and email; possible until new commits are pushed to the repository. */
  mapCommitAuthor(params: MapCommitAuthorParams, options: ImportCallOptions = {}): Promise<ImportAuthor> {
    return this.#calls.call("migrations/map-commit-author", params, options);
  }

  /** Files over 100MB the importing step found. */
  getLargeFiles(params: ImportRepoParams, options: ImportCallOptions = {}): Promise<ImportLargeFile[]> {
    return this.#calls.call("migrations/get-large-files", params, options);
  }

  /** Keep large files with Git LFS (`opt_in`) or remove them (`opt_out`); `use_lfs` is `undecided` until then. */
  setLfsPreference(params: SetLfsPreferenceParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    return this.#calls.call("migrations/set-lfs-preference", params, options);
  }

  /** Settles `detection_found_multiple` by sending back one of the import's `project_choices`. */
  async chooseProject(params: ChooseProjectParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const { owner, repo, choice } = parseRequest(chooseProjectParams, params, operationName(ENDPOINTS["migrations/update-import"]));
    const { vcs, tfvc_project, human_name } = choice;
    return this.updateImport({ owner, repo, vcs: vcs as UpdateImportParams["vcs"], tfvc_project, human_name }, options);
  }

  /**
   * Settles `detection_found_nothing`: cancels the import, then starts a new one with the corrected URL
   * (the table of spec 3.1: DELETE import, then PUT import).
   */
  async restartWithUrl(params: StartImportParams, options: ImportCallOptions = {}): Promise<SourceImport> {
    const checked = this.#calls.check("migrations/start-import", params);
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
    return followImport(this, params, { clock: this.#transport.clock, ...options });
  }
}
