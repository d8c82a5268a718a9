import type { CallOptions } from "./artifact-metadata.js";
import { NotFoundError, ServiceValidationError, TagExistsError, type ExistingTag } from "./errors.js";
import {
  createAnnotatedTagParams,
  createRefParams,
  createTagParams,
  getRefParams,
  getTagParams,
  gitRef,
  gitTag,
  type CreateAnnotatedTagParams,
  type CreateRefParams,
  type CreateTagParams,
  type GetRefParams,
  type GetTagParams,
  type GitRef,
  type GitTag,
} from "./schemas/git.js";
import { parseRequest, parseResponse } from "./schema-validation.js";
import type { Transport } from "./transport.js";

const ROUTES = {
  tags: "/repos/{owner}/{repo}/git/tags",
  tag: "/repos/{owner}/{repo}/git/tags/{tag_sha}",
  refs: "/repos/{owner}/{repo}/git/refs",
  ref: "/repos/{owner}/{repo}/git/ref/{ref}",
} as const;

/** What `createAnnotatedTag` did: made the tag, or found the same tag already there. */
export interface AnnotatedTagResult {
  outcome: "created" | "skipped";
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
    // The ref keeps its slashes in the path (`git/ref/tags/v1.0.0`), so each segment is encoded on its own.
    const url = this.#transport.buildUrl(ROUTES.ref.replace("{ref}", ref.split("/").map(encodeURIComponent).join("/")), { owner, repo });
    const response = await this.#transport.request({ method: "GET", route: ROUTES.ref, url, signal: options.signal });
    return parseResponse(gitRef, response.data, operation);
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
   * TagExistsError says where.
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
    wanted: { owner: string; repo: string; tag: string; object: string; type: string; message: string },
    ifExists: "skip" | "fail",
    options: CallOptions,
  ): Promise<AnnotatedTagResult> {
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

/** Git stores the message with a trailing newline; a request may omit it. */
function normaliseMessage(message: string): string {
  return message.replace(/\n+$/, "");
}

function excerpt(message: string): string {
  const clean = normaliseMessage(message);
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
