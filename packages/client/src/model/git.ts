// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { OpenEnum } from "./open-enum.js";

export type GitObjectType = "commit" | "tree" | "blob" | "tag";

export type TaggableObjectType = "commit" | "tree" | "blob";

/** A non-PGP signature: `unknown_signature_` followed by the signature type (spec 2.4). */
export type UnknownSignatureReason = `unknown_signature_${string}`;

export type VerificationReason =
  | UnknownSignatureReason
  | OpenEnum<
      | "expired_key"
      | "not_signing_key"
      | "gpgverify_error"
      | "gpgverify_unavailable"
      | "unsigned"
      | "no_user"
      | "unverified_email"
      | "bad_email"
      | "unknown_key"
      | "malformed_signature"
      | "invalid"
      | "valid"
    >;

export type Tagger = {
  name: string;
  email: string;
  date?: string;
};

/** Body of POST /repos/{owner}/{repo}/git/tags. */
export type CreateTagBody = {
  tag: string;
  message: string;
  object: string;
  type: TaggableObjectType;
  tagger?: Tagger;
};

/** Body of POST /repos/{owner}/{repo}/git/refs. */
export type CreateRefBody = {
  ref: string;
  sha: string;
};

/** Body of PATCH /repos/{owner}/{repo}/git/refs/{ref}: without `force` only a fast-forward is accepted. */
export type UpdateRefBody = {
  sha: string;
  force?: boolean;
};

export type CreateTagParams = {
  tag: string;
  message: string;
  object: string;
  type: TaggableObjectType;
  owner: string;
  repo: string;
  tagger?: {
    name: string;
    email: string;
    date?: string;
  };
};

export type GetTagParams = {
  tag_sha: string;
  owner: string;
  repo: string;
};

export type CreateRefParams = {
  ref: string;
  sha: string;
  owner: string;
  repo: string;
};

export type GetRefParams = {
  ref: string;
  owner: string;
  repo: string;
};

export type UpdateRefParams = {
  sha: string;
  ref: string;
  owner: string;
  repo: string;
  force?: boolean;
};

export type DeleteRefParams = {
  ref: string;
  owner: string;
  repo: string;
};

/** GET /repos/{owner}/{repo}/git/matching-refs/{ref}: a prefix without `refs/` (`tags/v1`, `heads`). */
export type ListMatchingRefsParams = {
  ref: string;
  owner: string;
  repo: string;
};

export type IfTagExists = "skip" | "fail" | "update";

export type CreateAnnotatedTagParams = {
  tag: string;
  message: string;
  object: string;
  type: TaggableObjectType;
  owner: string;
  repo: string;
  tagger?: {
    name: string;
    email: string;
    date?: string;
  };
  if_exists?: IfTagExists;
};

/** The signature verification of a tag or commit (spec 2.4). */
export type GitVerification = {
  verified: boolean;
  reason: VerificationReason;
  signature: null | string;
  payload: null | string;
  verified_at: null | string;
};

/** A git object another object or a reference points at. */
export type GitObjectPointer = {
  type: OpenEnum<GitObjectType>;
  sha: string;
  url: string;
};

/** A tag object (spec 2.4). */
export type GitTag = {
  node_id: string;
  tag: string;
  sha: string;
  url: string;
  message: string;
  tagger: {
    name: string;
    email: string;
    date: string;
  };
  object: GitObjectPointer;
  verification?: GitVerification;
};

/** A git reference. */
export type GitRef = {
  ref: string;
  node_id: string;
  url: string;
  object: GitObjectPointer;
};
