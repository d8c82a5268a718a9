import type { HttpMethod } from "../transport/pipeline.js";

/**
 * The permission matrix of section 5.3 of the spec as data: one entry per method and path template, in the spec's
 * order. (The permission statements of sections 4.1 to 4.5 are part of each endpoint's registry entry.)
 *
 * Every shorthand of 5.3 is expanded here by hand so that the data can be held against the spec line by line:
 * `A|B` methods become one entry per method, `...` paths are written out in full (they continue the previous
 * full path), "and /x" lists and `[/{id}]` optional segments become separate entries, and "the read
 * counterparts of the write sub-paths" are listed. The spec bullet each group comes from is quoted above it.
 */

export type PermissionScope = "organization" | "repository";
export type AccessLevel = "read" | "write";
/** App token types of the 5.3 matrix: app user access token and app installation access token. */
export type AppTokenType = "UAT" | "IAT";

export interface PermissionInfo {
  scope: PermissionScope;
  /** The name as the spec writes it. */
  title: string;
}

/**
 * One machine name per permission (the form `X-Accepted-Service-Permissions` and token grants use),
 * with its level and the spec's title.
 */
export const PERMISSIONS = {
  organization_administration: { scope: "organization", title: "Administration" },
  organization_assistant_seat_management: { scope: "organization", title: "assistant business" },
  members: { scope: "organization", title: "Members" },
  organization_self_hosted_runners: { scope: "organization", title: "Self-hosted runners" },
  organization_events: { scope: "organization", title: "Events" },
  actions: { scope: "repository", title: "Actions" },
  administration: { scope: "repository", title: "Administration" },
  contents: { scope: "repository", title: "Contents" },
  issues: { scope: "repository", title: "Issues" },
  pull_requests: { scope: "repository", title: "Pull requests" },
  metadata: { scope: "repository", title: "Metadata" },
  artifact_metadata: { scope: "repository", title: "Artifact metadata" },
} as const satisfies Record<string, PermissionInfo>;

export type PermissionName = keyof typeof PERMISSIONS;

/** One line of section 5.3: this method on this path needs this permission at this level. */
export interface MatrixEntry {
  method: HttpMethod;
  /** Path template with `{placeholders}`, written in full. */
  path: string;
  permission: PermissionName;
  /** `write` also on the GET endpoints the spec marks as needing write. */
  access: AccessLevel;
  /** App token types the entry applies to (both unless the spec notes `UAT` only). */
  tokenTypes: readonly AppTokenType[];
  /** The spec's `multi` mark: more permissions may be required, or a different one may be used. */
  multi: boolean;
  /** Where the entry comes from, e.g. `5.3 Organization permission: Administration`. */
  source: string;
}

const BOTH: readonly AppTokenType[] = ["UAT", "IAT"];
const UAT_ONLY: readonly AppTokenType[] = ["UAT"];

/** Marks of an entry beyond its permission and level. */
interface Marks {
  multi?: boolean;
  uatOnly?: boolean;
}
const MULTI: Marks = { multi: true };
const UAT: Marks = { uatOnly: true };

/** Builds the entries of one 5.3 permission block. */
function block(permission: PermissionName, source: string) {
  return (access: AccessLevel, method: HttpMethod, path: string, marks: Marks = {}): MatrixEntry => ({
    method,
    path,
    permission,
    access,
    tokenTypes: marks.uatOnly ? UAT_ONLY : BOTH,
    multi: marks.multi ?? false,
    source,
  });
}

const orgAdministration = block("organization_administration", "5.3 Organization permission: Administration");
const orgAssistant = block("organization_assistant_seat_management", "5.3 Organization permission: assistant business");
const orgMembers = block("members", "5.3 Organization permission: Members");
const orgRunners = block("organization_self_hosted_runners", "5.3 Organization permission: Self-hosted runners");
const repoActions = block("actions", "5.3 Repository permission: Actions");
const repoAdministration = block("administration", "5.3 Repository permission: Administration");
const repoContents = block("contents", "5.3 Repository permission: Contents");
const repoIssues = block("issues", "5.3 Repository permission: Issues");

const R = "/repos/{owner}/{repo}";

