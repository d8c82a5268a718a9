import { describe, expect, it } from "vitest";
import {
  ENDPOINT_STATEMENTS,
  PERMISSIONS,
  PERMISSION_MATRIX,
  requiredPermissions,
  type PermissionResolution,
} from "@shiplog/client/permissions";
import { coveredEndpoints } from "../src/access/required-permissions.js";
import { parseTemplate } from "../src/transport/path-templates.js";

type Grant = `${string}=${"read" | "write"}`;

interface Expected {
  template: string;
  needs: Grant[];
  tokens: ("UAT" | "IAT")[];
  multi: boolean;
  combine?: "allOf" | "anyOf" | "unspecified";
}

function resolve(method: string, path: string): PermissionResolution {
  const answer = requiredPermissions(method, path);
  if (!answer.covered) throw new Error(`${method} ${path} not covered: ${answer.message}`);
  return answer;
}

function summary(answer: PermissionResolution): Expected {
  const tokens = new Set(answer.requirements.flatMap((r) => r.tokenTypes));
  return {
    template: answer.template,
    needs: answer.requirements.map((r) => `${r.permission}=${r.access}` as Grant),
    tokens: (["UAT", "IAT"] as const).filter((t) => tokens.has(t)),
    multi: answer.multi,
    combine: answer.combine,
  };
}

const BOTH: ("UAT" | "IAT")[] = ["UAT", "IAT"];
const UAT: ("UAT" | "IAT")[] = ["UAT"];

