import type { Clock } from "./clock.js";
import type { StoredIssue } from "./issue-event-store.js";
import type { ThreadRepo, ThreadSubject } from "./notification-store.js";
import { issueObjectView, nodeId, userView, type UserRef } from "./resource-views.js";
import type { ResolvedRepo } from "./activity-fixture.js";
import type { SimulatedCommits } from "./simulated-commits.js";

/** The key of an issue's notification thread: one thread per issue and user. */
export function issueSubjectKey(issue: StoredIssue): string {
  return `${issue.owner}/${issue.repo}#${issue.number}`.toLowerCase();
}

/** The subject of an issue's thread; its latest comment is the issue itself until someone comments. */
export function issueSubject(issue: StoredIssue, latestCommentPath: string | null): ThreadSubject {
  const path = `/repos/${issue.owner}/${issue.repo}/${issue.pullRequest ? "pulls" : "issues"}/${issue.number}`;
  return { title: issue.title, type: issue.pullRequest ? "PullRequest" : "Issue", path, latestCommentPath: latestCommentPath ?? path };
}

/** The repository as notification threads carry it. */
export function threadRepo(repo: ResolvedRepo): ThreadRepo {
  return { owner: repo.owner, ownerId: repo.ownerId, ownerType: "Organization", name: repo.name, id: repo.id, private: repo.private };
}

/** What the issue payload of a feed event is built from. */
export interface IssuePayloadSources {
  clock: Clock;
  commits: SimulatedCommits;
  userRef: (login: string) => UserRef;
}

/** The subject of an IssuesEvent (`issue`) or a PullRequestEvent (`number`, `pull_request`); paths become URLs when rendered. */
export function issuePayload(issue: StoredIssue, sources: IssuePayloadSources): Record<string, unknown> {
  const path = `/repos/${issue.owner}/${issue.repo}`;
  // The whole issue object as it stands at the event (spec 2.8), with paths that become URLs when rendered.
  if (!issue.pullRequest)
    return {
      issue: issueObjectView("", issue, sources.userRef, (ms) => sources.clock.timestamp(ms)),
    };
  const base = sources.commits.head(issue.owner, issue.repo, "refs/heads/main") ?? sources.commits.nextSha();
  return {
    number: issue.number,
    pull_request: {
      id: issue.id,
      number: issue.number,
      url: `${path}/pulls/${issue.number}`,
      head: { ref: `pr-${issue.number}`, sha: sources.commits.nextSha(), repo: { id: 0, name: issue.repo, url: path } },
      base: { ref: "main", sha: base, repo: { id: 0, name: issue.repo, url: path } },
    },
  };
}

/** An issue comment as IssueCommentEvent payloads carry it. */
export function issueCommentView(
  comment: { id: number; body: string; path: string; createdAt: string },
  actor: UserRef,
  issue: StoredIssue,
): Record<string, unknown> {
  return {
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    url: comment.path,
    html_url: `/web/${issue.owner}/${issue.repo}/issues/${issue.number}#issuecomment-${comment.id}`,
    issue_url: `/repos/${issue.owner}/${issue.repo}/issues/${issue.number}`,
    body: comment.body,
    user: userView("", actor),
    created_at: comment.createdAt,
    updated_at: comment.createdAt,
    author_association: "MEMBER",
  };
}
