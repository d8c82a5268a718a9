import type { StoredEvent } from "./event-feeds.js";
import { IssueActivity } from "./issue-activity.js";
import type { RepoName } from "./activity-fixture.js";
import { threadRepo } from "./activity-views.js";

export type { RepoName } from "./activity-fixture.js";

/**
 * Activity that tests and the demo can cause: the issue activity it inherits (issues, comments, mentions, closes,
 * labels, assignments) and the repository's own: pushes, stars, branch creation, watching, workflow runs,
 * deployment approvals, invitations and feature requests.
 */
export class ActivityGenerator extends IssueActivity {
  #pushId = 10_115_855_001;
  #runId = 7_100_000_001;

  constructor(...args: ConstructorParameters<typeof IssueActivity>) {
    super(...args);
    const [fixture, , feeds, notifications] = args;
    for (const org of fixture.orgs) {
      for (const repo of org.repositories) {
        for (const watcher of repo.watchers) notifications.watch(watcher, `${org.login}/${repo.name}`);
        for (const former of repo.former_names) feeds.renameNetwork(org.login, former, { owner: org.login, name: repo.name });
      }
    }
  }

  /** A push of `commits` commits (or the given messages) to a branch: a PushEvent. */
  push(input: { actor: string; repo: RepoName; ref?: string; commits?: number | string[] }): StoredEvent {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const ref = input.ref ?? "refs/heads/main";
    const messages = Array.isArray(input.commits) ? input.commits : Array.from({ length: input.commits ?? 1 }, (_, i) => `Change ${i + 1}`);
    const before = this.commits.head(repo.owner, repo.name, ref) ?? this.commits.nextSha();
    const commits = messages.map((message) => {
      const sha = this.commits.nextSha();
      return {
        sha,
        author: { email: `${actor.login}@users.noreply.example`, name: actor.login },
        message,
        distinct: true,
        url: `/repos/${repo.owner}/${repo.name}/commits/${sha}`,
      };
    });
    const head = commits.at(-1)?.sha ?? before;
    this.commits.setHead(repo.owner, repo.name, ref, head);
    return this.record("PushEvent", actor, repo, {
      repository_id: repo.id,
      push_id: this.#pushId++,
      size: commits.length,
      distinct_size: commits.length,
      ref,
      head,
      before,
      commits,
    });
  }

  /** A user stars a repository: a WatchEvent `started`. */
  star(input: { actor: string; repo: RepoName }): StoredEvent {
    return this.record("WatchEvent", this.fixture.user(input.actor, "actor"), this.fixture.repo(input.repo), { action: "started" });
  }

  /** A branch (or tag) is created: a CreateEvent. */
  createBranch(input: {
    actor: string;
    repo: RepoName;
    ref: string;
    refType?: "branch" | "tag";
    description?: string | null;
  }): StoredEvent {
    const repo = this.fixture.repo(input.repo);
    const refType = input.refType ?? "branch";
    return this.record("CreateEvent", this.fixture.user(input.actor, "actor"), repo, {
      ref: input.ref,
      ref_type: refType,
      full_ref: `refs/${refType === "branch" ? "heads" : "tags"}/${input.ref}`,
      master_branch: "main",
      description: input.description ?? null,
      pusher_type: "user",
    });
  }

  /** The user now watches the repository: they get `subscribed` notifications of its threads. */
  watch(input: { user: string; repo: RepoName }): void {
    const repo = this.fixture.repo(input.repo);
    this.notifications.watch(this.fixture.user(input.user, "user").login, `${repo.owner}/${repo.name}`);
  }

  unwatch(input: { user: string; repo: RepoName }): void {
    const repo = this.fixture.repo(input.repo);
    this.notifications.unwatch(input.user, `${repo.owner}/${repo.name}`);
  }

  /** A workflow run the actor triggered completed: the actor gets `ci_activity` about the run's check suite. */
  completeWorkflowRun(input: { actor: string; repo: RepoName; workflow?: string; conclusion?: "success" | "failure" | "cancelled" }): {
    runId: number;
  } {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const runId = this.#runId++;
    const outcome = input.conclusion === "failure" ? "failed" : input.conclusion === "cancelled" ? "cancelled" : "succeeded";
    const title = `${input.workflow ?? "CI"} workflow run ${outcome} for main branch`;
    this.notifications.deliver({
      user: actor.login,
      subjectKey: `${repo.owner}/${repo.name}@run-${runId}`.toLowerCase(),
      repo: threadRepo(repo),
      subject: { title, type: "CheckSuite", path: null, latestCommentPath: null },
      reason: "ci_activity",
      trigger: "activity",
    });
    return { runId };
  }

  /** A deployment waits for approval: each reviewer gets `approval_requested` about the workflow run. */
  requestDeploymentApproval(input: { actor: string; repo: RepoName; environment: string; reviewers: string[] }): { runId: number } {
    const repo = this.fixture.repo(input.repo);
    this.fixture.user(input.actor, "actor");
    const runId = this.#runId++;
    const path = `/repos/${repo.owner}/${repo.name}/actions/runs/${runId}`;
    const subject = {
      title: `Deployment to ${input.environment} is waiting for your review`,
      type: "WorkflowRun",
      path,
      latestCommentPath: null,
    };
    for (const reviewer of input.reviewers) {
      const user = this.fixture.user(reviewer, "reviewers").login;
      this.notifications.deliver({
        user,
        subjectKey: `${repo.owner}/${repo.name}@run-${runId}`.toLowerCase(),
        repo: threadRepo(repo),
        subject,
        reason: "approval_requested",
        trigger: "activity",
      });
    }
    return { runId };
  }

  /** The invitee accepted an invitation to contribute to the repository: they get `invitation`. */
  acceptInvitation(input: { actor: string; repo: RepoName; invitee: string }): void {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const invitee = this.fixture.user(input.invitee, "invitee");
    const subject = {
      title: `${actor.login} invited you to ${repo.owner}/${repo.name}`,
      type: "RepositoryInvitation",
      path: null,
      latestCommentPath: null,
    };
    this.record("MemberEvent", actor, repo, { action: "added", member: { login: invitee.login, id: invitee.id } });
    this.notifications.deliver({
      user: invitee.login,
      subjectKey: `${repo.owner}/${repo.name}@invitation-${invitee.login}`.toLowerCase(),
      repo: threadRepo(repo),
      subject,
      reason: "invitation",
      trigger: "activity",
    });
  }

  /** Members asked the organization to enable a feature: each owner given gets `member_feature_requested`. */
  requestMemberFeature(input: { actor: string; repo: RepoName; feature: string; owners: string[] }): void {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const subject = {
      title: `${actor.login} requested ${input.feature} for ${repo.owner}`,
      type: "MemberFeatureRequest",
      path: null,
      latestCommentPath: null,
    };
    for (const owner of input.owners) {
      const user = this.fixture.user(owner, "owners").login;
      const subjectKey = `${repo.owner}@feature-${input.feature}`.toLowerCase();
      this.notifications.deliver({
        user,
        subjectKey,
        repo: threadRepo(repo),
        subject,
        reason: "member_feature_requested",
        trigger: "activity",
      });
    }
  }
}
