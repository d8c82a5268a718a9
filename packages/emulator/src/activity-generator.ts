import { createHash } from "node:crypto";
import type { Clock } from "./clock.js";
import type { EventFeeds, StoredEvent } from "./event-feeds.js";
import type { Fixture } from "./fixture.js";
import type { IssueEventStore, StoredIssue, StoredIssueEvent } from "./issue-event-store.js";
import type { NotificationStore, ThreadRepo, ThreadSubject } from "./notification-store.js";
import { issueObjectView, labelView, nodeId, userView, type UserRef } from "./resource-views.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";

/** A repository named `owner/name`. */
export type RepoName = `${string}/${string}`;

interface ResolvedRepo {
  owner: string;
  ownerId: number;
  name: string;
  id: number;
  private: boolean;
}

/**
 * Activity that tests and the demo can cause: pushes, stars, branch creation, issues, comments, mentions,
 * closes, labels and assignments. Each call writes consistently to the three stores it touches: the
 * activity feeds, the recipients' notification threads, and the issue events.
 */
export class ActivityGenerator {
  #pushId = 10_115_855_001;
  #commentId = 1_200_000_001;
  #runId = 7_100_000_001;
  #shaCounter = 0;
  readonly #heads = new Map<string, string>();

  constructor(
    private readonly fixture: Fixture,
    private readonly clock: Clock,
    private readonly feeds: EventFeeds,
    private readonly notifications: NotificationStore,
    private readonly issues: IssueEventStore,
  ) {
    for (const org of fixture.orgs) {
      for (const repo of org.repositories) {
        for (const watcher of repo.watchers) notifications.watch(watcher, `${org.login}/${repo.name}`);
        for (const former of repo.former_names) feeds.renameNetwork(org.login, former, { owner: org.login, name: repo.name });
      }
    }
  }

  /** A push of `commits` commits (or the given messages) to a branch: a PushEvent. */
  push(input: { actor: string; repo: RepoName; ref?: string; commits?: number | string[] }): StoredEvent {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const ref = input.ref ?? "refs/heads/main";
    const messages = Array.isArray(input.commits) ? input.commits : Array.from({ length: input.commits ?? 1 }, (_, i) => `Change ${i + 1}`);
    const headKey = `${repo.owner}/${repo.name}:${ref}`.toLowerCase();
    const before = this.#heads.get(headKey) ?? this.#sha();
    const commits = messages.map((message) => {
      const sha = this.#sha();
      return {
        sha,
        author: { email: `${actor.login}@users.noreply.example`, name: actor.login },
        message,
        distinct: true,
        url: `/repos/${repo.owner}/${repo.name}/commits/${sha}`,
      };
    });
    const head = commits.at(-1)?.sha ?? before;
    this.#heads.set(headKey, head);
    return this.#event("PushEvent", actor, repo, {
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
    return this.#event("WatchEvent", this.#user(input.actor, "actor"), this.#repo(input.repo), { action: "started" });
  }

