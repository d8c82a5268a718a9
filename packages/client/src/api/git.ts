import { EndpointCaller } from "../endpoints/endpoint-call.js";
import type { CallOptions } from "../endpoints/call-options.js";
import { NotFoundError, ServiceValidationError, TagExistsError, type ExistingTag } from "../errors/errors.js";
import { createAnnotatedTagParams } from "../schemas/git.js";
import type {
  CreateAnnotatedTagParams,
  CreateRefParams,
  CreateTagParams,
  DeleteRefParams,
  GetRefParams,
  GetTagParams,
  GitRef,
  GitTag,
  ListMatchingRefsParams,
  UpdateRefParams,
} from "../model/git.js";
import { parseRequest } from "../schemas/validation.js";
import type { Transport } from "../transport/transport.js";

/** What `createAnnotatedTag` did: made the tag, found the same tag already there, or moved an existing one. */
export interface AnnotatedTagResult {
  outcome: "created" | "skipped" | "updated";
  tag: GitTag;
  ref: GitRef;
}

/** Git tag objects and references (spec 4.2). */
export class GitApi {
  readonly #calls: EndpointCaller;

  constructor(transport: Transport) {
    this.#calls = new EndpointCaller(transport);
  }

  /** Creates a tag object. It is not a tag yet: only a `refs/tags/<tag>` reference to it makes one. */
  createTag(params: CreateTagParams, options: CallOptions = {}): Promise<GitTag> {
    return this.#calls.call("git/create-tag", params, options);
  }

  /** Reads a tag object by its sha. */
  getTag(params: GetTagParams, options: CallOptions = {}): Promise<GitTag> {
    return this.#calls.call("git/get-tag", params, options);
  }

  /** Creates a reference (`refs/tags/v1.0.0`); the service answers 422 when it already exists. Not retried. */
  createRef(params: CreateRefParams, options: CallOptions = {}): Promise<GitRef> {
    return this.#calls.call("git/create-ref", params, options);
  }

  /** Reads one reference by its name without `refs/` (`tags/v1.0.0`, slashes kept); NotFoundError when absent. */
  getRef(params: GetRefParams, options: CallOptions = {}): Promise<GitRef> {
    return this.#calls.call("git/get-ref", params, options);
  }

  /**
   * Lists the references whose names start with `ref` (without `refs/`): `tags/v1` gives v1, v1.4 and v10;
   * `tags` gives every tag.
   */
  listMatchingRefs(params: ListMatchingRefsParams, options: CallOptions = {}): Promise<GitRef[]> {
    return this.#calls.call("git/list-matching-refs", params, options);
  }

  /**
   * Points a reference (without `refs/`: `tags/v1`) at `sha`. Without `force` the service accepts only a
   * fast-forward; a refusal, a missing reference or an unknown object is a ServiceValidationError (422).
   */
  updateRef(params: UpdateRefParams, options: CallOptions = {}): Promise<GitRef> {
    return this.#calls.call("git/update-ref", params, options);
  }

  /** Deletes a reference (without `refs/`: `tags/v1`); the service answers 422 when it does not exist. Not retried. */
  deleteRef(params: DeleteRefParams, options: CallOptions = {}): Promise<void> {
    return this.#calls.call("git/delete-ref", params, options);
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
      const same =
        ref.object.type === "tag" &&
        isSameTag(await this.getTag({ owner: wanted.owner, repo: wanted.repo, tag_sha: ref.object.sha }, options), wanted);
      if (same) return { outcome: "skipped", tag: same, ref };
      const tag = await this.createTag(wanted, options);
      const moved = await this.updateRef(
        { owner: wanted.owner, repo: wanted.repo, ref: `tags/${wanted.tag}`, sha: tag.sha, force: true },
        options,
      );
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
      throw new TagExistsError(
        found,
        `${place} already exists and points at tag object ${ref.object.sha}: ${differences.join("; ")}`,
        false,
      );
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
