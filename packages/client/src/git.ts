import type { CallOptions } from "./artifact-metadata.js";
import { NotFoundError, ServiceValidationError, TagExistsError, type ExistingTag } from "./errors.js";
import {
  createAnnotatedTagParams,
  createRefParams,
  createTagParams,
  deleteRefParams,
  getRefParams,
  getTagParams,
  gitRef,
  listMatchingRefsParams,
  updateRefParams,
  gitTag,
  type CreateAnnotatedTagParams,
  type CreateRefParams,
  type CreateTagParams,
  type DeleteRefParams,
  type GetRefParams,
  type GetTagParams,
  type GitRef,
  type GitTag,
  type ListMatchingRefsParams,
  type UpdateRefParams,
} from "./schemas/git.js";
import { z } from "zod";
import { parseRequest, parseResponse } from "./schema-validation.js";
import type { Transport } from "./transport.js";

const ROUTES = {
  tags: "/repos/{owner}/{repo}/git/tags",
  tag: "/repos/{owner}/{repo}/git/tags/{tag_sha}",
  refs: "/repos/{owner}/{repo}/git/refs",
  ref: "/repos/{owner}/{repo}/git/ref/{ref}",
  updateRef: "/repos/{owner}/{repo}/git/refs/{ref}",
  matchingRefs: "/repos/{owner}/{repo}/git/matching-refs/{ref}",
} as const;

/** The ref keeps its slashes in the path (`git/ref/tags/v1.0.0`), so each segment is encoded on its own. */
function refPath(route: string, ref: string): string {
  return route.replace("{ref}", ref.split("/").map(encodeURIComponent).join("/"));
}

/** What `createAnnotatedTag` did: made the tag, found the same tag already there, or moved an existing one. */
export interface AnnotatedTagResult {
  outcome: "created" | "skipped" | "updated";
  tag: GitTag;
  ref: GitRef;
}

