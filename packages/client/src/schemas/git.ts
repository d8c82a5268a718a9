import { z } from "zod";
import { ownerName, repositoryName, timestamp } from "./common.js";
import { openEnum, type UnknownValue } from "./open-enum.js";
import { GIT_OBJECT_TYPES, TAGGABLE_OBJECT_TYPES, VERIFICATION_REASONS, IF_TAG_EXISTS } from "../model/values.js";
export { GIT_OBJECT_TYPES, TAGGABLE_OBJECT_TYPES, VERIFICATION_REASONS, IF_TAG_EXISTS } from "../model/values.js";

export const gitObjectType = z.enum(GIT_OBJECT_TYPES);
export type GitObjectType = z.infer<typeof gitObjectType>;

export const taggableObjectType = z.enum(TAGGABLE_OBJECT_TYPES);
export type TaggableObjectType = z.infer<typeof taggableObjectType>;

/** A non-PGP signature: `unknown_signature_` followed by the signature type (spec 2.4). */
export type UnknownSignatureReason = `unknown_signature_${string}`;
export type VerificationReason = (typeof VERIFICATION_REASONS)[number] | UnknownSignatureReason | UnknownValue;

export const verificationReason: z.ZodType<VerificationReason, string> = openEnum(VERIFICATION_REASONS);

/** A git object id: 40 lowercase hex digits (SHA-1) or, in a repository using SHA-256 object ids, 64. */
export const GIT_SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
export const gitSha = z
  .string()
  .regex(GIT_SHA_PATTERN, { message: "must be 40 (SHA-1) or 64 (SHA-256) lowercase hex digits (a git object id)" });

/**
 * Why git's check-ref-format would refuse a reference name, or undefined when it is valid.
 * `name` is the full name (`refs/tags/v1.0.0`); the rules are those of git-check-ref-format(1).
 */
export function refNameProblem(name: string): string | undefined {
  if (name === "") return "must not be empty";
  if (name === "@") return "must not be the single character @";
  if (name.startsWith("/") || name.endsWith("/")) return "must not begin or end with /";
  if (name.includes("//")) return "must not contain consecutive slashes";
  if (name.endsWith(".")) return "must not end with .";
  if (name.includes("..")) return "must not contain ..";
  if (name.includes("@{")) return "must not contain @{";
  // Git refuses bytes below 0o40 and DEL (check-ref-format); compared as characters, not by a regex of control codes.
  if ([...name].some((c) => c <= " " || c === "\x7f")) return "must not contain spaces or control characters";
  const forbidden = /[~^:?*[\\]/.exec(name);
  if (forbidden) return `must not contain ${forbidden[0]}`;
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return `component "${component}" must not begin with .`;
    if (component.endsWith(".lock")) return `component "${component}" must not end with .lock`;
  }
  return undefined;
}

/** A tag name: valid as `refs/tags/<name>` under git's check-ref-format rules. */
export const tagName = z
  .string()
  .min(1)
  .superRefine((name, ctx) => {
    const problem = refNameProblem(`refs/tags/${name}`);
    if (problem) ctx.addIssue({ code: "custom", message: `tag name ${problem}`, params: { rule: "git check-ref-format" } });
  });

/** A fully qualified reference: `refs/` and at least two slashes, valid under check-ref-format. */
export const fullRefName = z.string().superRefine((name, ctx) => {
  if (!name.startsWith("refs/") || name.split("/").length < 3) {
    ctx.addIssue({
      code: "custom",
      message: "must start with refs/ and contain at least two slashes (refs/tags/v1.0.0)",
      params: { rule: "refs/<kind>/<name>" },
    });
    return;
  }
  const problem = refNameProblem(name);
  if (problem) ctx.addIssue({ code: "custom", message: `reference name ${problem}`, params: { rule: "git check-ref-format" } });
});

/** A reference as the matching-ref lookup takes it: without `refs/` (`tags/v1.0.0`, `heads/main`). */
export const shortRefName = z.string().superRefine((name, ctx) => {
  if (name.startsWith("refs/")) {
    ctx.addIssue({ code: "custom", message: "give the reference without refs/ (tags/v1.0.0)", params: { rule: "no refs/ prefix" } });
    return;
  }
  const problem = refNameProblem(`refs/${name}`);
  if (problem) ctx.addIssue({ code: "custom", message: `reference name ${problem}`, params: { rule: "git check-ref-format" } });
});

/** Names and emails end up in the object's `tagger` line, where `<`, `>` and line breaks would corrupt it. */
const identPart = (what: string) =>
  z
    .string()
    .min(1)
    .regex(/^[^<>\n\r\0]*$/, { message: `${what} must not contain <, > or line breaks` });

