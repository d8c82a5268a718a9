// The values of the service's enumerations and its fixed limits, apart from the schemas that use them: the types
// and the entry point users import need no zod.

/** Values of `runtime_risks` (OpenAPI enum; the spec leaves them open). */
export const RUNTIME_RISKS = ["critical-resource", "internet-exposed", "lateral-movement", "sensitive-data"] as const;

export const DEPLOYMENT_STATUSES = ["deployed", "decommissioned"] as const;

/** Storage statuses: the spec names active and inactive, the OpenAPI enum active, eol and deleted; we take the union. */
export const STORAGE_STATUSES = ["active", "inactive", "eol", "deleted"] as const;

/** The most entries one cluster call may carry. */
export const MAX_CLUSTER_ENTRIES = 1000;

/** `sha256:` followed by 64 lowercase hex digits: the only digest form the artifact endpoints take. */
export const SHA256_DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;

/** Types of git objects: what a reference or a tag object points at (a reference to an annotated tag: `tag`). */
export const GIT_OBJECT_TYPES = ["commit", "tree", "blob", "tag"] as const;

/**
 * Types of the object a new tag object may tag: the official request schema's enum. Git itself can tag a tag, but
 * the service refuses `tag` with 422, so the client refuses it before sending.
 */
export const TAGGABLE_OBJECT_TYPES = ["commit", "tree", "blob"] as const;

/**
 * `reason` values of a signature verification (spec 2.4), besides the `unknown_signature_<suffix>` family.
 * A reason the service adds later parses too, kept as the string received.
 */
export const VERIFICATION_REASONS = [
  "expired_key",
  "not_signing_key",
  "gpgverify_error",
  "gpgverify_unavailable",
  "unsigned",
  "unknown_signature_type",
  "no_user",
  "unverified_email",
  "bad_email",
  "unknown_key",
  "malformed_signature",
  "invalid",
  "valid",
] as const;

/**
 * What to do when `refs/tags/<tag>` already exists: `skip` when it holds the same object, type and message
 * (`fail` refuses even then); `update` moves it (a new tag object, then the reference updated with force).
 */
export const IF_TAG_EXISTS = ["skip", "fail", "update"] as const;

/** Values of a thread's `reason` (spec 2.5); `team_mentioned` is not one. A reason the service adds later is kept as a string. */
export const NOTIFICATION_REASONS = [
  "approval_requested",
  "assign",
  "author",
  "ci_activity",
  "comment",
  "invitation",
  "manual",
  "member_feature_requested",
  "mention",
  "review_requested",
  "state_change",
  "subscribed",
  "team_mention",
] as const;

/** Subject types a thread is known to carry; the service adds others (they are kept as strings). */
export const NOTIFICATION_SUBJECT_TYPES = [
  "Issue",
  "PullRequest",
  "Commit",
  "Release",
  "Discussion",
  "CheckSuite",
  "WorkflowRun",
  "RepositoryInvitation",
  "RepositoryVulnerabilityAlert",
  "RepositoryDependabotAlertsThread",
  "SecurityAdvisory",
  "MemberFeatureRequest",
] as const;

/**
 * Issue event kinds known to this client (spec 6.3 leaves the list open; these are the OpenAPI description's).
 * A kind the service adds later is kept as a string.
 */
export const ISSUE_EVENT_KINDS = [
  "added_to_project",
  "assigned",
  "automatic_base_change_failed",
  "automatic_base_change_succeeded",
  "base_ref_changed",
  "closed",
  "commented",
  "committed",
  "connected",
  "converted_note_to_issue",
  "converted_to_discussion",
  "cross-referenced",
  "demilestoned",
  "deployed",
  "deployment_environment_changed",
  "disconnected",
  "head_ref_deleted",
  "head_ref_force_pushed",
  "head_ref_restored",
  "labeled",
  "locked",
  "marked_as_duplicate",
  "mentioned",
  "merged",
  "milestoned",
  "moved_columns_in_project",
  "pinned",
  "ready_for_review",
  "referenced",
  "removed_from_project",
  "renamed",
  "reopened",
  "review_dismissed",
  "review_request_removed",
  "review_requested",
  "reviewed",
  "subscribed",
  "transferred",
  "unassigned",
  "unlabeled",
  "unlocked",
  "unmarked_as_duplicate",
  "unpinned",
  "unsubscribed",
  "user_blocked",
] as const;

/** Why an issue is in its state; a reason the service adds later is kept as a string. */
export const ISSUE_STATE_REASONS = ["completed", "not_planned", "reopened", "duplicate"] as const;

/** The moment the source import endpoints closed (spec sections 1 and 9): 2024-04-12 00:00 UTC. */
export const SOURCE_IMPORTS_RETIRED_AT = "2024-04-12T00:00:00Z";

/** States without problems, in the order an import passes through them (spec 3.1). */
export const IMPORT_WORKING_STATUSES = ["detecting", "importing", "mapping", "pushing"] as const;

/** Problem states: the import waits for the caller (spec 3.1). */
export const IMPORT_PROBLEM_STATUSES = [
  "auth_failed",
  "error",
  "detection_needs_auth",
  "detection_found_nothing",
  "detection_found_multiple",
] as const;

/** Every status the spec names. */
export const IMPORT_STATUSES = [...IMPORT_WORKING_STATUSES, "complete", ...IMPORT_PROBLEM_STATUSES] as const;

/**
 * Further values the OpenAPI enum lists (`auth`, `none`, `choose`, `waiting_to_push`, `setup`, `unknown`);
 * the spec never shows them, but a response carrying one is still a valid import.
 */
export const IMPORT_OTHER_STATUSES = ["auth", "none", "choose", "waiting_to_push", "setup", "unknown"] as const;

/** Git LFS preference values (spec 2.9 and 3.1). */
export const LFS_PREFERENCES = ["opt_in", "opt_out", "undecided"] as const;

/** Stable code of the DeprecationWarning the source import calls emit (once per process). */
export const SOURCE_IMPORTS_WARNING_CODE = "SHIPLOG_SOURCE_IMPORTS_RETIRED";