/** Git tag objects and references (spec 4.2). */
export class GitApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a tag object. It is not a tag yet: only a `refs/tags/<tag>` reference to it makes one. */
  async createTag(params: CreateTagParams, options: CallOptions = {}): Promise<GitTag> {
    const operation = `POST ${ROUTES.tags}`;
    const { owner, repo, ...body } = parseRequest(createTagParams, params, operation);
    const response = await this.#transport.request({
      method: "POST",
      route: ROUTES.tags,
      params: { owner, repo },
      body,
      signal: options.signal,
      // Objects are content-addressed: a repeat makes the same object (or an unreferenced twin), never a second tag.
      safeToRetry: true,
    });
    return parseResponse(gitTag, response.data, operation);
  }

  /** Reads a tag object by its sha. */
  async getTag(params: GetTagParams, options: CallOptions = {}): Promise<GitTag> {
    const operation = `GET ${ROUTES.tag}`;
    const { owner, repo, tag_sha } = parseRequest(getTagParams, params, operation);
    const response = await this.#transport.request({ method: "GET", route: ROUTES.tag, params: { owner, repo, tag_sha }, signal: options.signal });
    return parseResponse(gitTag, response.data, operation);
  }

  /** Creates a reference (`refs/tags/v1.0.0`); the service answers 422 when it already exists. */
  async createRef(params: CreateRefParams, options: CallOptions = {}): Promise<GitRef> {
    const operation = `POST ${ROUTES.refs}`;
    const { owner, repo, ...body } = parseRequest(createRefParams, params, operation);
    // Not retried: a lost answer followed by a retry would report "already exists" for our own reference.
    const response = await this.#transport.request({ method: "POST", route: ROUTES.refs, params: { owner, repo }, body, signal: options.signal });
    return parseResponse(gitRef, response.data, operation);
  }

  /** Reads one reference by its name without `refs/` (`tags/v1.0.0`); NotFoundError when absent. */
  async getRef(params: GetRefParams, options: CallOptions = {}): Promise<GitRef> {
    const operation = `GET ${ROUTES.ref}`;
    const { owner, repo, ref } = parseRequest(getRefParams, params, operation);
    const url = this.#transport.buildUrl(refPath(ROUTES.ref, ref), { owner, repo });
    const response = await this.#transport.request({ method: "GET", route: ROUTES.ref, url, signal: options.signal });
    return parseResponse(gitRef, response.data, operation);
  }

  /**
   * Lists the references whose names start with `ref` (without `refs/`): `tags/v1` gives v1, v1.4 and v10;
   * `tags` gives every tag.
   */
  async listMatchingRefs(params: ListMatchingRefsParams, options: CallOptions = {}): Promise<GitRef[]> {
    const operation = `GET ${ROUTES.matchingRefs}`;
    const { owner, repo, ref } = parseRequest(listMatchingRefsParams, params, operation);
    const url = this.#transport.buildUrl(refPath(ROUTES.matchingRefs, ref), { owner, repo });
    const response = await this.#transport.request({ method: "GET", route: ROUTES.matchingRefs, url, signal: options.signal });
    return parseResponse(z.array(gitRef), response.data, operation);
  }

  /**
   * Points a reference (without `refs/`: `tags/v1`) at `sha`. Without `force` the service accepts only a
   * fast-forward; a refusal, a missing reference or an unknown object is a ServiceValidationError (422).
   */
  async updateRef(params: UpdateRefParams, options: CallOptions = {}): Promise<GitRef> {
    const operation = `PATCH ${ROUTES.updateRef}`;
    const { owner, repo, ref, ...body } = parseRequest(updateRefParams, params, operation);
    const url = this.#transport.buildUrl(refPath(ROUTES.updateRef, ref), { owner, repo });
    // Setting a reference to a given sha is idempotent: a repeat after a lost answer changes nothing.
    const response = await this.#transport.request({ method: "PATCH", route: ROUTES.updateRef, url, body, signal: options.signal, safeToRetry: true });
    return parseResponse(gitRef, response.data, operation);
  }

  /** Deletes a reference (without `refs/`: `tags/v1`); the service answers 422 when it does not exist. */
  async deleteRef(params: DeleteRefParams, options: CallOptions = {}): Promise<void> {
    const operation = `DELETE ${ROUTES.updateRef}`;
    const { owner, repo, ref } = parseRequest(deleteRefParams, params, operation);
    const url = this.#transport.buildUrl(refPath(ROUTES.updateRef, ref), { owner, repo });
    // Not retried: after a lost answer a retry would report "does not exist" for our own deletion.
    await this.#transport.request({ method: "DELETE", route: ROUTES.updateRef, url, signal: options.signal, safeToRetry: false });
  }

  /** Like getRef, but undefined when the reference does not exist. */
  async findRef(params: GetRefParams, options: CallOptions = {}): Promise<GitRef | undefined> {
    try {
      return await this.getRef(params, options);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Makes an annotated tag: the tag object, then `refs/tags/<tag>` pointing at the tag object (not at the
   * commit, which would make it lightweight). When the tag exists with the same object, type and message
   * the result is `skipped` (or TagExistsError under `if_exists: "fail"`); when it points elsewhere,
   * TagExistsError says where. Under `if_exists: "update"` a tag that differs is moved instead: a new tag
   * object, then the reference updated with force (`updated`); one that matches is still `skipped`.
   */
  async createAnnotatedTag(params: CreateAnnotatedTagParams, options: CallOptions = {}): Promise<AnnotatedTagResult> {
    const { if_exists, ...tagParams } = parseRequest(createAnnotatedTagParams, params, "createAnnotatedTag");
    const { owner, repo } = tagParams;
    const refName = `refs/tags/${tagParams.tag}`;

    const existing = await this.findRef({ owner, repo, ref: `tags/${tagParams.tag}` }, options);
    if (existing) return this.#existingTag(existing, tagParams, if_exists, options);

    const tag = await this.createTag(tagParams, options);
    try {
      const ref = await this.createRef({ owner, repo, ref: refName, sha: tag.sha }, options);
      return { outcome: "created", tag, ref };
    } catch (error) {
      // Someone (or a lost answer of ours) made the reference between the lookup and now: judge what is there.
      if (!(error instanceof ServiceValidationError)) throw error;
      const raced = await this.findRef({ owner, repo, ref: `tags/${tagParams.tag}` }, options);
      if (!raced) throw error;
      if (raced.object.sha === tag.sha) return { outcome: "created", tag, ref: raced };
      return this.#existingTag(raced, tagParams, if_exists, options);
    }
  }

  async #existingTag(
    ref: GitRef,
    wanted: CreateTagParams & { owner: string; repo: string; tag: string; object: string; type: GitTag["object"]["type"]; message: string },
    ifExists: "skip" | "fail" | "update",
    options: CallOptions,
  ): Promise<AnnotatedTagResult> {
    if (ifExists === "update") {
      const same = ref.object.type === "tag" && isSameTag(await this.getTag({ owner: wanted.owner, repo: wanted.repo, tag_sha: ref.object.sha }, options), wanted);
      if (same) return { outcome: "skipped", tag: same, ref };
      const tag = await this.createTag(wanted, options);
      const moved = await this.updateRef({ owner: wanted.owner, repo: wanted.repo, ref: `tags/${wanted.tag}`, sha: tag.sha, force: true }, options);
      return { outcome: "updated", tag, ref: moved };
    }
    const found: ExistingTag = { ref: ref.ref, refTargetType: ref.object.type, refTargetSha: ref.object.sha };
    const place = `${ref.ref} in ${wanted.owner}/${wanted.repo}`;
    if (ref.object.type !== "tag") {
      throw new TagExistsError(
        found,
        `${place} already exists as a lightweight tag pointing at ${ref.object.type} ${ref.object.sha}` +
          (ref.object.sha === wanted.object ? " (the same object, but not an annotated tag)" : `, not at ${wanted.type} ${wanted.object}`),
        false,
      );
    }
    const tag = await this.getTag({ owner: wanted.owner, repo: wanted.repo, tag_sha: ref.object.sha }, options);
    found.object = { type: tag.object.type, sha: tag.object.sha };
    found.message = tag.message;
    const differences: string[] = [];
    if (tag.object.sha !== wanted.object || tag.object.type !== wanted.type) {
      differences.push(`it tags ${tag.object.type} ${tag.object.sha}, not ${wanted.type} ${wanted.object}`);
    }
    if (normaliseMessage(tag.message) !== normaliseMessage(wanted.message)) {
      differences.push(`its message is ${JSON.stringify(excerpt(tag.message))}, not ${JSON.stringify(excerpt(wanted.message))}`);
    }
    if (differences.length > 0) {
      throw new TagExistsError(found, `${place} already exists and points at tag object ${ref.object.sha}: ${differences.join("; ")}`, false);
    }
    if (ifExists === "fail") {
      throw new TagExistsError(
        found,
        `${place} already exists (tag object ${ref.object.sha}, tagging ${tag.object.type} ${tag.object.sha} with the same message); if_exists is "fail"`,
        true,
      );
    }
    return { outcome: "skipped", tag, ref };
  }
}

/** The existing tag object when it tags the same object with the same message, else undefined. */
function isSameTag(tag: GitTag, wanted: { object: string; type: string; message: string }): GitTag | undefined {
  const same = tag.object.sha === wanted.object && tag.object.type === wanted.type;
  return same && normaliseMessage(tag.message) === normaliseMessage(wanted.message) ? tag : undefined;
}

/** Git stores the message with a trailing newline; a request may omit it. */
function normaliseMessage(message: string): string {
  return message.replace(/\n+$/, "");
}

function excerpt(message: string): string {
  const clean = normaliseMessage(message);
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