/** An ISO 8601 timestamp with `Z` or an offset; the offset is kept in the tag object. */
export const isoDateTime = z.iso.datetime({
  offset: true,
  message: "must be an ISO 8601 timestamp, e.g. 2026-03-10T12:00:00Z or 2026-03-10T14:00:00+02:00",
});

export const tagger = z.strictObject({
  name: identPart("name"),
  email: identPart("email"),
  date: isoDateTime.optional(),
});
export type Tagger = z.infer<typeof tagger>;

// ---- requests -------------------------------------------------------------------------------

/** Body of POST /repos/{owner}/{repo}/git/tags. */
export const createTagBody = z.strictObject({
  tag: tagName,
  message: z.string(),
  object: gitSha,
  type: taggableObjectType,
  tagger: tagger.optional(),
});
export type CreateTagBody = z.infer<typeof createTagBody>;

/** Body of POST /repos/{owner}/{repo}/git/refs. */
export const createRefBody = z.strictObject({ ref: fullRefName, sha: gitSha });
export type CreateRefBody = z.infer<typeof createRefBody>;

/** Body of PATCH /repos/{owner}/{repo}/git/refs/{ref}: without `force` only a fast-forward is accepted. */
export const updateRefBody = z.strictObject({ sha: gitSha, force: z.boolean().optional() });
export type UpdateRefBody = z.infer<typeof updateRefBody>;

const repoParams = { owner: ownerName, repo: repositoryName };

export const createTagParams = createTagBody.extend(repoParams);
export type CreateTagParams = z.input<typeof createTagParams>;

export const getTagParams = z.strictObject({ ...repoParams, tag_sha: gitSha });
export type GetTagParams = z.input<typeof getTagParams>;

export const createRefParams = createRefBody.extend(repoParams);
export type CreateRefParams = z.input<typeof createRefParams>;

export const getRefParams = z.strictObject({ ...repoParams, ref: shortRefName });
export type GetRefParams = z.input<typeof getRefParams>;

export const updateRefParams = updateRefBody.extend({ ...repoParams, ref: shortRefName });
export type UpdateRefParams = z.input<typeof updateRefParams>;

/** DELETE /repos/{owner}/{repo}/git/refs/{ref}: the reference without `refs/` (`tags/v1`). */
export const deleteRefParams = getRefParams;
export type DeleteRefParams = GetRefParams;

/** GET /repos/{owner}/{repo}/git/matching-refs/{ref}: a prefix without `refs/` (`tags/v1`, `heads`). */
export const listMatchingRefsParams = z.strictObject({
  ...repoParams,
  ref: z
    .string()
    .min(1)
    .refine((ref) => !ref.startsWith("refs/"), { message: "give the prefix without refs/ (tags/v1)" }),
});
export type ListMatchingRefsParams = z.input<typeof listMatchingRefsParams>;

export const ifTagExists = z.enum(IF_TAG_EXISTS);
export type IfTagExists = z.infer<typeof ifTagExists>;

export const createAnnotatedTagParams = createTagParams.extend({ if_exists: ifTagExists.default("skip") });
export type CreateAnnotatedTagParams = z.input<typeof createAnnotatedTagParams>;

// ---- responses ------------------------------------------------------------------------------

/** The signature verification of a tag or commit (spec 2.4). */
export const gitVerification = z.looseObject({
  verified: z.boolean(),
  reason: verificationReason,
  signature: z.string().nullable(),
  payload: z.string().nullable(),
  verified_at: z.string().nullable(),
});
export type GitVerification = z.infer<typeof gitVerification>;

/** A git object another object or a reference points at. */
export const gitObjectPointer = z.looseObject({ type: openEnum(GIT_OBJECT_TYPES), sha: z.string(), url: z.string() });
export type GitObjectPointer = z.infer<typeof gitObjectPointer>;

/** A tag object (spec 2.4). */
export const gitTag = z.looseObject({
  node_id: z.string(),
  tag: z.string(),
  sha: z.string(),
  url: z.string(),
  message: z.string(),
  tagger: z.looseObject({ name: z.string(), email: z.string(), date: timestamp }),
  object: gitObjectPointer,
  verification: gitVerification.optional(),
});
export type GitTag = z.infer<typeof gitTag>;

/** A git reference. */
export const gitRef = z.looseObject({
  ref: z.string(),
  node_id: z.string(),
  url: z.string(),
  object: gitObjectPointer,
});
export type GitRef = z.infer<typeof gitRef>;
export const gitRefList = z.array(gitRef);
