/**
 * The service's renderings of users, organizations and repositories as other resources embed them
 * (spec 2.5, 2.6, 2.7). URLs are built from the base address the request came in on (base-url.ts), so links
 * work against the emulator itself.
 */

import { webBase } from "./base-url.js";
import type { StoredIssue } from "./issue-event-store.js";

export interface UserRef {
  login: string;
  id: number;
  type?: "User" | "Bot" | "Organization";
}

export interface RepoRef {
  owner: UserRef;
  name: string;
  id: number;
  private: boolean;
}

/** A `node_id` in the service's style: base64 of a type marker and the numeric id. */
export function nodeId(kind: string, id: number): string {
  return Buffer.from(`0${kind.length}:${kind}${id}`).toString("base64").replace(/=+$/, "");
}

/** The embedded user object (spec 2.6). */
export function userView(base: string, user: UserRef) {
  const url = `${base}/users/${user.login}`;
  const type = user.type ?? "User";
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(type === "Organization" ? "Organization" : "User", user.id),
    avatar_url: `${base}/avatars/u/${user.id}?v=4`,
    gravatar_id: "",
    url,
    html_url: `${webBase(base)}/${user.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    site_admin: false,
  };
}

/** The actor of an activity event (spec 2.7). */
export function actorView(base: string, user: UserRef) {
  return {
    id: user.id,
    login: user.login,
    display_login: user.login,
    gravatar_id: "",
    url: `${base}/users/${user.login}`,
    avatar_url: `${base}/avatars/u/${user.id}?`,
  };
}

/** The organization of an activity event (spec 2.7). */
export function eventOrgView(base: string, org: { login: string; id: number }) {
  return { id: org.id, login: org.login, gravatar_id: "", url: `${base}/orgs/${org.login}`, avatar_url: `${base}/avatars/u/${org.id}?` };
}

/** The repository summary of a notification thread (spec 2.5: names, owner, privacy and link templates). */
export function repositoryView(base: string, repo: RepoRef) {
  const fullName = `${repo.owner.login}/${repo.name}`;
  const url = `${base}/repos/${fullName}`;
  return {
    id: repo.id,
    node_id: nodeId("Repository", repo.id),
    name: repo.name,
    full_name: fullName,
    owner: userView(base, repo.owner),
    private: repo.private,
    html_url: `${webBase(base)}/${fullName}`,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git:${base.replace(/^https?:/, "")}/${fullName}.git`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@${base.replace(/^https?:\/\//, "")}:${fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    hooks_url: `${url}/hooks`,
  };
}

/** An HTTP-date (`Last-Modified`, `Date`), second precision. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** A label (spec 2.8) of the repository at `repoUrl`. */
export function labelView(repoUrl: string, label: StoredIssue["labels"][number]) {
  return {
    id: label.id,
    node_id: nodeId("Label", label.id),
    url: `${repoUrl}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    description: label.description,
    color: label.color,
    default: false,
  };
}

/** The issue object (spec 2.8) as the issue event reads and the activity payloads embed it. */
export function issueObjectView(base: string, issue: StoredIssue, userRef: (login: string) => UserRef, ts: (ms: number) => string) {
  const repoUrl = `${base}/repos/${issue.owner}/${issue.repo}`;
  const url = `${repoUrl}/issues/${issue.number}`;
  const assignees = issue.assignees.map((login) => userView(base, userRef(login)));
  return {
    id: issue.id,
    node_id: nodeId("Issue", issue.id),
    url,
    repository_url: repoUrl,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${webBase(base)}/${issue.owner}/${issue.repo}/${issue.pullRequest ? "pull" : "issues"}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    title: issue.title,
    body: issue.body,
    user: userView(base, userRef(issue.user)),
    pinned_comment: null,
    labels: issue.labels.map((l) => labelView(repoUrl, l)),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: issue.locked,
    active_lock_reason: null,
    comments: issue.comments,
    ...(issue.pullRequest
      ? {
          pull_request: {
            url: `${repoUrl}/pulls/${issue.number}`,
            html_url: `${webBase(base)}/${issue.owner}/${issue.repo}/pull/${issue.number}`,
            diff_url: `${webBase(base)}/${issue.owner}/${issue.repo}/pull/${issue.number}.diff`,
            patch_url: `${webBase(base)}/${issue.owner}/${issue.repo}/pull/${issue.number}.patch`,
          },
        }
      : {}),
    closed_at: issue.closedAtMs === null ? null : ts(issue.closedAtMs),
    created_at: ts(issue.createdAtMs),
    updated_at: ts(issue.updatedAtMs),
    author_association: "MEMBER",
    state_reason: issue.stateReason,
  };
}