  /** A branch (or tag) is created: a CreateEvent. */
  createBranch(input: {
    actor: string;
    repo: RepoName;
    ref: string;
    refType?: "branch" | "tag";
    description?: string | null;
  }): StoredEvent {
    const repo = this.#repo(input.repo);
    const refType = input.refType ?? "branch";
    return this.#event("CreateEvent", this.#user(input.actor, "actor"), repo, {
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
    const repo = this.#repo(input.repo);
    this.notifications.watch(this.#user(input.user, "user").login, `${repo.owner}/${repo.name}`);
  }

  unwatch(input: { user: string; repo: RepoName }): void {
    const repo = this.#repo(input.repo);
    this.notifications.unwatch(input.user, `${repo.owner}/${repo.name}`);
  }

  /** Opens an issue or pull request: an IssuesEvent, the author takes part, watchers are notified. */
  openIssue(input: { actor: string; repo: RepoName; title: string; body?: string; labels?: string[]; pullRequest?: boolean }): StoredIssue {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const issue = this.issues.openIssue({
      owner: repo.owner,
      repo: repo.name,
      title: input.title,
      body: input.body,
      user: actor.login,
      pullRequest: input.pullRequest,
      labels: input.labels,
    });
    for (const label of issue.labels) this.issues.addEvent(issue, { event: "labeled", actor: actor.login, label });
    this.#event(input.pullRequest ? "PullRequestEvent" : "IssuesEvent", actor, repo, { action: "opened", ...this.#issuePayload(issue) });
    this.notifications.participate(actor.login, this.#subjectKey(issue), this.#threadRepo(repo), this.#subject(issue, null), "author");
    this.#notifyOthers(issue, repo, [actor.login], null);
    return issue;
  }

  /**
   * A comment on an issue: the commenter takes part (ending their own ignore or mute), each mentioned user is
   * notified with reason `mention` (ending theirs), participants and watchers get the thread's standing reason.
   */
  comment(input: { actor: string; repo: RepoName; issue: number; body?: string; mentions?: string[] }): {
    commentId: number;
    notified: string[];
  } {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const issue = this.#issue(repo, input.issue);
    const mentions = [...new Set((input.mentions ?? []).map((m) => this.#user(m, "mentions").login))].filter(
      (m) => m.toLowerCase() !== actor.login.toLowerCase(),
    );
    const body = input.body ?? `${mentions.map((m) => `@${m}`).join(" ")} Looks good.`.trim();
    const commentId = this.#commentId++;
    issue.comments++;
    const commentPath = `/repos/${repo.owner}/${repo.name}/issues/comments/${commentId}`;
    this.#event("IssueCommentEvent", actor, repo, {
      action: "created",
      ...this.#issuePayload(issue),
      comment: this.#commentView(commentId, body, actor, issue, commentPath),
    });
    const subjectKey = this.#subjectKey(issue);
    this.notifications.participate(actor.login, subjectKey, this.#threadRepo(repo), this.#subject(issue, commentPath), "comment");
    const notified: string[] = [];
    for (const user of mentions) {
      this.issues.addEvent(issue, { event: "mentioned", actor: user });
      this.issues.addEvent(issue, { event: "subscribed", actor: user });
      const outcome = this.notifications.deliver({
        user,
        subjectKey,
        repo: this.#threadRepo(repo),
        subject: this.#subject(issue, commentPath),
        reason: "mention",
        trigger: "mention",
        participates: true,
      });
      if (outcome.delivered) notified.push(user);
    }
    notified.push(...this.#notifyOthers(issue, repo, [actor.login, ...mentions], commentPath));
    return { commentId, notified };
  }

  /** A comment that @mentions one user. */
  mention(input: { actor: string; repo: RepoName; issue: number; user: string }): { commentId: number; notified: string[] } {
    return this.comment({
      actor: input.actor,
      repo: input.repo,
      issue: input.issue,
      body: `@${input.user} could you take a look?`,
      mentions: [input.user],
    });
  }

  /** Closes an issue: a `closed` issue event (with the closing commit, if any) and an IssuesEvent. */
  closeIssue(input: {
    actor: string;
    repo: RepoName;
    issue: number;
    commitId?: string;
    viaApp?: boolean;
    reason?: "completed" | "not_planned";
  }): StoredIssueEvent {
    return this.#changeState(input, "closed");
  }

  /** Reopens an issue. */
  reopenIssue(input: { actor: string; repo: RepoName; issue: number }): StoredIssueEvent {
    return this.#changeState(input, "reopened");
  }

  /** Adds a label: a `labeled` issue event carrying the label. */
  label(input: { actor: string; repo: RepoName; issue: number; label: string; viaApp?: boolean }): StoredIssueEvent {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const issue = this.#issue(repo, input.issue);
    const label = this.issues.label(input.label);
    if (!issue.labels.some((l) => l.id === label.id)) issue.labels.push(label);
    this.#event("IssuesEvent", actor, repo, {
      action: "labeled",
      label: labelView(`/repos/${repo.owner}/${repo.name}`, label),
      ...this.#issuePayload(issue),
    });
    return this.issues.addEvent(issue, { event: "labeled", actor: actor.login, label, viaApp: input.viaApp });
  }

  /** Removes a label: an `unlabeled` issue event. */
  unlabel(input: { actor: string; repo: RepoName; issue: number; label: string }): StoredIssueEvent {
    const repo = this.#repo(input.repo);
    const issue = this.#issue(repo, input.issue);
    const label = this.issues.label(input.label);
    issue.labels = issue.labels.filter((l) => l.id !== label.id);
    return this.issues.addEvent(issue, { event: "unlabeled", actor: this.#user(input.actor, "actor").login, label });
  }

  /** Assigns a user: an `assigned` issue event and an `assign` notification to the assignee. */
  assign(input: { actor: string; repo: RepoName; issue: number; assignee: string }): StoredIssueEvent {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const assignee = this.#user(input.assignee, "assignee");
    const issue = this.#issue(repo, input.issue);
    if (!issue.assignees.includes(assignee.login)) issue.assignees.push(assignee.login);
    const event = this.issues.addEvent(issue, { event: "assigned", actor: actor.login, assignee: assignee.login });
    if (assignee.login.toLowerCase() !== actor.login.toLowerCase()) {
      this.notifications.deliver({
        user: assignee.login,
        subjectKey: this.#subjectKey(issue),
        repo: this.#threadRepo(repo),
        subject: this.#subject(issue, null),
        reason: "assign",
        trigger: "activity",
      });
    }
    return event;
  }

  /** Deletes an issue: its event reads answer 410 from now on. */
  deleteIssue(input: { repo: RepoName; issue: number }): void {
    const repo = this.#repo(input.repo);
    this.#issue(repo, input.issue).deleted = true;
  }

  // ---- the other notification reasons of spec 2.5 ------------------------------------------------------------

  /** A comment that @mentions a team: each member given gets `team_mention` (ending their ignore or mute). */
  mentionTeam(input: { actor: string; repo: RepoName; issue: number; team: string; members: string[] }): {
    commentId: number;
    notified: string[];
  } {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const issue = this.#issue(repo, input.issue);
    const members = [...new Set(input.members.map((m) => this.#user(m, "members").login))].filter(
      (m) => m.toLowerCase() !== actor.login.toLowerCase(),
    );
    const commentId = this.#commentId++;
    issue.comments++;
    const commentPath = `/repos/${repo.owner}/${repo.name}/issues/comments/${commentId}`;
    const body = `@${repo.owner}/${input.team} please have a look.`;
    this.#event("IssueCommentEvent", actor, repo, {
      action: "created",
      ...this.#issuePayload(issue),
      comment: { id: commentId, body, user: { login: actor.login, id: actor.id }, url: commentPath },
    });
    const subjectKey = this.#subjectKey(issue);
    this.notifications.participate(actor.login, subjectKey, this.#threadRepo(repo), this.#subject(issue, commentPath), "comment");
    const notified: string[] = [];
    for (const user of members) {
      const outcome = this.notifications.deliver({
        user,
        subjectKey,
        repo: this.#threadRepo(repo),
        subject: this.#subject(issue, commentPath),
        reason: "team_mention",
        trigger: "mention",
        participates: true,
      });
      if (outcome.delivered) notified.push(user);
    }
    notified.push(...this.#notifyOthers(issue, repo, [actor.login, ...members], commentPath));
    return { commentId, notified };
  }

  /** Asks a user to review a pull request: a `review_requested` issue event and a `review_requested` notification. */
  requestReview(input: { actor: string; repo: RepoName; pull: number; reviewer: string }): StoredIssueEvent {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const reviewer = this.#user(input.reviewer, "reviewer");
    const issue = this.#issue(repo, input.pull);
    if (!issue.pullRequest) {
      throw new EmulatorUsageError("activity", {
        argument: "pull",
        rule: "a pull request",
        message: `#${input.pull} of ${repo.owner}/${repo.name} is an issue, not a pull request`,
      });
    }
    const event = this.issues.addEvent(issue, { event: "review_requested", actor: actor.login });
    this.#event("PullRequestEvent", actor, repo, {
      action: "review_requested",
      requested_reviewer: { login: reviewer.login, id: reviewer.id },
      ...this.#issuePayload(issue),
    });
    this.notifications.deliver({
      user: reviewer.login,
      subjectKey: this.#subjectKey(issue),
      repo: this.#threadRepo(repo),
      subject: this.#subject(issue, null),
      reason: "review_requested",
      trigger: "activity",
    });
    return event;
  }

  /** A workflow run the actor triggered completed: the actor gets `ci_activity` about the run's check suite. */
  completeWorkflowRun(input: { actor: string; repo: RepoName; workflow?: string; conclusion?: "success" | "failure" | "cancelled" }): {
    runId: number;
  } {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const runId = this.#runId++;
    const title = `${input.workflow ?? "CI"} workflow run ${input.conclusion === "failure" ? "failed" : input.conclusion === "cancelled" ? "cancelled" : "succeeded"} for main branch`;
    this.notifications.deliver({
      user: actor.login,
      subjectKey: `${repo.owner}/${repo.name}@run-${runId}`.toLowerCase(),
      repo: this.#threadRepo(repo),
      subject: { title, type: "CheckSuite", path: null, latestCommentPath: null },
      reason: "ci_activity",
      trigger: "activity",
    });
    return { runId };
  }

  /** A deployment waits for approval: each reviewer gets `approval_requested` about the workflow run. */
  requestDeploymentApproval(input: { actor: string; repo: RepoName; environment: string; reviewers: string[] }): { runId: number } {
    const repo = this.#repo(input.repo);
    this.#user(input.actor, "actor");
    const runId = this.#runId++;
    const path = `/repos/${repo.owner}/${repo.name}/actions/runs/${runId}`;
    const subject = {
      title: `Deployment to ${input.environment} is waiting for your review`,
      type: "WorkflowRun",
      path,
      latestCommentPath: null,
    };
    for (const reviewer of input.reviewers) {
      const user = this.#user(reviewer, "reviewers").login;
      this.notifications.deliver({
        user,
        subjectKey: `${repo.owner}/${repo.name}@run-${runId}`.toLowerCase(),
        repo: this.#threadRepo(repo),
        subject,
        reason: "approval_requested",
        trigger: "activity",
      });
    }
    return { runId };
  }

  /** The invitee accepted an invitation to contribute to the repository: they get `invitation`. */
  acceptInvitation(input: { actor: string; repo: RepoName; invitee: string }): void {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const invitee = this.#user(input.invitee, "invitee");
    const subject = {
      title: `${actor.login} invited you to ${repo.owner}/${repo.name}`,
      type: "RepositoryInvitation",
      path: null,
      latestCommentPath: null,
    };
    this.#event("MemberEvent", actor, repo, { action: "added", member: { login: invitee.login, id: invitee.id } });
    this.notifications.deliver({
      user: invitee.login,
      subjectKey: `${repo.owner}/${repo.name}@invitation-${invitee.login}`.toLowerCase(),
      repo: this.#threadRepo(repo),
      subject,
      reason: "invitation",
      trigger: "activity",
    });
  }

  /** Members asked the organization to enable a feature: each owner given gets `member_feature_requested`. */
  requestMemberFeature(input: { actor: string; repo: RepoName; feature: string; owners: string[] }): void {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const subject = {
      title: `${actor.login} requested ${input.feature} for ${repo.owner}`,
      type: "MemberFeatureRequest",
      path: null,
      latestCommentPath: null,
    };
    for (const owner of input.owners) {
      const user = this.#user(owner, "owners").login;
      const subjectKey = `${repo.owner}@feature-${input.feature}`.toLowerCase();
      this.notifications.deliver({
        user,
        subjectKey,
        repo: this.#threadRepo(repo),
        subject,
        reason: "member_feature_requested",
        trigger: "activity",
      });
    }
  }

  /** The user subscribes to an issue's thread by hand: later activity reaches them with reason `manual`. */
  subscribe(input: { user: string; repo: RepoName; issue: number }): void {
    const repo = this.#repo(input.repo);
    const issue = this.#issue(repo, input.issue);
    this.notifications.participate(
      this.#user(input.user, "user").login,
      this.#subjectKey(issue),
      this.#threadRepo(repo),
      this.#subject(issue, null),
      "manual",
    );
  }

  #changeState(
    input: { actor: string; repo: RepoName; issue: number; commitId?: string; viaApp?: boolean; reason?: string },
    kind: "closed" | "reopened",
  ): StoredIssueEvent {
    const repo = this.#repo(input.repo);
    const actor = this.#user(input.actor, "actor");
    const issue = this.#issue(repo, input.issue);
    const now = this.clock.nowMs();
    issue.state = kind === "closed" ? "closed" : "open";
    issue.stateReason = kind === "closed" ? (input.reason ?? "completed") : "reopened";
    issue.closedAtMs = kind === "closed" ? now : null;
    const event = this.issues.addEvent(issue, { event: kind, actor: actor.login, commitId: input.commitId, viaApp: input.viaApp });
    this.#event(issue.pullRequest ? "PullRequestEvent" : "IssuesEvent", actor, repo, { action: kind, ...this.#issuePayload(issue) });
    this.notifications.participate(
      actor.login,
      this.#subjectKey(issue),
      this.#threadRepo(repo),
      this.#subject(issue, null),
      "state_change",
    );
    this.#notifyOthers(issue, repo, [actor.login], null);
    return event;
  }

  /** Participants and watchers other than `except` get the thread's standing reason (or `subscribed`). */
  #notifyOthers(issue: StoredIssue, repo: ResolvedRepo, except: string[], commentPath: string | null): string[] {
    const skip = new Set(except.map((u) => u.toLowerCase()));
    const subjectKey = this.#subjectKey(issue);
    const recipients = new Set<string>();
    for (const thread of this.notifications.all())
      if (thread.subjectKey === subjectKey && thread.participating) recipients.add(thread.user);
    for (const watcher of this.notifications.watchersOf(`${repo.owner}/${repo.name}`)) recipients.add(watcher);
    const notified: string[] = [];
    for (const user of recipients) {
      if (skip.has(user)) continue;
      const reason = this.notifications.standingReason(user, subjectKey) ?? "subscribed";
      const outcome = this.notifications.deliver({
        user,
        subjectKey,
        repo: this.#threadRepo(repo),
        subject: this.#subject(issue, commentPath),
        reason,
        trigger: "activity",
      });
      if (outcome.delivered) notified.push(this.#user(user, "user").login);
    }
    return notified;
  }

  #event(type: string, actor: UserRef, repo: ResolvedRepo, payload: Record<string, unknown>): StoredEvent {
    const org = this.fixture.orgs.find((o) => o.login === repo.owner);
    return this.feeds.add({
      type,
      actor,
      repo: { owner: repo.owner, name: repo.name, id: repo.id },
      org: org ? { login: org.login, id: org.id } : undefined,
      payload,
      public: !repo.private,
    });
  }

  /** The subject of an IssuesEvent (`issue`) or a PullRequestEvent (`number`, `pull_request`); paths become URLs when rendered. */
  #issuePayload(issue: StoredIssue): Record<string, unknown> {
    const path = `/repos/${issue.owner}/${issue.repo}`;
    // The whole issue object as it stands at the event (spec 2.8), with paths that become URLs when rendered.
    if (!issue.pullRequest)
      return {
        issue: issueObjectView(
          "",
          issue,
          (login) => this.#userRef(login),
          (ms) => this.clock.timestamp(new Date(ms)),
        ),
      };
    const head = this.#heads.get(`${issue.owner}/${issue.repo}:refs/heads/main`.toLowerCase()) ?? this.#sha();
    return {
      number: issue.number,
      pull_request: {
        id: issue.id,
        number: issue.number,
        url: `${path}/pulls/${issue.number}`,
        head: { ref: `pr-${issue.number}`, sha: this.#sha(), repo: { id: 0, name: issue.repo, url: path } },
        base: { ref: "main", sha: head, repo: { id: 0, name: issue.repo, url: path } },
      },
    };
  }

  #userRef(login: string): UserRef {
    const user = this.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    return { login: user?.login ?? login, id: user?.id ?? 0, type: user?.type ?? "User" };
  }

  /** An issue comment as IssueCommentEvent payloads carry it. */
  #commentView(id: number, body: string, actor: UserRef, issue: StoredIssue, path: string): Record<string, unknown> {
    const now = this.clock.timestamp();
    return {
      id,
      node_id: nodeId("IssueComment", id),
      url: path,
      html_url: `/web/${issue.owner}/${issue.repo}/issues/${issue.number}#issuecomment-${id}`,
      issue_url: `/repos/${issue.owner}/${issue.repo}/issues/${issue.number}`,
      body,
      user: userView("", actor),
      created_at: now,
      updated_at: now,
      author_association: "MEMBER",
    };
  }