// Concrete calls and what section 5.3 says they need, written out by hand from the spec (not from the data).
// The comment on each group names the shorthand form of 5.3 it exercises.
const CALLS: [method: string, path: string, expected: Expected][] = [
  // A|B alternatives: PATCH|DELETE /orgs/{org}
  ["PATCH", "/orgs/acme", { template: "/orgs/{org}", needs: ["organization_administration=write"], tokens: BOTH, multi: false }],
  ["DELETE", "/orgs/acme", { template: "/orgs/{org}", needs: ["organization_administration=write"], tokens: BOTH, multi: false }],
  // A|B and `...` continuing the previous full path: PATCH|DELETE .../budgets/{budget_id}
  [
    "DELETE",
    "/organizations/acme/settings/billing/budgets/42",
    {
      template: "/organizations/{org}/settings/billing/budgets/{budget_id}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // `...` continuation: DELETE .../properties/repo/{custom_property_name}; PUT .../oidc/customization/sub
  [
    "DELETE",
    "/orgs/acme/actions/oidc/customization/properties/repo/team",
    {
      template: "/orgs/{org}/actions/oidc/customization/properties/repo/{custom_property_name}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "PUT",
    "/orgs/acme/actions/oidc/customization/sub",
    {
      template: "/orgs/{org}/actions/oidc/customization/sub",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // "and /x" lists: PUT /organizations/{org}/actions/cache/retention-limit and /storage-limit
  [
    "PUT",
    "/organizations/acme/actions/cache/storage-limit",
    {
      template: "/organizations/{org}/actions/cache/storage-limit",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // "its sub-paths" list and the multi PUT|DELETE .../self-hosted-runners/repositories/{repository_id}
  [
    "PUT",
    "/orgs/acme/actions/permissions/fork-pr-workflows-private-repos",
    {
      template: "/orgs/{org}/actions/permissions/fork-pr-workflows-private-repos",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "DELETE",
    "/orgs/acme/actions/permissions/self-hosted-runners/repositories/99",
    {
      template: "/orgs/{org}/actions/permissions/self-hosted-runners/repositories/{repository_id}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: true,
    },
  ],
  // the read counterparts of the write sub-paths
  [
    "GET",
    "/orgs/acme/actions/permissions/self-hosted-runners/repositories",
    {
      template: "/orgs/{org}/actions/permissions/self-hosted-runners/repositories",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/orgs/acme/actions/permissions/workflow",
    {
      template: "/orgs/{org}/actions/permissions/workflow",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // a literal beats a parameter: DELETE .../configurations/detach vs PATCH|DELETE .../configurations/{configuration_id}
  [
    "DELETE",
    "/orgs/acme/code-security/configurations/detach",
    {
      template: "/orgs/{org}/code-security/configurations/detach",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "POST",
    "/orgs/acme/code-security/configurations/17/attach",
    {
      template: "/orgs/{org}/code-security/configurations/{configuration_id}/attach",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/orgs/acme/code-security/configurations/defaults",
    {
      template: "/orgs/{org}/code-security/configurations/defaults",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // write, multi, listed under two permissions (Organization Administration and assistant business)
  [
    "POST",
    "/orgs/acme/assistant/billing/selected_users",
    {
      template: "/orgs/{org}/assistant/billing/selected_users",
      needs: ["organization_administration=write", "organization_assistant_seat_management=write"],
      tokens: BOTH,
      multi: true,
      combine: "unspecified",
    },
  ],
  // Read, multi: GET /orgs/{org}/assistant/billing, /billing/seats, /orgs/{org}/members/{username}/assistant
  [
    "GET",
    "/orgs/acme/members/bob/assistant",
    {
      template: "/orgs/{org}/members/{username}/assistant",
      needs: ["organization_administration=read", "organization_assistant_seat_management=read"],
      tokens: BOTH,
      multi: true,
      combine: "unspecified",
    },
  ],
  // write with a GET, both token types noted: GET|PATCH /orgs/{org}/interaction-limits/pulls/creation-cap (UAT and IAT)
  [
    "GET",
    "/orgs/acme/interaction-limits/pulls/creation-cap",
    {
      template: "/orgs/{org}/interaction-limits/pulls/creation-cap",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // write (including GET): the rulesets block
  [
    "GET",
    "/orgs/acme/rulesets",
    { template: "/orgs/{org}/rulesets", needs: ["organization_administration=write"], tokens: BOTH, multi: false },
  ],
  [
    "GET",
    "/orgs/acme/rulesets/rule-suites/5",
    {
      template: "/orgs/{org}/rulesets/rule-suites/{rule_suite_id}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/orgs/acme/rulesets/12/history/3",
    {
      template: "/orgs/{org}/rulesets/{ruleset_id}/history/{version_id}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // POST /orgs/{org}/{security_product}/{enablement}
  [
    "POST",
    "/orgs/acme/secret_scanning/enable_all",
    {
      template: "/orgs/{org}/{security_product}/{enablement}",
      needs: ["organization_administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // /orgs/{org}/actions/hosted-runners with /images/service-owned, ..., /{hosted_runner_id}
  [
    "GET",
    "/orgs/acme/actions/hosted-runners/images/service-owned",
    {
      template: "/orgs/{org}/actions/hosted-runners/images/service-owned",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/orgs/acme/actions/hosted-runners/7",
    {
      template: "/orgs/{org}/actions/hosted-runners/{hosted_runner_id}",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // /organizations/{org}/settings/billing/... /usage, /usage/summary
  [
    "GET",
    "/organizations/acme/settings/billing/usage/summary",
    {
      template: "/organizations/{org}/settings/billing/usage/summary",
      needs: ["organization_administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // assistant business: PUT|DELETE .../collaborators/{actor_type}/{actor_identifier}
  [
    "DELETE",
    "/orgs/acme/assistant-spaces/3/collaborators/team/reviewers",
    {
      template: "/orgs/{org}/assistant-spaces/{space_number}/collaborators/{actor_type}/{actor_identifier}",
      needs: ["organization_assistant_seat_management=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // Members: PUT|DELETE .../users/{username}/{role_id} continues /orgs/{org}/organization-roles/users
  [
    "PUT",
    "/orgs/acme/organization-roles/users/bob/8",
    {
      template: "/orgs/{org}/organization-roles/users/{username}/{role_id}",
      needs: ["members=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // Members: PUT|DELETE /teams/{team_id}/members/{username} and /memberships/{username}
  [
    "DELETE",
    "/teams/5/memberships/bob",
    { template: "/teams/{team_id}/memberships/{username}", needs: ["members=write"], tokens: BOTH, multi: false },
  ],
  // Members, UAT only (write and read)
  [
    "PUT",
    "/orgs/acme/public_members/bob",
    { template: "/orgs/{org}/public_members/{username}", needs: ["members=write"], tokens: UAT, multi: false },
  ],
  [
    "GET",
    "/orgs/acme/public_members/bob",
    { template: "/orgs/{org}/public_members/{username}", needs: ["members=read"], tokens: BOTH, multi: false },
  ],
  [
    "PATCH",
    "/user/memberships/orgs/acme",
    { template: "/user/memberships/orgs/{org}", needs: ["members=write"], tokens: UAT, multi: false },
  ],
  ["GET", "/user/memberships/orgs/acme", { template: "/user/memberships/orgs/{org}", needs: ["members=read"], tokens: UAT, multi: false }],
  // Members read `...` list: .../memberships/{username} continues /orgs/{org}/teams/{team_slug}
  [
    "GET",
    "/orgs/acme/teams/ops/memberships/bob",
    {
      template: "/orgs/{org}/teams/{team_slug}/memberships/{username}",
      needs: ["members=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // read, multi: GET|PUT|DELETE /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo} (PUT also Repository Administration write, multi)
  [
    "GET",
    "/orgs/acme/teams/ops/repos/acme/web",
    {
      template: "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}",
      needs: ["members=read"],
      tokens: BOTH,
      multi: true,
    },
  ],
  [
    "PUT",
    "/teams/5/repos/acme/web",
    {
      template: "/teams/{team_id}/repos/{owner}/{repo}",
      needs: ["members=read", "administration=write"],
      tokens: BOTH,
      multi: true,
      combine: "unspecified",
    },
  ],
  // Self-hosted runners: PUT|DELETE .../runners/{runner_id} continues .../runner-groups/{runner_group_id}
  [
    "DELETE",
    "/orgs/acme/actions/runner-groups/4/runners/9",
    {
      template: "/orgs/{org}/actions/runner-groups/{runner_group_id}/runners/{runner_id}",
      needs: ["organization_self_hosted_runners=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/orgs/acme/actions/runners/downloads",
    {
      template: "/orgs/{org}/actions/runners/downloads",
      needs: ["organization_self_hosted_runners=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "DELETE",
    "/orgs/acme/actions/runners/9/labels/gpu",
    {
      template: "/orgs/{org}/actions/runners/{runner_id}/labels/{name}",
      needs: ["organization_self_hosted_runners=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // Actions: /runs/{run_id} and its /attempts/{attempt_number}/logs
  [
    "GET",
    "/repos/acme/web/actions/runs/77/attempts/2/logs",
    {
      template: "/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/logs",
      needs: ["actions=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "POST",
    "/repos/acme/web/actions/runs/77/rerun-failed-jobs",
    {
      template: "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
      needs: ["actions=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // [/{id}] optional segments: /deployment-branch-policies[/{branch_policy_id}]
  [
    "GET",
    "/repos/acme/web/environments/prod/deployment-branch-policies",
    {
      template: "/repos/{owner}/{repo}/environments/{environment_name}/deployment-branch-policies",
      needs: ["actions=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/environments/prod/deployment-branch-policies/9",
    {
      template: "/repos/{owner}/{repo}/environments/{environment_name}/deployment-branch-policies/{branch_policy_id}",
      needs: ["actions=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // literal `apps` (Administration read) beats {protection_rule_id} (Actions read)
  [
    "GET",
    "/repos/acme/web/environments/prod/deployment_protection_rules/apps",
    {
      template: "/repos/{owner}/{repo}/environments/{environment_name}/deployment_protection_rules/apps",
      needs: ["administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/environments/prod/deployment_protection_rules/12",
    {
      template: "/repos/{owner}/{repo}/environments/{environment_name}/deployment_protection_rules/{protection_rule_id}",
      needs: ["actions=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // [/{language}] and [/repos/{repo_owner}/{repo_name}]
  [
    "GET",
    "/repos/acme/web/code-scanning/codeql/databases",
    {
      template: "/repos/{owner}/{repo}/code-scanning/codeql/databases",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/code-scanning/codeql/databases/python",
    {
      template: "/repos/{owner}/{repo}/code-scanning/codeql/databases/{language}",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/code-scanning/codeql/variant-analyses/31/repos/octo/lib",
    {
      template: "/repos/{owner}/{repo}/code-scanning/codeql/variant-analyses/{codeql_variant_analysis_id}/repos/{repo_owner}/{repo_name}",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // Repository Administration: PATCH|DELETE /repos/{owner}/{repo}; write (including GET) code-quality/setup
  ["DELETE", "/repos/acme/web", { template: "/repos/{owner}/{repo}", needs: ["administration=write"], tokens: BOTH, multi: false }],
  [
    "GET",
    "/repos/acme/web/code-quality/setup",
    { template: "/repos/{owner}/{repo}/code-quality/setup", needs: ["administration=write"], tokens: BOTH, multi: false },
  ],
  // branch protection: POST|PUT|DELETE /restrictions/teams, and "branch protection reads on every sub-path above"
  [
    "PUT",
    "/repos/acme/web/branches/main/protection/restrictions/teams",
    {
      template: "/repos/{owner}/{repo}/branches/{branch}/protection/restrictions/teams",
      needs: ["administration=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/branches/main/protection/required_status_checks/contexts",
    {
      template: "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks/contexts",
      needs: ["administration=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // POST|PUT|DELETE .../pages and GET .../pages/health (all multi): a GET needing write
  [
    "GET",
    "/repos/acme/web/pages/health",
    { template: "/repos/{owner}/{repo}/pages/health", needs: ["administration=write"], tokens: BOTH, multi: true },
  ],
  // POST .../forks: Administration write (multi) and Contents read (multi)
  [
    "POST",
    "/repos/acme/web/forks",
    {
      template: "/repos/{owner}/{repo}/forks",
      needs: ["administration=write", "contents=read"],
      tokens: BOTH,
      multi: true,
      combine: "unspecified",
    },
  ],
  [
    "POST",
    "/repos/acme/web/generate",
    {
      template: "/repos/{template_owner}/{template_repo}/generate",
      needs: ["administration=write", "contents=read"],
      tokens: BOTH,
      multi: true,
      combine: "unspecified",
    },
  ],
  // write, UAT only: POST /repos/{owner}/{repo}/transfer; read, UAT only: GET /user/repository_invitations
  [
    "POST",
    "/repos/acme/web/transfer",
    { template: "/repos/{owner}/{repo}/transfer", needs: ["administration=write"], tokens: UAT, multi: false },
  ],
  [
    "GET",
    "/user/repository_invitations",
    { template: "/user/repository_invitations", needs: ["administration=read"], tokens: UAT, multi: false },
  ],
  [
    "GET",
    "/repos/acme/web/invitations",
    { template: "/repos/{owner}/{repo}/invitations", needs: ["administration=read"], tokens: BOTH, multi: true },
  ],
  // Contents: DELETE .../reactions/{reaction_id} continues .../comments/{comment_id}
  [
    "DELETE",
    "/repos/acme/web/comments/1/reactions/2",
    {
      template: "/repos/{owner}/{repo}/comments/{comment_id}/reactions/{reaction_id}",
      needs: ["contents=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // PUT|DELETE .../contents/{path} (multi): the path spans segments
  [
    "PUT",
    "/repos/acme/web/contents/docs/guide/intro.md",
    {
      template: "/repos/{owner}/{repo}/contents/{path}",
      needs: ["contents=write"],
      tokens: BOTH,
      multi: true,
    },
  ],
  // POST .../git/blobs, /git/commits, /git/tags, /git/trees; POST .../git/refs (multi); PATCH .../git/refs/{ref} (multi); DELETE not multi
  [
    "POST",
    "/repos/acme/web/git/tags",
    { template: "/repos/{owner}/{repo}/git/tags", needs: ["contents=write"], tokens: BOTH, multi: false },
  ],
  [
    "POST",
    "/repos/acme/web/git/trees",
    { template: "/repos/{owner}/{repo}/git/trees", needs: ["contents=write"], tokens: BOTH, multi: false },
  ],
  [
    "POST",
    "/repos/acme/web/git/refs",
    { template: "/repos/{owner}/{repo}/git/refs", needs: ["contents=write"], tokens: BOTH, multi: true },
  ],
  [
    "PATCH",
    "/repos/acme/web/git/refs/tags/v1.2.0",
    { template: "/repos/{owner}/{repo}/git/refs/{ref}", needs: ["contents=write"], tokens: BOTH, multi: true },
  ],
  [
    "DELETE",
    "/repos/acme/web/git/refs/tags/v1.2.0",
    { template: "/repos/{owner}/{repo}/git/refs/{ref}", needs: ["contents=write"], tokens: BOTH, multi: false },
  ],
  // a GET in the write list: GET .../pulls/{pull_number}/merge-async/{uuid}; GET .../stargazers and .../subscribers (multi, write)
  [
    "GET",
    "/repos/acme/web/pulls/3/merge-async/5b1c",
    {
      template: "/repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}",
      needs: ["contents=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/subscribers",
    { template: "/repos/{owner}/{repo}/subscribers", needs: ["contents=write"], tokens: BOTH, multi: true },
  ],
  // write, UAT only: PUT|PATCH|DELETE .../import; read (both): GET .../import/large_files
  ["PUT", "/repos/acme/web/import", { template: "/repos/{owner}/{repo}/import", needs: ["contents=write"], tokens: UAT, multi: false }],
  [
    "PATCH",
    "/repos/acme/web/import/lfs",
    { template: "/repos/{owner}/{repo}/import/lfs", needs: ["contents=write"], tokens: UAT, multi: false },
  ],
  [
    "GET",
    "/repos/acme/web/import/large_files",
    { template: "/repos/{owner}/{repo}/import/large_files", needs: ["contents=read"], tokens: BOTH, multi: false },
  ],
  [
    "POST",
    "/repos/acme/web/secret-scanning/push-protection-bypasses",
    {
      template: "/repos/{owner}/{repo}/secret-scanning/push-protection-bypasses",
      needs: ["contents=write"],
      tokens: UAT,
      multi: false,
    },
  ],
  // read with POST: POST /markdown; POST /commits/{commit_sha}/comments
  ["POST", "/markdown", { template: "/markdown", needs: ["contents=read"], tokens: BOTH, multi: false }],
  [
    "POST",
    "/repos/acme/web/commits/abc123/comments",
    {
      template: "/repos/{owner}/{repo}/commits/{commit_sha}/comments",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  // a one-segment parameter beats a multi-segment one: /commits/{commit_sha}/branches-where-head vs /commits/{ref}
  [
    "GET",
    "/repos/acme/web/commits/abc123/branches-where-head",
    {
      template: "/repos/{owner}/{repo}/commits/{commit_sha}/branches-where-head",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/commits/heads/main",
    { template: "/repos/{owner}/{repo}/commits/{ref}", needs: ["contents=read"], tokens: BOTH, multi: false },
  ],
  [
    "GET",
    "/repos/acme/web/compare/main...feature/login",
    {
      template: "/repos/{owner}/{repo}/compare/{basehead}",
      needs: ["contents=read"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "GET",
    "/repos/acme/web/pulls/3",
    { template: "/repos/{owner}/{repo}/pulls/{pull_number}", needs: ["contents=read"], tokens: BOTH, multi: true },
  ],
  [
    "GET",
    "/repos/acme/web/releases/latest",
    { template: "/repos/{owner}/{repo}/releases/latest", needs: ["contents=read"], tokens: BOTH, multi: false },
  ],
  [
    "GET",
    "/repos/acme/web/releases/8/assets",
    { template: "/repos/{owner}/{repo}/releases/{release_id}/assets", needs: ["contents=read"], tokens: BOTH, multi: false },
  ],
  [
    "PATCH",
    "/repos/acme/web/releases/8",
    { template: "/repos/{owner}/{repo}/releases/{release_id}", needs: ["contents=write"], tokens: BOTH, multi: true },
  ],
  [
    "DELETE",
    "/repos/acme/web/releases/8",
    { template: "/repos/{owner}/{repo}/releases/{release_id}", needs: ["contents=write"], tokens: BOTH, multi: false },
  ],
  // Issues: DELETE .../blocked_by/{issue_id} continues .../issues/{issue_number}/dependencies
  [
    "DELETE",
    "/repos/acme/web/issues/4/dependencies/blocked_by/9",
    {
      template: "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}",
      needs: ["issues=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
  [
    "PUT",
    "/repos/acme/web/issues/4/issue-field-values",
    {
      template: "/repos/{owner}/{repo}/issues/{issue_number}/issue-field-values",
      needs: ["issues=write"],
      tokens: BOTH,
      multi: true,
    },
  ],
  [
    "DELETE",
    "/repos/acme/web/issues/comments/6/pin",
    {
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/pin",
      needs: ["issues=write"],
      tokens: BOTH,
      multi: false,
    },
  ],
];

describe("section 5.3: concrete calls resolve to what the spec gives", () => {
  it("has at least 40 calls", () => {
    expect(CALLS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CALLS)("%s %s", (method, path, expected) => {
    const got = summary(resolve(method, path));
    expect(got).toEqual({ combine: "allOf", ...expected });
  });

  it("takes parameters from the path, multi-segment ones whole and percent-decoded", () => {
    expect(resolve("PATCH", "/repos/acme/web/git/refs/tags/v1.2.0").params).toEqual({ owner: "acme", repo: "web", ref: "tags/v1.2.0" });
    expect(resolve("GET", "/repos/acme/web/contents/a%20b/c.md").params.path).toBe("a b/c.md");
  });

  it("accepts lower-case methods, full URLs, query strings and a trailing slash", () => {
    expect(resolve("post", "/repos/acme/web/git/tags").template).toBe("/repos/{owner}/{repo}/git/tags");
    expect(resolve("GET", "https://api.example.test/repos/acme/web/git/tags/abc?x=1").template).toBe(
      "/repos/{owner}/{repo}/git/tags/{tag_sha}",
    );
    expect(resolve("GET", "/repos/acme/web/releases/").template).toBe("/repos/{owner}/{repo}/releases");
  });
});

// Every endpoint of sections 4.1 to 4.5 (and 4.4b), with what its statement says.
// 4.1 and 4.2 name their token types (app user, app installation, fine-grained): no personal access token (classic).
const SECTION_4: [method: string, path: string, template: string, needs: Grant[], combine: "allOf" | "anyOf", tokenKinds: string[]][] = [
  [
    "POST",
    "/orgs/acme/artifacts/metadata/deployment-record",
    "/orgs/{org}/artifacts/metadata/deployment-record",
    ["artifact_metadata=write"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "POST",
    "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu",
    "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}",
    ["artifact_metadata=write"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "POST",
    "/orgs/acme/artifacts/metadata/storage-record",
    "/orgs/{org}/artifacts/metadata/storage-record",
    ["artifact_metadata=write"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    `/orgs/acme/artifacts/sha256:${"a".repeat(64)}/metadata/deployment-records`,
    "/orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records",
    ["artifact_metadata=read"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    `/orgs/acme/artifacts/sha256:${"a".repeat(64)}/metadata/storage-records`,
    "/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records",
    ["artifact_metadata=read", "contents=read"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "POST",
    "/repos/acme/web/git/tags",
    "/repos/{owner}/{repo}/git/tags",
    ["contents=write"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/repos/acme/web/git/tags/940bd336248efae0f9ee5bc7b2d5c985887b16ac",
    "/repos/{owner}/{repo}/git/tags/{tag_sha}",
    ["contents=read"],
    "allOf",
    ["fine_grained", "app_user", "app_installation"],
  ],
  ["GET", "/notifications", "/notifications", [], "allOf", ["classic"]],
  ["PUT", "/notifications", "/notifications", [], "allOf", ["classic"]],
  ["GET", "/notifications/threads/1", "/notifications/threads/{thread_id}", [], "allOf", ["classic"]],
  ["PATCH", "/notifications/threads/1", "/notifications/threads/{thread_id}", [], "allOf", ["classic"]],
  ["DELETE", "/notifications/threads/1", "/notifications/threads/{thread_id}", [], "allOf", ["classic"]],
  ["GET", "/notifications/threads/1/subscription", "/notifications/threads/{thread_id}/subscription", [], "allOf", ["classic"]],
  ["PUT", "/notifications/threads/1/subscription", "/notifications/threads/{thread_id}/subscription", [], "allOf", ["classic"]],
  ["DELETE", "/notifications/threads/1/subscription", "/notifications/threads/{thread_id}/subscription", [], "allOf", ["classic"]],
  ["GET", "/repos/acme/web/notifications", "/repos/{owner}/{repo}/notifications", [], "allOf", ["classic"]],
  ["PUT", "/repos/acme/web/notifications", "/repos/{owner}/{repo}/notifications", [], "allOf", ["classic"]],
  ["GET", "/events", "/events", [], "allOf", ["classic", "fine_grained", "app_user", "app_installation"]],
  [
    "GET",
    "/networks/acme/web/events",
    "/networks/{owner}/{repo}/events",
    [],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  ["GET", "/orgs/acme/events", "/orgs/{org}/events", [], "allOf", ["classic", "fine_grained", "app_user", "app_installation"]],
  [
    "GET",
    "/repos/acme/web/events",
    "/repos/{owner}/{repo}/events",
    ["metadata=read"],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  ["GET", "/users/octo/events", "/users/{username}/events", [], "allOf", ["classic", "fine_grained", "app_user", "app_installation"]],
  [
    "GET",
    "/users/octo/events/orgs/acme",
    "/users/{username}/events/orgs/{org}",
    ["organization_events=read"],
    "allOf",
    ["classic", "fine_grained", "app_user"],
  ],
  [
    "GET",
    "/users/octo/events/public",
    "/users/{username}/events/public",
    [],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/users/octo/received_events",
    "/users/{username}/received_events",
    [],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/users/octo/received_events/public",
    "/users/{username}/received_events/public",
    [],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/repos/acme/web/issues/events",
    "/repos/{owner}/{repo}/issues/events",
    ["issues=read"],
    "allOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/repos/acme/web/issues/events/55",
    "/repos/{owner}/{repo}/issues/events/{event_id}",
    ["issues=read", "pull_requests=read"],
    "anyOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  [
    "GET",
    "/repos/acme/web/issues/12/events",
    "/repos/{owner}/{repo}/issues/{issue_number}/events",
    ["issues=read", "pull_requests=read"],
    "anyOf",
    ["classic", "fine_grained", "app_user", "app_installation"],
  ],
  ["GET", "/repos/acme/web/import", "/repos/{owner}/{repo}/import", ["contents=read"], "allOf", ["classic"]],
  ["PUT", "/repos/acme/web/import", "/repos/{owner}/{repo}/import", ["contents=write"], "allOf", ["classic"]],
  ["PATCH", "/repos/acme/web/import", "/repos/{owner}/{repo}/import", ["contents=write"], "allOf", ["classic"]],
  ["DELETE", "/repos/acme/web/import", "/repos/{owner}/{repo}/import", ["contents=write"], "allOf", ["classic"]],
  ["GET", "/repos/acme/web/import/authors", "/repos/{owner}/{repo}/import/authors", ["contents=read"], "allOf", ["classic"]],
  [
    "PATCH",
    "/repos/acme/web/import/authors/3",
    "/repos/{owner}/{repo}/import/authors/{author_id}",
    ["contents=write"],
    "allOf",
    ["classic"],
  ],
  ["GET", "/repos/acme/web/import/large_files", "/repos/{owner}/{repo}/import/large_files", ["contents=read"], "allOf", ["classic"]],
  ["PATCH", "/repos/acme/web/import/lfs", "/repos/{owner}/{repo}/import/lfs", ["contents=write"], "allOf", ["classic"]],
];

describe("sections 4.1 to 4.5: every endpoint resolves", () => {
  it("lists every statement of the data", () => {
    expect(SECTION_4.map(([m, , t]) => `${m} ${t}`).sort()).toEqual(ENDPOINT_STATEMENTS.map((s) => `${s.method} ${s.path}`).sort());
  });

  it.each(SECTION_4)("%s %s", (method, path, template, needs, combine, tokenKinds) => {
    const answer = resolve(method, path);
    expect(answer.template).toBe(template);
    expect(answer.requirements.map((r) => `${r.permission}=${r.access}`)).toEqual(needs);
    expect(answer.combine).toBe(combine);
    expect(answer.tokenKinds).toEqual(tokenKinds);
  });

  it("asks Contents read of fine-grained tokens only on the storage-record listing (4.1)", () => {
    const answer = resolve("GET", `/orgs/acme/artifacts/sha256:${"b".repeat(64)}/metadata/storage-records`);
    const contents = answer.requirements.find((r) => r.permission === "contents");
    expect(contents).toMatchObject({ access: "read", fineGrained: true, tokenTypes: [] });
    expect(answer.requirements.find((r) => r.permission === "artifact_metadata")?.tokenTypes).toEqual(["UAT", "IAT"]);
    expect(resolve("GET", `/orgs/acme/artifacts/sha256:${"b".repeat(64)}/metadata/deployment-records`).requirements).toHaveLength(1);
  });

  it("4.1 and 4.2 leave out the personal access token (classic), and say where the token types come from", () => {
    const artifacts = resolve("POST", "/orgs/acme/artifacts/metadata/storage-record");
    expect(artifacts.tokenKinds).not.toContain("classic");
    expect(artifacts.notes).toContain(
      "Token types come from 4.1: fine-grained personal access token, app user access token (UAT), app installation access token (IAT); a personal access token (classic) is refused.",
    );
    const tag = resolve("GET", "/repos/acme/web/git/tags/abc");
    expect(tag.tokenKinds).not.toContain("classic");
    expect(tag.notes.join(" ")).toMatch(/Token types come from 4\.2: .*; a personal access token \(classic\) is refused\./);
    // Where section 4 does not name the token types, classic stays (5.1 governs it by scopes).
    expect(resolve("POST", "/repos/acme/web/git/refs").tokenKinds).toContain("classic");
    expect(resolve("GET", "/repos/acme/web/issues/events").tokenKinds).toContain("classic");
  });

  it("names the permissions with the spec's titles and levels", () => {
    const answer = resolve("POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod");
    expect(answer.requirements[0]).toMatchObject({ title: "Artifact metadata", scope: "repository", access: "write" });
    expect(resolve("GET", "/users/octo/events/orgs/acme").requirements[0]).toMatchObject({ title: "Events", scope: "organization" });
  });
});

describe("section 5.1 rules", () => {
  it("notification endpoints: classic token only, scope notifications or repo", () => {
    const answer = resolve("PATCH", "/notifications/threads/9");
    expect(answer.tokenKinds).toEqual(["classic"]);
    expect(answer.classicScopes).toEqual(["notifications", "repo"]);
    expect(answer.notes.join(" ")).toMatch(/only a personal access token \(classic\)/);
  });

  it("source imports: classic token only, although 5.3 lists Contents for app tokens", () => {
    const answer = resolve("PUT", "/repos/acme/web/import");
    expect(answer.tokenKinds).toEqual(["classic"]);
    expect(answer.requirements).toEqual([
      expect.objectContaining({
        permission: "contents",
        access: "write",
        tokenTypes: ["UAT"],
        sources: ["4.4b Source imports", "5.3 Repository permission: Contents"],
      }),
    ]);
  });

  it("reading issues and commits through their own endpoints needs the scope repo", () => {
    expect(resolve("GET", "/repos/acme/web/issues/events").classicScopes).toEqual(["repo"]);
    expect(resolve("GET", "/repos/acme/web/commits").classicScopes).toEqual(["repo"]);
    expect(resolve("POST", "/repos/acme/web/git/tags").classicScopes).toBeNull();
  });

  it("public resources readable without authentication: Get a tag, repository events, issue event reads, public feeds", () => {
    for (const [m, p] of [
      ["GET", "/repos/acme/web/git/tags/abc"],
      ["GET", "/repos/acme/web/events"],
      ["GET", "/repos/acme/web/issues/events"],
      ["GET", "/repos/acme/web/issues/events/4"],
      ["GET", "/repos/acme/web/issues/4/events"],
      ["GET", "/events"],
      ["GET", "/users/octo/events/public"],
      ["GET", "/users/octo/received_events/public"],
    ] as const) {
      expect(resolve(m, p).publicReadable, `${m} ${p}`).toBe(true);
    }
    for (const [m, p] of [
      ["POST", "/repos/acme/web/git/tags"],
      ["GET", "/users/octo/events/orgs/acme"],
      ["GET", "/notifications"],
      ["GET", "/orgs/acme/artifacts/sha256:abc/metadata/deployment-records"],
    ] as const) {
      expect(resolve(m, p).publicReadable, `${m} ${p}`).toBe(false);
    }
  });
});

describe("calls the matrix does not cover are reported, not guessed", () => {
  it.each([
    ["GET", "/repos/acme/web/deployments"],
    ["GET", "/"],
    ["POST", "/orgs/acme/artifacts/metadata"], // not POST /orgs/{org}/{security_product}/{enablement}
    ["GET", "/users/octo/starred"],
    ["GET", "/repos/acme/web/git/tags/abc/extra"],
  ])("%s %s is unknown", (method, path) => {
    const answer = requiredPermissions(method, path);
    expect(answer).toMatchObject({ covered: false, reason: "unknown_path" });
    if (!answer.covered) expect(answer.message).toContain("does not cover");
  });

  it("a known path with a method the matrix lacks names the methods it has", () => {
    expect(requiredPermissions("GET", "/repos/acme/web/issues/12")).toMatchObject({
      covered: false,
      reason: "method_not_covered",
      template: "/repos/{owner}/{repo}/issues/{issue_number}",
      knownMethods: ["PATCH"],
    });
    // GET on the repository itself is not in the partial matrix; PATCH and DELETE are
    expect(requiredPermissions("GET", "/repos/acme/web")).toMatchObject({
      reason: "method_not_covered",
      knownMethods: ["PATCH", "DELETE"],
    });
    // read counterparts exist for the eight sub-paths, not for the PUT|DELETE {repository_id} paths
    expect(requiredPermissions("GET", "/orgs/acme/actions/permissions/repositories/7")).toMatchObject({ reason: "method_not_covered" });
  });

  it("bad methods and paths are invalid input", () => {
    expect(requiredPermissions("FETCH", "/events")).toMatchObject({ covered: false, reason: "invalid_method" });
    expect(requiredPermissions("GET", "events")).toMatchObject({ covered: false, reason: "invalid_path" });
    expect(requiredPermissions("GET", "/repos//web/events")).toMatchObject({ covered: false, reason: "invalid_path" });
  });
});

describe("the data", () => {
  it("names only known permissions, parses every template, and has no duplicate line", () => {
    const seen = new Set<string>();
    for (const entry of PERMISSION_MATRIX) {
      expect(Object.keys(PERMISSIONS)).toContain(entry.permission);
      expect(() => parseTemplate(entry.path)).not.toThrow();
      const key = `${entry.method} ${entry.path} ${entry.permission}=${entry.access}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });

  it("keeps the blocks of 5.3 in the spec's order", () => {
    const order = [...new Set(PERMISSION_MATRIX.map((e) => e.source))];
    expect(order).toEqual([
      "5.3 Organization permission: Administration",
      "5.3 Organization permission: assistant business",
      "5.3 Organization permission: Members",
      "5.3 Organization permission: Self-hosted runners",
      "5.3 Repository permission: Actions",
      "5.3 Repository permission: Administration",
      "5.3 Repository permission: Contents",
      "5.3 Repository permission: Issues",
    ]);
  });

  it("resolves every covered endpoint to itself", () => {
    const endpoints = coveredEndpoints();
    expect(endpoints.length).toBeGreaterThan(400);
    for (const { method, template } of endpoints) {
      const concrete = template.replace(/\{[a-z_]+\}/g, (p) => (p === "{enablement}" ? "enable_all" : `x-${p.slice(1, -1)}`));
      const answer = requiredPermissions(method, concrete);
      expect(answer.covered && answer.template, `${method} ${template}`).toBe(template);
    }
  });
});