/** Section 5.3, in the spec's order; every shorthand expanded. */
export const PERMISSION_MATRIX: readonly MatrixEntry[] = [
  // ── Organization permission: Administration ──
  // write: PUT /organizations/{org}/actions/cache/retention-limit and /storage-limit;
  //        POST /organizations/{org}/settings/billing/budgets; PATCH|DELETE .../budgets/{budget_id}
  orgAdministration("write", "PUT", "/organizations/{org}/actions/cache/retention-limit"),
  orgAdministration("write", "PUT", "/organizations/{org}/actions/cache/storage-limit"),
  orgAdministration("write", "POST", "/organizations/{org}/settings/billing/budgets"),
  orgAdministration("write", "PATCH", "/organizations/{org}/settings/billing/budgets/{budget_id}"),
  orgAdministration("write", "DELETE", "/organizations/{org}/settings/billing/budgets/{budget_id}"),
  // write: PATCH|DELETE /orgs/{org}
  orgAdministration("write", "PATCH", "/orgs/{org}"),
  orgAdministration("write", "DELETE", "/orgs/{org}"),
  // write: POST /orgs/{org}/actions/hosted-runners; PATCH|DELETE .../hosted-runners/{hosted_runner_id}
  orgAdministration("write", "POST", "/orgs/{org}/actions/hosted-runners"),
  orgAdministration("write", "PATCH", "/orgs/{org}/actions/hosted-runners/{hosted_runner_id}"),
  orgAdministration("write", "DELETE", "/orgs/{org}/actions/hosted-runners/{hosted_runner_id}"),
  // write: POST /orgs/{org}/actions/oidc/customization/properties/repo;
  //        DELETE .../properties/repo/{custom_property_name}; PUT .../oidc/customization/sub
  orgAdministration("write", "POST", "/orgs/{org}/actions/oidc/customization/properties/repo"),
  orgAdministration("write", "DELETE", "/orgs/{org}/actions/oidc/customization/properties/repo/{custom_property_name}"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/oidc/customization/sub"),
  // write: PUT /orgs/{org}/actions/permissions and its sub-paths (8 listed);
  //        PUT|DELETE .../repositories/{repository_id} and .../self-hosted-runners/repositories/{repository_id} are multi
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/artifact-and-log-retention"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/fork-pr-contributor-approval"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/fork-pr-workflows-private-repos"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/repositories"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/selected-actions"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/self-hosted-runners"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/self-hosted-runners/repositories"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/workflow"),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/repositories/{repository_id}", MULTI),
  orgAdministration("write", "DELETE", "/orgs/{org}/actions/permissions/repositories/{repository_id}", MULTI),
  orgAdministration("write", "PUT", "/orgs/{org}/actions/permissions/self-hosted-runners/repositories/{repository_id}", MULTI),
  orgAdministration("write", "DELETE", "/orgs/{org}/actions/permissions/self-hosted-runners/repositories/{repository_id}", MULTI),
  // write: POST /orgs/{org}/code-security/configurations; DELETE .../configurations/detach;
  //        PATCH|DELETE .../configurations/{configuration_id}; POST .../{configuration_id}/attach; PUT .../{configuration_id}/defaults
  orgAdministration("write", "POST", "/orgs/{org}/code-security/configurations"),
  orgAdministration("write", "DELETE", "/orgs/{org}/code-security/configurations/detach"),
  orgAdministration("write", "PATCH", "/orgs/{org}/code-security/configurations/{configuration_id}"),
  orgAdministration("write", "DELETE", "/orgs/{org}/code-security/configurations/{configuration_id}"),
  orgAdministration("write", "POST", "/orgs/{org}/code-security/configurations/{configuration_id}/attach"),
  orgAdministration("write", "PUT", "/orgs/{org}/code-security/configurations/{configuration_id}/defaults"),
  // write, multi: POST|DELETE /orgs/{org}/assistant/billing/selected_teams and /selected_users
  orgAdministration("write", "POST", "/orgs/{org}/assistant/billing/selected_teams", MULTI),
  orgAdministration("write", "DELETE", "/orgs/{org}/assistant/billing/selected_teams", MULTI),
  orgAdministration("write", "POST", "/orgs/{org}/assistant/billing/selected_users", MULTI),
  orgAdministration("write", "DELETE", "/orgs/{org}/assistant/billing/selected_users", MULTI),
  // write: PATCH /orgs/{org}/dependency-bot/repository-access; PUT .../repository-access/default-level
  orgAdministration("write", "PATCH", "/orgs/{org}/dependency-bot/repository-access"),
  orgAdministration("write", "PUT", "/orgs/{org}/dependency-bot/repository-access/default-level"),
  // write: PUT|DELETE /orgs/{org}/interaction-limits; GET|PATCH /orgs/{org}/interaction-limits/pulls/creation-cap (UAT and IAT)
  orgAdministration("write", "PUT", "/orgs/{org}/interaction-limits"),
  orgAdministration("write", "DELETE", "/orgs/{org}/interaction-limits"),
  orgAdministration("write", "GET", "/orgs/{org}/interaction-limits/pulls/creation-cap"),
  orgAdministration("write", "PATCH", "/orgs/{org}/interaction-limits/pulls/creation-cap"),
  // write (including GET): GET|POST /orgs/{org}/rulesets; GET /orgs/{org}/rulesets/rule-suites and .../rule-suites/{rule_suite_id};
  //        GET|PUT|DELETE .../rulesets/{ruleset_id}; GET .../{ruleset_id}/history and .../history/{version_id}
  orgAdministration("write", "GET", "/orgs/{org}/rulesets"),
  orgAdministration("write", "POST", "/orgs/{org}/rulesets"),
  orgAdministration("write", "GET", "/orgs/{org}/rulesets/rule-suites"),
  orgAdministration("write", "GET", "/orgs/{org}/rulesets/rule-suites/{rule_suite_id}"),
  orgAdministration("write", "GET", "/orgs/{org}/rulesets/{ruleset_id}"),
  orgAdministration("write", "PUT", "/orgs/{org}/rulesets/{ruleset_id}"),
  orgAdministration("write", "DELETE", "/orgs/{org}/rulesets/{ruleset_id}"),
  orgAdministration("write", "GET", "/orgs/{org}/rulesets/{ruleset_id}/history"),
  orgAdministration("write", "GET", "/orgs/{org}/rulesets/{ruleset_id}/history/{version_id}"),
  // write: POST|DELETE /orgs/{org}/secret-scanning/custom-patterns; PATCH .../custom-patterns/{pattern_id}; PATCH .../pattern-configurations
  orgAdministration("write", "POST", "/orgs/{org}/secret-scanning/custom-patterns"),
  orgAdministration("write", "DELETE", "/orgs/{org}/secret-scanning/custom-patterns"),
  orgAdministration("write", "PATCH", "/orgs/{org}/secret-scanning/custom-patterns/{pattern_id}"),
  orgAdministration("write", "PATCH", "/orgs/{org}/secret-scanning/pattern-configurations"),
  // write: PUT|DELETE /orgs/{org}/security-managers/teams/{team_slug}
  orgAdministration("write", "PUT", "/orgs/{org}/security-managers/teams/{team_slug}"),
  orgAdministration("write", "DELETE", "/orgs/{org}/security-managers/teams/{team_slug}"),
  // write: PUT /orgs/{org}/settings/immutable-releases; PUT .../immutable-releases/repositories (multi);
  //        PUT|DELETE .../repositories/{repository_id} (multi)
  orgAdministration("write", "PUT", "/orgs/{org}/settings/immutable-releases"),
  orgAdministration("write", "PUT", "/orgs/{org}/settings/immutable-releases/repositories", MULTI),
  orgAdministration("write", "PUT", "/orgs/{org}/settings/immutable-releases/repositories/{repository_id}", MULTI),
  orgAdministration("write", "DELETE", "/orgs/{org}/settings/immutable-releases/repositories/{repository_id}", MULTI),
  // write: POST /orgs/{org}/{security_product}/{enablement}
  orgAdministration("write", "POST", "/orgs/{org}/{security_product}/{enablement}"),
  // read: GET on /organizations/{org}/actions/cache/retention-limit, /storage-limit
  orgAdministration("read", "GET", "/organizations/{org}/actions/cache/retention-limit"),
  orgAdministration("read", "GET", "/organizations/{org}/actions/cache/storage-limit"),
  // read: /organizations/{org}/settings/billing/ai_credit/usage, /budgets, /budgets/{budget_id}, /premium_request/usage, /usage, /usage/summary
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/ai_credit/usage"),
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/budgets"),
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/budgets/{budget_id}"),
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/premium_request/usage"),
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/usage"),
  orgAdministration("read", "GET", "/organizations/{org}/settings/billing/usage/summary"),
  // read: /orgs/{org}/actions/cache/usage and /usage-by-repository
  orgAdministration("read", "GET", "/orgs/{org}/actions/cache/usage"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/cache/usage-by-repository"),
  // read: /orgs/{org}/actions/hosted-runners with /images/service-owned, /images/partner, /limits, /machine-sizes, /platforms, /{hosted_runner_id}
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/images/service-owned"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/images/partner"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/limits"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/machine-sizes"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/platforms"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/hosted-runners/{hosted_runner_id}"),
  // read: /orgs/{org}/actions/oidc/customization/properties/repo and /sub
  orgAdministration("read", "GET", "/orgs/{org}/actions/oidc/customization/properties/repo"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/oidc/customization/sub"),
  // read: /orgs/{org}/actions/permissions with the read counterparts of the write sub-paths
  // (the eight sub-paths of the write bullet; the `{repository_id}` paths are written PUT|DELETE only)
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/artifact-and-log-retention"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/fork-pr-contributor-approval"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/fork-pr-workflows-private-repos"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/repositories"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/selected-actions"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/self-hosted-runners"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/self-hosted-runners/repositories"),
  orgAdministration("read", "GET", "/orgs/{org}/actions/permissions/workflow"),
  // read: /orgs/{org}/code-security/configurations, /defaults, /{configuration_id}, /{configuration_id}/repositories
  orgAdministration("read", "GET", "/orgs/{org}/code-security/configurations"),
  orgAdministration("read", "GET", "/orgs/{org}/code-security/configurations/defaults"),
  orgAdministration("read", "GET", "/orgs/{org}/code-security/configurations/{configuration_id}"),
  orgAdministration("read", "GET", "/orgs/{org}/code-security/configurations/{configuration_id}/repositories"),
  // read: /orgs/{org}/dependency-bot/repository-access; /orgs/{org}/installations; /orgs/{org}/interaction-limits
  orgAdministration("read", "GET", "/orgs/{org}/dependency-bot/repository-access"),
  orgAdministration("read", "GET", "/orgs/{org}/installations"),
  orgAdministration("read", "GET", "/orgs/{org}/interaction-limits"),
  // read: /orgs/{org}/secret-scanning/custom-patterns and /pattern-configurations; /orgs/{org}/security-managers
  orgAdministration("read", "GET", "/orgs/{org}/secret-scanning/custom-patterns"),
  orgAdministration("read", "GET", "/orgs/{org}/secret-scanning/pattern-configurations"),
  orgAdministration("read", "GET", "/orgs/{org}/security-managers"),
  // read: /orgs/{org}/settings/immutable-releases and /repositories
  orgAdministration("read", "GET", "/orgs/{org}/settings/immutable-releases"),
  orgAdministration("read", "GET", "/orgs/{org}/settings/immutable-releases/repositories"),
  // Read, multi: GET /orgs/{org}/assistant/billing, /billing/seats, /orgs/{org}/members/{username}/assistant
  orgAdministration("read", "GET", "/orgs/{org}/assistant/billing", MULTI),
  orgAdministration("read", "GET", "/orgs/{org}/assistant/billing/seats", MULTI),
  orgAdministration("read", "GET", "/orgs/{org}/members/{username}/assistant", MULTI),

  // ── Organization permission: assistant business ──
  // write: POST /orgs/{org}/assistant-spaces/{space_number}/collaborators; PUT|DELETE .../collaborators/{actor_type}/{actor_identifier};
  //        the selected_teams and selected_users endpoints above (multi)
  orgAssistant("write", "POST", "/orgs/{org}/assistant-spaces/{space_number}/collaborators"),
  orgAssistant("write", "PUT", "/orgs/{org}/assistant-spaces/{space_number}/collaborators/{actor_type}/{actor_identifier}"),
  orgAssistant("write", "DELETE", "/orgs/{org}/assistant-spaces/{space_number}/collaborators/{actor_type}/{actor_identifier}"),
  orgAssistant("write", "POST", "/orgs/{org}/assistant/billing/selected_teams", MULTI),
  orgAssistant("write", "DELETE", "/orgs/{org}/assistant/billing/selected_teams", MULTI),
  orgAssistant("write", "POST", "/orgs/{org}/assistant/billing/selected_users", MULTI),
  orgAssistant("write", "DELETE", "/orgs/{org}/assistant/billing/selected_users", MULTI),
  // read: GET .../assistant-spaces/{space_number}/collaborators; the multi reads above
  orgAssistant("read", "GET", "/orgs/{org}/assistant-spaces/{space_number}/collaborators"),
  orgAssistant("read", "GET", "/orgs/{org}/assistant/billing", MULTI),
  orgAssistant("read", "GET", "/orgs/{org}/assistant/billing/seats", MULTI),
  orgAssistant("read", "GET", "/orgs/{org}/members/{username}/assistant", MULTI),

  // ── Organization permission: Members ──
  // write: POST /orgs/{org}/invitations; DELETE .../invitations/{invitation_id}; DELETE /orgs/{org}/members/{username};
  //        PUT|DELETE /orgs/{org}/memberships/{username}
  orgMembers("write", "POST", "/orgs/{org}/invitations"),
  orgMembers("write", "DELETE", "/orgs/{org}/invitations/{invitation_id}"),
  orgMembers("write", "DELETE", "/orgs/{org}/members/{username}"),
  orgMembers("write", "PUT", "/orgs/{org}/memberships/{username}"),
  orgMembers("write", "DELETE", "/orgs/{org}/memberships/{username}"),
  // write: DELETE /orgs/{org}/organization-roles/teams/{team_slug}; PUT|DELETE .../organization-roles/teams/{team_slug}/{role_id};
  //        DELETE .../organization-roles/users/{username}; PUT|DELETE .../users/{username}/{role_id}
  orgMembers("write", "DELETE", "/orgs/{org}/organization-roles/teams/{team_slug}"),
  orgMembers("write", "PUT", "/orgs/{org}/organization-roles/teams/{team_slug}/{role_id}"),
  orgMembers("write", "DELETE", "/orgs/{org}/organization-roles/teams/{team_slug}/{role_id}"),
  orgMembers("write", "DELETE", "/orgs/{org}/organization-roles/users/{username}"),
  orgMembers("write", "PUT", "/orgs/{org}/organization-roles/users/{username}/{role_id}"),
  orgMembers("write", "DELETE", "/orgs/{org}/organization-roles/users/{username}/{role_id}"),
  // write: PUT|DELETE /orgs/{org}/outside_collaborators/{username}; POST /orgs/{org}/teams; PATCH|DELETE /orgs/{org}/teams/{team_slug};
  //        PUT|DELETE .../teams/{team_slug}/memberships/{username}
  orgMembers("write", "PUT", "/orgs/{org}/outside_collaborators/{username}"),
  orgMembers("write", "DELETE", "/orgs/{org}/outside_collaborators/{username}"),
  orgMembers("write", "POST", "/orgs/{org}/teams"),
  orgMembers("write", "PATCH", "/orgs/{org}/teams/{team_slug}"),
  orgMembers("write", "DELETE", "/orgs/{org}/teams/{team_slug}"),
  orgMembers("write", "PUT", "/orgs/{org}/teams/{team_slug}/memberships/{username}"),
  orgMembers("write", "DELETE", "/orgs/{org}/teams/{team_slug}/memberships/{username}"),
  // write: PATCH|DELETE /teams/{team_id}; PUT|DELETE /teams/{team_id}/members/{username} and /memberships/{username}
  orgMembers("write", "PATCH", "/teams/{team_id}"),
  orgMembers("write", "DELETE", "/teams/{team_id}"),
  orgMembers("write", "PUT", "/teams/{team_id}/members/{username}"),
  orgMembers("write", "DELETE", "/teams/{team_id}/members/{username}"),
  orgMembers("write", "PUT", "/teams/{team_id}/memberships/{username}"),
  orgMembers("write", "DELETE", "/teams/{team_id}/memberships/{username}"),
  // write, UAT only: PUT|DELETE /orgs/{org}/public_members/{username}; PATCH /user/memberships/orgs/{org}
  orgMembers("write", "PUT", "/orgs/{org}/public_members/{username}", UAT),
  orgMembers("write", "DELETE", "/orgs/{org}/public_members/{username}", UAT),
  orgMembers("write", "PATCH", "/user/memberships/orgs/{org}", UAT),
  // read: GET /orgs/{org}/failed_invitations, /invitations, /invitations/{invitation_id}/teams, /members, /members/{username},
  //       /memberships/{username}, /organization-roles/{role_id}/teams and /users, /outside_collaborators, /public_members,
  //       /public_members/{username}, /teams, /teams/{team_slug}, .../invitations, .../members, .../memberships/{username}, .../repos, .../teams
  orgMembers("read", "GET", "/orgs/{org}/failed_invitations"),
  orgMembers("read", "GET", "/orgs/{org}/invitations"),
  orgMembers("read", "GET", "/orgs/{org}/invitations/{invitation_id}/teams"),
  orgMembers("read", "GET", "/orgs/{org}/members"),
  orgMembers("read", "GET", "/orgs/{org}/members/{username}"),
  orgMembers("read", "GET", "/orgs/{org}/memberships/{username}"),
  orgMembers("read", "GET", "/orgs/{org}/organization-roles/{role_id}/teams"),
  orgMembers("read", "GET", "/orgs/{org}/organization-roles/{role_id}/users"),
  orgMembers("read", "GET", "/orgs/{org}/outside_collaborators"),
  orgMembers("read", "GET", "/orgs/{org}/public_members"),
  orgMembers("read", "GET", "/orgs/{org}/public_members/{username}"),
  orgMembers("read", "GET", "/orgs/{org}/teams"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/invitations"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/members"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/memberships/{username}"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/repos"),
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/teams"),
  // read: GET /teams/{team_id} and its /invitations, /members, /members/{username}, /memberships/{username}, /repos, /teams
  orgMembers("read", "GET", "/teams/{team_id}"),
  orgMembers("read", "GET", "/teams/{team_id}/invitations"),
  orgMembers("read", "GET", "/teams/{team_id}/members"),
  orgMembers("read", "GET", "/teams/{team_id}/members/{username}"),
  orgMembers("read", "GET", "/teams/{team_id}/memberships/{username}"),
  orgMembers("read", "GET", "/teams/{team_id}/repos"),
  orgMembers("read", "GET", "/teams/{team_id}/teams"),
  // read, UAT only: GET /user/memberships/orgs/{org}
  orgMembers("read", "GET", "/user/memberships/orgs/{org}", UAT),
  // read, multi: GET|PUT|DELETE /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo} and /teams/{team_id}/repos/{owner}/{repo}
  orgMembers("read", "GET", "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", MULTI),
  orgMembers("read", "PUT", "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", MULTI),
  orgMembers("read", "DELETE", "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", MULTI),
  orgMembers("read", "GET", "/teams/{team_id}/repos/{owner}/{repo}", MULTI),
  orgMembers("read", "PUT", "/teams/{team_id}/repos/{owner}/{repo}", MULTI),
  orgMembers("read", "DELETE", "/teams/{team_id}/repos/{owner}/{repo}", MULTI),

  // ── Organization permission: Self-hosted runners ──
  // write: POST /orgs/{org}/actions/runner-groups; PATCH|DELETE .../runner-groups/{runner_group_id};
  //        PUT .../{runner_group_id}/repositories; PUT|DELETE .../{runner_group_id}/repositories/{repository_id} (multi);
  //        PUT .../{runner_group_id}/runners; PUT|DELETE .../runners/{runner_id}
  orgRunners("write", "POST", "/orgs/{org}/actions/runner-groups"),
  orgRunners("write", "PATCH", "/orgs/{org}/actions/runner-groups/{runner_group_id}"),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runner-groups/{runner_group_id}"),
  orgRunners("write", "PUT", "/orgs/{org}/actions/runner-groups/{runner_group_id}/repositories"),
  orgRunners("write", "PUT", "/orgs/{org}/actions/runner-groups/{runner_group_id}/repositories/{repository_id}", MULTI),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runner-groups/{runner_group_id}/repositories/{repository_id}", MULTI),
  orgRunners("write", "PUT", "/orgs/{org}/actions/runner-groups/{runner_group_id}/runners"),
  orgRunners("write", "PUT", "/orgs/{org}/actions/runner-groups/{runner_group_id}/runners/{runner_id}"),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runner-groups/{runner_group_id}/runners/{runner_id}"),
  // write: POST /orgs/{org}/actions/runners/generate-jitconfig, /registration-token, /remove-token; DELETE .../runners/{runner_id};
  //        POST|PUT|DELETE .../runners/{runner_id}/labels; DELETE .../labels/{name}
  orgRunners("write", "POST", "/orgs/{org}/actions/runners/generate-jitconfig"),
  orgRunners("write", "POST", "/orgs/{org}/actions/runners/registration-token"),
  orgRunners("write", "POST", "/orgs/{org}/actions/runners/remove-token"),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runners/{runner_id}"),
  orgRunners("write", "POST", "/orgs/{org}/actions/runners/{runner_id}/labels"),
  orgRunners("write", "PUT", "/orgs/{org}/actions/runners/{runner_id}/labels"),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runners/{runner_id}/labels"),
  orgRunners("write", "DELETE", "/orgs/{org}/actions/runners/{runner_id}/labels/{name}"),
  // read: GET /orgs/{org}/actions/runner-groups, /{runner_group_id}, .../hosted-runners, .../repositories, .../runners
  orgRunners("read", "GET", "/orgs/{org}/actions/runner-groups"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runner-groups/{runner_group_id}"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runner-groups/{runner_group_id}/hosted-runners"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runner-groups/{runner_group_id}/repositories"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runner-groups/{runner_group_id}/runners"),
  // read: GET /orgs/{org}/actions/runners, /runners/downloads, /runners/{runner_id}, /runners/{runner_id}/labels
  orgRunners("read", "GET", "/orgs/{org}/actions/runners"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runners/downloads"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runners/{runner_id}"),
  orgRunners("read", "GET", "/orgs/{org}/actions/runners/{runner_id}/labels"),

  // ── Repository permission: Actions ──  (`...` is /repos/{owner}/{repo})
  // write: DELETE /repos/{owner}/{repo}/actions/artifacts/{artifact_id}; DELETE .../actions/caches and .../caches/{cache_id};
  //        POST .../actions/jobs/{job_id}/rerun; PUT .../actions/oidc/customization/sub; DELETE .../actions/runs/{run_id}
  repoActions("write", "DELETE", `${R}/actions/artifacts/{artifact_id}`),
  repoActions("write", "DELETE", `${R}/actions/caches`),
  repoActions("write", "DELETE", `${R}/actions/caches/{cache_id}`),
  repoActions("write", "POST", `${R}/actions/jobs/{job_id}/rerun`),
  repoActions("write", "PUT", `${R}/actions/oidc/customization/sub`),
  repoActions("write", "DELETE", `${R}/actions/runs/{run_id}`),
  // write: POST .../runs/{run_id}/approve, /cancel, /force-cancel, /rerun, /rerun-failed-jobs; DELETE .../runs/{run_id}/logs
  repoActions("write", "POST", `${R}/actions/runs/{run_id}/approve`),
  repoActions("write", "POST", `${R}/actions/runs/{run_id}/cancel`),
  repoActions("write", "POST", `${R}/actions/runs/{run_id}/force-cancel`),
  repoActions("write", "POST", `${R}/actions/runs/{run_id}/rerun`),
  repoActions("write", "POST", `${R}/actions/runs/{run_id}/rerun-failed-jobs`),
  repoActions("write", "DELETE", `${R}/actions/runs/{run_id}/logs`),
  // write: PUT .../workflows/{workflow_id}/disable and /enable; POST .../workflows/{workflow_id}/dispatches
  repoActions("write", "PUT", `${R}/actions/workflows/{workflow_id}/disable`),
  repoActions("write", "PUT", `${R}/actions/workflows/{workflow_id}/enable`),
  repoActions("write", "POST", `${R}/actions/workflows/{workflow_id}/dispatches`),
  // read: GET .../actions/artifacts, /artifacts/{artifact_id}, /artifacts/{artifact_id}/{archive_format}, /cache/storage-limit,
  //       /cache/usage, /caches, /concurrency_groups, /concurrency_groups/{concurrency_group_name}, /jobs/{job_id}, /jobs/{job_id}/logs,
  //       /oidc/customization/sub, /runs
  repoActions("read", "GET", `${R}/actions/artifacts`),
  repoActions("read", "GET", `${R}/actions/artifacts/{artifact_id}`),
  repoActions("read", "GET", `${R}/actions/artifacts/{artifact_id}/{archive_format}`),
  repoActions("read", "GET", `${R}/actions/cache/storage-limit`),
  repoActions("read", "GET", `${R}/actions/cache/usage`),
  repoActions("read", "GET", `${R}/actions/caches`),
  repoActions("read", "GET", `${R}/actions/concurrency_groups`),
  repoActions("read", "GET", `${R}/actions/concurrency_groups/{concurrency_group_name}`),
  repoActions("read", "GET", `${R}/actions/jobs/{job_id}`),
  repoActions("read", "GET", `${R}/actions/jobs/{job_id}/logs`),
  repoActions("read", "GET", `${R}/actions/oidc/customization/sub`),
  repoActions("read", "GET", `${R}/actions/runs`),
  // read: /runs/{run_id} and its /approvals, /artifacts, /attempts/{attempt_number}, /attempts/{attempt_number}/jobs,
  //       /attempts/{attempt_number}/logs, /concurrency_groups, /jobs, /logs, /pending_deployments, /timing
  repoActions("read", "GET", `${R}/actions/runs/{run_id}`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/approvals`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/artifacts`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/attempts/{attempt_number}`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/attempts/{attempt_number}/jobs`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/attempts/{attempt_number}/logs`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/concurrency_groups`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/jobs`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/logs`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/pending_deployments`),
  repoActions("read", "GET", `${R}/actions/runs/{run_id}/timing`),
  // read: /workflows, /workflows/{workflow_id}, .../runs, .../timing
  repoActions("read", "GET", `${R}/actions/workflows`),
  repoActions("read", "GET", `${R}/actions/workflows/{workflow_id}`),
  repoActions("read", "GET", `${R}/actions/workflows/{workflow_id}/runs`),
  repoActions("read", "GET", `${R}/actions/workflows/{workflow_id}/timing`),
  // read: /repos/{owner}/{repo}/environments and /environments/{environment_name} with
  //       /deployment-branch-policies[/{branch_policy_id}] and /deployment_protection_rules[/{protection_rule_id}]
  repoActions("read", "GET", `${R}/environments`),
  repoActions("read", "GET", `${R}/environments/{environment_name}`),
  repoActions("read", "GET", `${R}/environments/{environment_name}/deployment-branch-policies`),
  repoActions("read", "GET", `${R}/environments/{environment_name}/deployment-branch-policies/{branch_policy_id}`),
  repoActions("read", "GET", `${R}/environments/{environment_name}/deployment_protection_rules`),
  repoActions("read", "GET", `${R}/environments/{environment_name}/deployment_protection_rules/{protection_rule_id}`),

  // ── Repository permission: Administration ──
  // write: POST /orgs/{org}/repos; PUT|DELETE /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo} (multi); PATCH|DELETE /repos/{owner}/{repo}
  repoAdministration("write", "POST", "/orgs/{org}/repos"),
  repoAdministration("write", "PUT", "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", MULTI),
  repoAdministration("write", "DELETE", "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", MULTI),
  repoAdministration("write", "PATCH", R),
  repoAdministration("write", "DELETE", R),
  // write: PUT .../actions/cache/retention-limit and /storage-limit
  repoAdministration("write", "PUT", `${R}/actions/cache/retention-limit`),
  repoAdministration("write", "PUT", `${R}/actions/cache/storage-limit`),
  // write: PUT .../actions/permissions and /access, /artifact-and-log-retention, /fork-pr-contributor-approval,
  //        /fork-pr-workflows-private-repos, /selected-actions, /workflow
  repoAdministration("write", "PUT", `${R}/actions/permissions`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/access`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/artifact-and-log-retention`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/fork-pr-contributor-approval`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/fork-pr-workflows-private-repos`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/selected-actions`),
  repoAdministration("write", "PUT", `${R}/actions/permissions/workflow`),
  // write: POST .../actions/runners/generate-jitconfig, /registration-token, /remove-token; DELETE .../runners/{runner_id};
  //        POST|PUT|DELETE .../runners/{runner_id}/labels; DELETE .../labels/{name}
  repoAdministration("write", "POST", `${R}/actions/runners/generate-jitconfig`),
  repoAdministration("write", "POST", `${R}/actions/runners/registration-token`),
  repoAdministration("write", "POST", `${R}/actions/runners/remove-token`),
  repoAdministration("write", "DELETE", `${R}/actions/runners/{runner_id}`),
  repoAdministration("write", "POST", `${R}/actions/runners/{runner_id}/labels`),
  repoAdministration("write", "PUT", `${R}/actions/runners/{runner_id}/labels`),
  repoAdministration("write", "DELETE", `${R}/actions/runners/{runner_id}/labels`),
  repoAdministration("write", "DELETE", `${R}/actions/runners/{runner_id}/labels/{name}`),
  // write: POST .../autolinks; DELETE .../autolinks/{autolink_id}; PUT|DELETE .../automated-security-fixes
  repoAdministration("write", "POST", `${R}/autolinks`),
  repoAdministration("write", "DELETE", `${R}/autolinks/{autolink_id}`),
  repoAdministration("write", "PUT", `${R}/automated-security-fixes`),
  repoAdministration("write", "DELETE", `${R}/automated-security-fixes`),
  // write: branch protection under /repos/{owner}/{repo}/branches/{branch}/protection: PUT|DELETE on the root;
  //        POST|DELETE /enforce_admins; PATCH|DELETE /required_pull_request_reviews; POST|DELETE /required_signatures;
  //        PATCH|DELETE /required_status_checks; POST|PUT|DELETE /required_status_checks/contexts; DELETE /restrictions;
  //        POST|PUT|DELETE /restrictions/apps, /restrictions/teams, /restrictions/users
  repoAdministration("write", "PUT", `${R}/branches/{branch}/protection`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/enforce_admins`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/enforce_admins`),
  repoAdministration("write", "PATCH", `${R}/branches/{branch}/protection/required_pull_request_reviews`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/required_pull_request_reviews`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/required_signatures`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/required_signatures`),
  repoAdministration("write", "PATCH", `${R}/branches/{branch}/protection/required_status_checks`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/required_status_checks`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/required_status_checks/contexts`),
  repoAdministration("write", "PUT", `${R}/branches/{branch}/protection/required_status_checks/contexts`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/required_status_checks/contexts`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/restrictions`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/restrictions/apps`),
  repoAdministration("write", "PUT", `${R}/branches/{branch}/protection/restrictions/apps`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/restrictions/apps`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/restrictions/teams`),
  repoAdministration("write", "PUT", `${R}/branches/{branch}/protection/restrictions/teams`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/restrictions/teams`),
  repoAdministration("write", "POST", `${R}/branches/{branch}/protection/restrictions/users`),
  repoAdministration("write", "PUT", `${R}/branches/{branch}/protection/restrictions/users`),
  repoAdministration("write", "DELETE", `${R}/branches/{branch}/protection/restrictions/users`),
  // write: GET|PATCH .../code-quality/setup; PATCH .../code-scanning/default-setup; PUT|DELETE .../collaborators/{username}
  repoAdministration("write", "GET", `${R}/code-quality/setup`),
  repoAdministration("write", "PATCH", `${R}/code-quality/setup`),
  repoAdministration("write", "PATCH", `${R}/code-scanning/default-setup`),
  repoAdministration("write", "PUT", `${R}/collaborators/{username}`),
  repoAdministration("write", "DELETE", `${R}/collaborators/{username}`),
  // write: PUT|DELETE .../environments/{environment_name}; POST .../environments/{environment_name}/deployment-branch-policies;
  //        PUT|DELETE .../deployment-branch-policies/{branch_policy_id}; POST .../deployment_protection_rules;
  //        DELETE .../deployment_protection_rules/{protection_rule_id}
  repoAdministration("write", "PUT", `${R}/environments/{environment_name}`),
  repoAdministration("write", "DELETE", `${R}/environments/{environment_name}`),
  repoAdministration("write", "POST", `${R}/environments/{environment_name}/deployment-branch-policies`),
  repoAdministration("write", "PUT", `${R}/environments/{environment_name}/deployment-branch-policies/{branch_policy_id}`),
  repoAdministration("write", "DELETE", `${R}/environments/{environment_name}/deployment-branch-policies/{branch_policy_id}`),
  repoAdministration("write", "POST", `${R}/environments/{environment_name}/deployment_protection_rules`),
  repoAdministration("write", "DELETE", `${R}/environments/{environment_name}/deployment_protection_rules/{protection_rule_id}`),
  // write: POST .../forks (multi); PUT|DELETE .../immutable-releases; PUT|DELETE .../interaction-limits;
  //        GET|PUT|DELETE .../interaction-limits/pulls/bypass-list; GET|PATCH .../interaction-limits/pulls/creation-cap
  repoAdministration("write", "POST", `${R}/forks`, MULTI),
  repoAdministration("write", "PUT", `${R}/immutable-releases`),
  repoAdministration("write", "DELETE", `${R}/immutable-releases`),
  repoAdministration("write", "PUT", `${R}/interaction-limits`),
  repoAdministration("write", "DELETE", `${R}/interaction-limits`),
  repoAdministration("write", "GET", `${R}/interaction-limits/pulls/bypass-list`),
  repoAdministration("write", "PUT", `${R}/interaction-limits/pulls/bypass-list`),
  repoAdministration("write", "DELETE", `${R}/interaction-limits/pulls/bypass-list`),
  repoAdministration("write", "GET", `${R}/interaction-limits/pulls/creation-cap`),
  repoAdministration("write", "PATCH", `${R}/interaction-limits/pulls/creation-cap`),
  // write: PATCH|DELETE .../invitations/{invitation_id}; POST .../keys; DELETE .../keys/{key_id}
  repoAdministration("write", "PATCH", `${R}/invitations/{invitation_id}`),
  repoAdministration("write", "DELETE", `${R}/invitations/{invitation_id}`),
  repoAdministration("write", "POST", `${R}/keys`),
  repoAdministration("write", "DELETE", `${R}/keys/{key_id}`),
  // write: POST|PUT|DELETE .../pages and GET .../pages/health (all multi)
  repoAdministration("write", "POST", `${R}/pages`, MULTI),
  repoAdministration("write", "PUT", `${R}/pages`, MULTI),
  repoAdministration("write", "DELETE", `${R}/pages`, MULTI),
  repoAdministration("write", "GET", `${R}/pages/health`, MULTI),
  // write: PUT|DELETE .../private-vulnerability-reporting; POST .../rulesets; PUT|DELETE .../rulesets/{ruleset_id};
  //        GET .../rulesets/{ruleset_id}/history and /history/{version_id}
  repoAdministration("write", "PUT", `${R}/private-vulnerability-reporting`),
  repoAdministration("write", "DELETE", `${R}/private-vulnerability-reporting`),
  repoAdministration("write", "POST", `${R}/rulesets`),
  repoAdministration("write", "PUT", `${R}/rulesets/{ruleset_id}`),
  repoAdministration("write", "DELETE", `${R}/rulesets/{ruleset_id}`),
  repoAdministration("write", "GET", `${R}/rulesets/{ruleset_id}/history`),
  repoAdministration("write", "GET", `${R}/rulesets/{ruleset_id}/history/{version_id}`),
  // write: POST .../security-advisories/{ghsa_id}/forks (multi); PUT .../topics; PUT|DELETE .../vulnerability-alerts;
  //        POST /repos/{template_owner}/{template_repo}/generate (multi); PUT|DELETE /teams/{team_id}/repos/{owner}/{repo} (multi)
  repoAdministration("write", "POST", `${R}/security-advisories/{ghsa_id}/forks`, MULTI),
  repoAdministration("write", "PUT", `${R}/topics`),
  repoAdministration("write", "PUT", `${R}/vulnerability-alerts`),
  repoAdministration("write", "DELETE", `${R}/vulnerability-alerts`),
  repoAdministration("write", "POST", "/repos/{template_owner}/{template_repo}/generate", MULTI),
  repoAdministration("write", "PUT", "/teams/{team_id}/repos/{owner}/{repo}", MULTI),
  repoAdministration("write", "DELETE", "/teams/{team_id}/repos/{owner}/{repo}", MULTI),
  // write, UAT only: POST /repos/{owner}/{repo}/transfer; POST /user/repos; PATCH|DELETE /user/repository_invitations/{invitation_id}
  repoAdministration("write", "POST", `${R}/transfer`, UAT),
  repoAdministration("write", "POST", "/user/repos", UAT),
  repoAdministration("write", "PATCH", "/user/repository_invitations/{invitation_id}", UAT),
  repoAdministration("write", "DELETE", "/user/repository_invitations/{invitation_id}", UAT),
  // read: GET .../actions/cache/retention-limit, /actions/permissions (+ /access, /artifact-and-log-retention,
  //       /fork-pr-contributor-approval, /fork-pr-workflows-private-repos, /selected-actions, /workflow)
  repoAdministration("read", "GET", `${R}/actions/cache/retention-limit`),
  repoAdministration("read", "GET", `${R}/actions/permissions`),
  repoAdministration("read", "GET", `${R}/actions/permissions/access`),
  repoAdministration("read", "GET", `${R}/actions/permissions/artifact-and-log-retention`),
  repoAdministration("read", "GET", `${R}/actions/permissions/fork-pr-contributor-approval`),
  repoAdministration("read", "GET", `${R}/actions/permissions/fork-pr-workflows-private-repos`),
  repoAdministration("read", "GET", `${R}/actions/permissions/selected-actions`),
  repoAdministration("read", "GET", `${R}/actions/permissions/workflow`),
  // read: /actions/runners, /runners/downloads, /runners/{runner_id}, /runners/{runner_id}/labels, /autolinks,
  //       /autolinks/{autolink_id}, /automated-security-fixes
  repoAdministration("read", "GET", `${R}/actions/runners`),
  repoAdministration("read", "GET", `${R}/actions/runners/downloads`),
  repoAdministration("read", "GET", `${R}/actions/runners/{runner_id}`),
  repoAdministration("read", "GET", `${R}/actions/runners/{runner_id}/labels`),
  repoAdministration("read", "GET", `${R}/autolinks`),
  repoAdministration("read", "GET", `${R}/autolinks/{autolink_id}`),
  repoAdministration("read", "GET", `${R}/automated-security-fixes`),
  // read: branch protection reads on every sub-path above
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/enforce_admins`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/required_pull_request_reviews`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/required_signatures`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/required_status_checks`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/required_status_checks/contexts`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/restrictions`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/restrictions/apps`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/restrictions/teams`),
  repoAdministration("read", "GET", `${R}/branches/{branch}/protection/restrictions/users`),
  // read: /code-scanning/default-setup, /code-security-configuration, /environments/{environment_name}/deployment_protection_rules/apps,
  //       /immutable-releases, /interaction-limits, /invitations (multi), /keys, /keys/{key_id}
  repoAdministration("read", "GET", `${R}/code-scanning/default-setup`),
  repoAdministration("read", "GET", `${R}/code-security-configuration`),
  repoAdministration("read", "GET", `${R}/environments/{environment_name}/deployment_protection_rules/apps`),
  repoAdministration("read", "GET", `${R}/immutable-releases`),
  repoAdministration("read", "GET", `${R}/interaction-limits`),
  repoAdministration("read", "GET", `${R}/invitations`, MULTI),
  repoAdministration("read", "GET", `${R}/keys`),
  repoAdministration("read", "GET", `${R}/keys/{key_id}`),
  // read: /rulesets/rule-suites, /rulesets/rule-suites/{rule_suite_id}, /teams, /traffic/clones, /traffic/popular/paths,
  //       /traffic/popular/referrers, /traffic/views, /vulnerability-alerts
  repoAdministration("read", "GET", `${R}/rulesets/rule-suites`),
  repoAdministration("read", "GET", `${R}/rulesets/rule-suites/{rule_suite_id}`),
  repoAdministration("read", "GET", `${R}/teams`),
  repoAdministration("read", "GET", `${R}/traffic/clones`),
  repoAdministration("read", "GET", `${R}/traffic/popular/paths`),
  repoAdministration("read", "GET", `${R}/traffic/popular/referrers`),
  repoAdministration("read", "GET", `${R}/traffic/views`),
  repoAdministration("read", "GET", `${R}/vulnerability-alerts`),
  // read, UAT only: GET /user/repository_invitations
  repoAdministration("read", "GET", "/user/repository_invitations", UAT),

  // ── Repository permission: Contents ──
  // write: POST .../branches/{branch}/rename; POST .../code-scanning/alerts/{alert_number}/autofix/commits;
  //        DELETE .../code-scanning/codeql/databases/{language}; POST .../code-scanning/codeql/variant-analyses
  repoContents("write", "POST", `${R}/branches/{branch}/rename`),
  repoContents("write", "POST", `${R}/code-scanning/alerts/{alert_number}/autofix/commits`),
  repoContents("write", "DELETE", `${R}/code-scanning/codeql/databases/{language}`),
  repoContents("write", "POST", `${R}/code-scanning/codeql/variant-analyses`),
  // write: PATCH|DELETE .../comments/{comment_id}; POST .../comments/{comment_id}/reactions; DELETE .../reactions/{reaction_id}
  repoContents("write", "PATCH", `${R}/comments/{comment_id}`),
  repoContents("write", "DELETE", `${R}/comments/{comment_id}`),
  repoContents("write", "POST", `${R}/comments/{comment_id}/reactions`),
  repoContents("write", "DELETE", `${R}/comments/{comment_id}/reactions/{reaction_id}`),
  // write: PUT|DELETE .../contents/{path} (multi); POST .../dependency-graph/snapshots; POST .../dispatches
  repoContents("write", "PUT", `${R}/contents/{path}`, MULTI),
  repoContents("write", "DELETE", `${R}/contents/{path}`, MULTI),
  repoContents("write", "POST", `${R}/dependency-graph/snapshots`),
  repoContents("write", "POST", `${R}/dispatches`),
  // write: POST .../git/blobs, /git/commits, /git/tags, /git/trees; POST .../git/refs (multi); PATCH .../git/refs/{ref} (multi);
  //        DELETE .../git/refs/{ref}
  repoContents("write", "POST", `${R}/git/blobs`),
  repoContents("write", "POST", `${R}/git/commits`),
  repoContents("write", "POST", `${R}/git/tags`),
  repoContents("write", "POST", `${R}/git/trees`),
  repoContents("write", "POST", `${R}/git/refs`, MULTI),
  repoContents("write", "PATCH", `${R}/git/refs/{ref}`, MULTI),
  repoContents("write", "DELETE", `${R}/git/refs/{ref}`),
  // write: POST .../merge-upstream; POST .../merges; PUT .../pulls/{pull_number}/merge; PUT .../pulls/{pull_number}/merge-async;
  //        GET .../pulls/{pull_number}/merge-async/{uuid}
  repoContents("write", "POST", `${R}/merge-upstream`),
  repoContents("write", "POST", `${R}/merges`),
  repoContents("write", "PUT", `${R}/pulls/{pull_number}/merge`),
  repoContents("write", "PUT", `${R}/pulls/{pull_number}/merge-async`),
  repoContents("write", "GET", `${R}/pulls/{pull_number}/merge-async/{uuid}`),
  // write: POST .../releases (multi); PATCH .../releases/{release_id} (multi); DELETE .../releases/{release_id};
  //        PATCH|DELETE .../releases/assets/{asset_id}; POST .../releases/generate-notes
  repoContents("write", "POST", `${R}/releases`, MULTI),
  repoContents("write", "PATCH", `${R}/releases/{release_id}`, MULTI),
  repoContents("write", "DELETE", `${R}/releases/{release_id}`),
  repoContents("write", "PATCH", `${R}/releases/assets/{asset_id}`),
  repoContents("write", "DELETE", `${R}/releases/assets/{asset_id}`),
  repoContents("write", "POST", `${R}/releases/generate-notes`),
  // write: GET .../stargazers and .../subscribers (multi, write)
  repoContents("write", "GET", `${R}/stargazers`, MULTI),
  repoContents("write", "GET", `${R}/subscribers`, MULTI),
  // write, UAT only: PUT|PATCH|DELETE .../import; PATCH .../import/authors/{author_id}; PATCH .../import/lfs;
  //        POST .../secret-scanning/push-protection-bypasses
  repoContents("write", "PUT", `${R}/import`, UAT),
  repoContents("write", "PATCH", `${R}/import`, UAT),
  repoContents("write", "DELETE", `${R}/import`, UAT),
  repoContents("write", "PATCH", `${R}/import/authors/{author_id}`, UAT),
  repoContents("write", "PATCH", `${R}/import/lfs`, UAT),
  repoContents("write", "POST", `${R}/secret-scanning/push-protection-bypasses`, UAT),
  // read: POST /markdown
  repoContents("read", "POST", "/markdown"),
  // read: GET .../activity, /branches, /branches/{branch}, /code-scanning/codeql/databases[/{language}],
  //       /code-scanning/codeql/variant-analyses/{codeql_variant_analysis_id}[/repos/{repo_owner}/{repo_name}], /codeowners/errors,
  //       /commits, /commits/{commit_sha}/branches-where-head
  repoContents("read", "GET", `${R}/activity`),
  repoContents("read", "GET", `${R}/branches`),
  repoContents("read", "GET", `${R}/branches/{branch}`),
  repoContents("read", "GET", `${R}/code-scanning/codeql/databases`),
  repoContents("read", "GET", `${R}/code-scanning/codeql/databases/{language}`),
  repoContents("read", "GET", `${R}/code-scanning/codeql/variant-analyses/{codeql_variant_analysis_id}`),
  repoContents("read", "GET", `${R}/code-scanning/codeql/variant-analyses/{codeql_variant_analysis_id}/repos/{repo_owner}/{repo_name}`),
  repoContents("read", "GET", `${R}/codeowners/errors`),
  repoContents("read", "GET", `${R}/commits`),
  repoContents("read", "GET", `${R}/commits/{commit_sha}/branches-where-head`),
  // read: POST /commits/{commit_sha}/comments
  repoContents("read", "POST", `${R}/commits/{commit_sha}/comments`),
  // read: GET /commits/{ref}, /community/profile, /compare/{basehead}, /contents/{path}, /dependency-graph/compare/{basehead},
  //       /dependency-graph/sbom, /dependency-graph/sbom/fetch-report/{sbom_uuid}, /dependency-graph/sbom/generate-report
  repoContents("read", "GET", `${R}/commits/{ref}`),
  repoContents("read", "GET", `${R}/community/profile`),
  repoContents("read", "GET", `${R}/compare/{basehead}`),
  repoContents("read", "GET", `${R}/contents/{path}`),
  repoContents("read", "GET", `${R}/dependency-graph/compare/{basehead}`),
  repoContents("read", "GET", `${R}/dependency-graph/sbom`),
  repoContents("read", "GET", `${R}/dependency-graph/sbom/fetch-report/{sbom_uuid}`),
  repoContents("read", "GET", `${R}/dependency-graph/sbom/generate-report`),
  // read: POST /forks (multi)
  repoContents("read", "POST", `${R}/forks`, MULTI),
  // read: GET /git/blobs/{file_sha}, /git/commits/{commit_sha}, /git/matching-refs/{ref}, /git/ref/{ref}, /git/tags/{tag_sha},
  //       /git/trees/{tree_sha}, /import, /import/authors, /import/large_files, /pulls/{pull_number} (multi), /readme, /readme/{dir}
  repoContents("read", "GET", `${R}/git/blobs/{file_sha}`),
  repoContents("read", "GET", `${R}/git/commits/{commit_sha}`),
  repoContents("read", "GET", `${R}/git/matching-refs/{ref}`),
  repoContents("read", "GET", `${R}/git/ref/{ref}`),
  repoContents("read", "GET", `${R}/git/tags/{tag_sha}`),
  repoContents("read", "GET", `${R}/git/trees/{tree_sha}`),
  repoContents("read", "GET", `${R}/import`),
  repoContents("read", "GET", `${R}/import/authors`),
  repoContents("read", "GET", `${R}/import/large_files`),
  repoContents("read", "GET", `${R}/pulls/{pull_number}`, MULTI),
  repoContents("read", "GET", `${R}/readme`),
  repoContents("read", "GET", `${R}/readme/{dir}`),
  // read: /releases, /releases/assets/{asset_id}, /releases/latest, /releases/tags/{tag}, /releases/{release_id},
  //       /releases/{release_id}/assets, /tarball/{ref}, /zipball/{ref}
  repoContents("read", "GET", `${R}/releases`),
  repoContents("read", "GET", `${R}/releases/assets/{asset_id}`),
  repoContents("read", "GET", `${R}/releases/latest`),
  repoContents("read", "GET", `${R}/releases/tags/{tag}`),
  repoContents("read", "GET", `${R}/releases/{release_id}`),
  repoContents("read", "GET", `${R}/releases/{release_id}/assets`),
  repoContents("read", "GET", `${R}/tarball/{ref}`),
  repoContents("read", "GET", `${R}/zipball/{ref}`),
  // read: POST /repos/{template_owner}/{template_repo}/generate (multi)
  repoContents("read", "POST", "/repos/{template_owner}/{template_repo}/generate", MULTI),

  // ── Repository permission: Issues (partial) ──
  // write: POST .../issues; PATCH|DELETE .../issues/comments/{comment_id} (multi); PUT|DELETE .../issues/comments/{comment_id}/pin;
  //        POST .../issues/comments/{comment_id}/reactions; DELETE .../reactions/{reaction_id}
  repoIssues("write", "POST", `${R}/issues`),
  repoIssues("write", "PATCH", `${R}/issues/comments/{comment_id}`, MULTI),
  repoIssues("write", "DELETE", `${R}/issues/comments/{comment_id}`, MULTI),
  repoIssues("write", "PUT", `${R}/issues/comments/{comment_id}/pin`),
  repoIssues("write", "DELETE", `${R}/issues/comments/{comment_id}/pin`),
  repoIssues("write", "POST", `${R}/issues/comments/{comment_id}/reactions`),
  repoIssues("write", "DELETE", `${R}/issues/comments/{comment_id}/reactions/{reaction_id}`),
  // write: PATCH .../issues/{issue_number} (multi); POST|DELETE .../issues/{issue_number}/assignees (multi);
  //        POST .../issues/{issue_number}/comments (multi)
  repoIssues("write", "PATCH", `${R}/issues/{issue_number}`, MULTI),
  repoIssues("write", "POST", `${R}/issues/{issue_number}/assignees`, MULTI),
  repoIssues("write", "DELETE", `${R}/issues/{issue_number}/assignees`, MULTI),
  repoIssues("write", "POST", `${R}/issues/{issue_number}/comments`, MULTI),
  // write: POST .../issues/{issue_number}/dependencies/blocked_by; DELETE .../blocked_by/{issue_id}
  repoIssues("write", "POST", `${R}/issues/{issue_number}/dependencies/blocked_by`),
  repoIssues("write", "DELETE", `${R}/issues/{issue_number}/dependencies/blocked_by/{issue_id}`),
  // write: POST|PUT .../issues/{issue_number}/issue-field-values (multi); DELETE .../issue-field-values/{issue_field_id} (multi)
  repoIssues("write", "POST", `${R}/issues/{issue_number}/issue-field-values`, MULTI),
  repoIssues("write", "PUT", `${R}/issues/{issue_number}/issue-field-values`, MULTI),
  repoIssues("write", "DELETE", `${R}/issues/{issue_number}/issue-field-values/{issue_field_id}`, MULTI),
];