  #subjectKey(issue: StoredIssue): string {
    return `${issue.owner}/${issue.repo}#${issue.number}`.toLowerCase();
  }

  #subject(issue: StoredIssue, latestCommentPath: string | null): ThreadSubject {
    const path = `/repos/${issue.owner}/${issue.repo}/${issue.pullRequest ? "pulls" : "issues"}/${issue.number}`;
    return { title: issue.title, type: issue.pullRequest ? "PullRequest" : "Issue", path, latestCommentPath: latestCommentPath ?? path };
  }

  #threadRepo(repo: ResolvedRepo): ThreadRepo {
    return { owner: repo.owner, ownerId: repo.ownerId, ownerType: "Organization", name: repo.name, id: repo.id, private: repo.private };
  }

  #repo(name: string): ResolvedRepo {
    const [owner = "", repoName = ""] = name.split("/");
    const org = this.fixture.orgs.find((o) => o.login.toLowerCase() === owner.toLowerCase());
    const repo = org?.repositories.find((r) => r.name.toLowerCase() === repoName.toLowerCase());
    if (!org || !repo) {
      throw new EmulatorUsageError("activity", {
        argument: "repo",
        rule: "a repository of the fixture, as owner/name",
        message: `${JSON.stringify(name)} is not a repository of the fixture`,
      });
    }
    return { owner: org.login, ownerId: org.id, name: repo.name, id: repo.id, private: repo.private };
  }

  #user(login: string, argument: string): UserRef & { login: string; id: number } {
    const user = this.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    if (!user)
      throw new EmulatorUsageError("activity", {
        argument,
        rule: "a user of the fixture",
        message: `${JSON.stringify(login)} is not a user of the fixture`,
      });
    return { login: user.login, id: user.id, type: user.type };
  }

  #issue(repo: ResolvedRepo, number: number): StoredIssue {
    const issue = this.issues.issue(repo.owner, repo.name, number);
    if (!issue) {
      throw new EmulatorUsageError("activity", {
        argument: "issue",
        rule: "an issue of the repository",
        message: `#${number} is not an issue of ${repo.owner}/${repo.name}`,
      });
    }
    return issue;
  }

  #sha(): string {
    return createHash("sha1")
      .update(`emulator-commit-${++this.#shaCounter}`)
      .digest("hex");
  }
}
