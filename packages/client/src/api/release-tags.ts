// The tags of a release: the names given, plus the floating major and minor tags derived from a version
// (v1.4.0 also moves v1 and v1.4), each made as an annotated tag. Shared by the action and `shiplog tag create`.
import type { CallOptions } from "../endpoints/call-options.js";
import type { AnnotatedTagResult, GitApi } from "./git.js";
import type { IfTagExists, TaggableObjectType, Tagger } from "../model/git.js";

/** Which floating tags a version tag brings along: none, `v1`, or `v1` and `v1.4`. */
export const DERIVED_TAGS = ["none", "major", "major-minor"] as const;
export type DerivedTags = (typeof DERIVED_TAGS)[number];

/** A release version: optional `v`, MAJOR.MINOR.PATCH, no pre-release or build part (those never move `v1`). */
const RELEASE_VERSION = /^(v?)(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** The floating tags of one version tag: `v1.4.0` gives `v1` (major) and `v1.4` (major-minor); others none. */
export function derivedTagNames(tag: string, derive: DerivedTags): string[] {
  const match = RELEASE_VERSION.exec(tag);
  if (!match || derive === "none") return [];
  const [, prefix, major, minor] = match;
  return derive === "major" ? [`${prefix}${major}`] : [`${prefix}${major}`, `${prefix}${major}.${minor}`];
}

/** One tag of a release, and whether it floats (derived tags always move, whatever `if_exists` says). */
export interface ReleaseTag {
  tag: string;
  /** The version tag this one was derived from. */
  derivedFrom?: string;
  ifExists: IfTagExists;
}

/**
 * The tags to make, in order: the given names (duplicates dropped), then the derived ones. Throws a plain Error
 * naming both versions when two of them would move the same floating tag.
 */
export function releaseTags(tags: readonly string[], derive: DerivedTags, ifExists: IfTagExists): ReleaseTag[] {
  const given = [...new Set(tags)];
  const out: ReleaseTag[] = given.map((tag) => ({ tag, ifExists }));
  const derived = new Map<string, string>();
  for (const version of given) {
    for (const name of derivedTagNames(version, derive)) {
      if (given.includes(name)) continue;
      const other = derived.get(name);
      if (other !== undefined) throw new Error(`${name} would be derived from both ${other} and ${version}: give one version`);
      derived.set(name, version);
    }
  }
  for (const [tag, from] of derived) out.push({ tag, derivedFrom: from, ifExists: "update" });
  return out;
}

/** What a release asks for; `message` defaults to each tag's own name. */
export interface CreateReleaseTagsParams {
  owner: string;
  repo: string;
  tags: readonly ReleaseTag[];
  object: string;
  type: TaggableObjectType;
  message?: string;
  tagger?: Tagger;
}

/** One tag's result; after a failure the later tags are `not-attempted` (a floating tag never moves past a failed version). */
export type ReleaseTagOutcome =
  | (ReleaseTag & { outcome: AnnotatedTagResult["outcome"]; result: AnnotatedTagResult })
  | (ReleaseTag & { outcome: "failed"; error: unknown })
  | (ReleaseTag & { outcome: "not-attempted" });

/** Makes the tags one after another, in the order given; stops at the first failure. */
export async function createReleaseTags(
  git: GitApi,
  params: CreateReleaseTagsParams,
  options: CallOptions = {},
): Promise<ReleaseTagOutcome[]> {
  const results: ReleaseTagOutcome[] = [];
  let failed = false;
  for (const entry of params.tags) {
    if (failed) {
      results.push({ ...entry, outcome: "not-attempted" });
      continue;
    }
    try {
      const result = await git.createAnnotatedTag(
        {
          owner: params.owner,
          repo: params.repo,
          tag: entry.tag,
          message: params.message ?? entry.tag,
          object: params.object,
          type: params.type,
          ...(params.tagger && { tagger: params.tagger }),
          if_exists: entry.ifExists,
        },
        options,
      );
      results.push({ ...entry, outcome: result.outcome, result });
    } catch (error) {
      failed = true;
      results.push({ ...entry, outcome: "failed", error });
    }
  }
  return results;
}
