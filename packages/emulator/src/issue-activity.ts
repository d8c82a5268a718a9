import type { Clock } from "./clock.js";
import type { EventFeeds, StoredEvent } from "./event-feeds.js";
import type { Fixture } from "./fixture.js";
import type { IssueEventStore, StoredIssue, StoredIssueEvent } from "./issue-event-store.js";
import type { NotificationStore } from "./notification-store.js";
import { labelView, type UserRef } from "./resource-views.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { ActivityFixture, type RepoName, type ResolvedRepo } from "./activity-fixture.js";
import { issueCommentView, issuePayload, issueSubject, issueSubjectKey, threadRepo } from "./activity-views.js";
import { SimulatedCommits } from "./simulated-commits.js";

/**
 * Activity on issues and pull requests: opening, comments, mentions, closes, labels, assignments, review requests and
 * subscriptions. Each call writes consistently to the three stores it touches: the activity feeds, the recipients'
 * notification threads, and the issue events.
 */
export class IssueActivity {
  #commentId = 1_200_000_001;
  protected readonly fixture: ActivityFixture;
  protected readonly commits = new SimulatedCommits();

  constructor(
    fixture: Fixture,
    protected readonly clock: Clock,
    protected readonly feeds: EventFeeds,
    protected readonly notifications: NotificationStore,
    protected readonly issues: IssueEventStore,
  ) {
    this.fixture = new ActivityFixture(fixture, issues);
  }

  /** Opens an issue or pull request: an IssuesEvent, the author takes part, watchers are notified. */
  openIssue(input: { actor: string; repo: RepoName; title: string; body?: string; labels?: string[]; pullRequest?: boolean }): StoredIssue {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
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
    this.record(input.pullRequest ? "PullRequestEvent" : "IssuesEvent", actor, repo, { action: "opened", ...this.issuePayload(issue) });
    this.notifications.participate(actor.login, issueSubjectKey(issue), threadRepo(repo), issueSubject(issue, null), "author");
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
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const issue = this.fixture.issue(repo, input.issue);
    const mentions = [...new Set((input.mentions ?? []).map((m) => this.fixture.user(m, "mentions").login))].filter(
      (m) => m.toLowerCase() !== actor.login.toLowerCase(),
    );
    const body = input.body ?? `${mentions.map((m) => `@${m}`).join(" ")} Looks good.`.trim();
    const commentId = this.#commentId++;
    issue.comments++;
    const commentPath = `/repos/${repo.owner}/${repo.name}/issues/comments/${commentId}`;
    this.record("IssueCommentEvent", actor, repo, {
      action: "created",
      ...this.issuePayload(issue),
      comment: issueCommentView({ id: commentId, body, path: commentPath, createdAt: this.clock.timestamp() }, actor, issue),
    });
    const subjectKey = issueSubjectKey(issue);
    this.notifications.participate(actor.login, subjectKey, threadRepo(repo), issueSubject(issue, commentPath), "comment");
    for (const user of mentions) {
      this.issues.addEvent(issue, { event: "mentioned", actor: user });
      this.issues.addEvent(issue, { event: "subscribed", actor: user });
    }
    const notified = this.#notifyMentioned(issue, repo, mentions, commentPath, "mention");
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
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const issue = this.fixture.issue(repo, input.issue);
    const label = this.issues.label(input.label);
    if (!issue.labels.some((l) => l.id === label.id)) issue.labels.push(label);
    this.record("IssuesEvent", actor, repo, {
      action: "labeled",
      label: labelView(`/repos/${repo.owner}/${repo.name}`, label),
      ...this.issuePayload(issue),
    });
    return this.issues.addEvent(issue, { event: "labeled", actor: actor.login, label, viaApp: input.viaApp });
  }

  /** Removes a label: an `unlabeled` issue event. */
  unlabel(input: { actor: string; repo: RepoName; issue: number; label: string }): StoredIssueEvent {
    const repo = this.fixture.repo(input.repo);
    const issue = this.fixture.issue(repo, input.issue);
    const label = this.issues.label(input.label);
    issue.labels = issue.labels.filter((l) => l.id !== label.id);
    return this.issues.addEvent(issue, { event: "unlabeled", actor: this.fixture.user(input.actor, "actor").login, label });
  }

  /** Assigns a user: an `assigned` issue event and an `assign` notification to the assignee. */
  assign(input: { actor: string; repo: RepoName; issue: number; assignee: string }): StoredIssueEvent {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const assignee = this.fixture.user(input.assignee, "assignee");
    const issue = this.fixture.issue(repo, input.issue);
    if (!issue.assignees.includes(assignee.login)) issue.assignees.push(assignee.login);
    const event = this.issues.addEvent(issue, { event: "assigned", actor: actor.login, assignee: assignee.login });
    if (assignee.login.toLowerCase() !== actor.login.toLowerCase()) {
      this.notifications.deliver({
        user: assignee.login,
        subjectKey: issueSubjectKey(issue),
        repo: threadRepo(repo),
        subject: issueSubject(issue, null),
        reason: "assign",
        trigger: "activity",
      });
    }
    return event;
  }

  /** Deletes an issue: its event reads answer 410 from now on. */
  deleteIssue(input: { repo: RepoName; issue: number }): void {
    const repo = this.fixture.repo(input.repo);
    this.fixture.issue(repo, input.issue).deleted = true;
  }

  /** A comment that @mentions a team: each member given gets `team_mention` (ending their ignore or mute). */
  mentionTeam(input: { actor: string; repo: RepoName; issue: number; team: string; members: string[] }): {
    commentId: number;
    notified: string[];
  } {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const issue = this.fixture.issue(repo, input.issue);
    const members = [...new Set(input.members.map((m) => this.fixture.user(m, "members").login))].filter(
      (m) => m.toLowerCase() !== actor.login.toLowerCase(),
    );
    const commentId = this.#commentId++;
    issue.comments++;
    const commentPath = `/repos/${repo.owner}/${repo.name}/issues/comments/${commentId}`;
    const body = `@${repo.owner}/${input.team} please have a look.`;
    this.record("IssueCommentEvent", actor, repo, {
      action: "created",
      ...this.issuePayload(issue),
      comment: { id: commentId, body, user: { login: actor.login, id: actor.id }, url: commentPath },
    });
    const subjectKey = issueSubjectKey(issue);
    this.notifications.participate(actor.login, subjectKey, threadRepo(repo), issueSubject(issue, commentPath), "comment");
    const notified = this.#notifyMentioned(issue, repo, members, commentPath, "team_mention");
    notified.push(...this.#notifyOthers(issue, repo, [actor.login, ...members], commentPath));
    return { commentId, notified };
  }

  /** Asks a user to review a pull request: a `review_requested` issue event and a `review_requested` notification. */
  requestReview(input: { actor: string; repo: RepoName; pull: number; reviewer: string }): StoredIssueEvent {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const reviewer = this.fixture.user(input.reviewer, "reviewer");
    const issue = this.fixture.issue(repo, input.pull);
    if (!issue.pullRequest) {
      throw new EmulatorUsageError("activity", {
        argument: "pull",
        rule: "a pull request",
        message: `#${input.pull} of ${repo.owner}/${repo.name} is an issue, not a pull request`,
      });
    }
    const event = this.issues.addEvent(issue, { event: "review_requested", actor: actor.login });
    this.record("PullRequestEvent", actor, repo, {
      action: "review_requested",
      requested_reviewer: { login: reviewer.login, id: reviewer.id },
      ...this.issuePayload(issue),
    });
    this.notifications.deliver({
      user: reviewer.login,
      subjectKey: issueSubjectKey(issue),
      repo: threadRepo(repo),
      subject: issueSubject(issue, null),
      reason: "review_requested",
      trigger: "activity",
    });
    return event;
  }

  /** The user subscribes to an issue's thread by hand: later activity reaches them with reason `manual`. */
  subscribe(input: { user: string; repo: RepoName; issue: number }): void {
    const repo = this.fixture.repo(input.repo);
    const issue = this.fixture.issue(repo, input.issue);
    this.notifications.participate(
      this.fixture.user(input.user, "user").login,
      issueSubjectKey(issue),
      threadRepo(repo),
      issueSubject(issue, null),
      "manual",
    );
  }

  #changeState(
    input: { actor: string; repo: RepoName; issue: number; commitId?: string; viaApp?: boolean; reason?: string },
    kind: "closed" | "reopened",
  ): StoredIssueEvent {
    const repo = this.fixture.repo(input.repo);
    const actor = this.fixture.user(input.actor, "actor");
    const issue = this.fixture.issue(repo, input.issue);
    const now = this.clock.now();
    issue.state = kind === "closed" ? "closed" : "open";
    issue.stateReason = kind === "closed" ? (input.reason ?? "completed") : "reopened";
    issue.closedAtMs = kind === "closed" ? now : null;
    const event = this.issues.addEvent(issue, { event: kind, actor: actor.login, commitId: input.commitId, viaApp: input.viaApp });
    this.record(issue.pullRequest ? "PullRequestEvent" : "IssuesEvent", actor, repo, { action: kind, ...this.issuePayload(issue) });
    this.notifications.participate(actor.login, issueSubjectKey(issue), threadRepo(repo), issueSubject(issue, null), "state_change");
    this.#notifyOthers(issue, repo, [actor.login], null);
    return event;
  }

  /** The users a comment mentions (directly or through a team): each takes part in the thread; those reached are returned. */
  #notifyMentioned(
    issue: StoredIssue,
    repo: ResolvedRepo,
    users: string[],
    commentPath: string,
    reason: "mention" | "team_mention",
  ): string[] {
    const notified: string[] = [];
    for (const user of users) {
      const outcome = this.notifications.deliver({
        user,
        subjectKey: issueSubjectKey(issue),
        repo: threadRepo(repo),
        subject: issueSubject(issue, commentPath),
        reason,
        trigger: "mention",
        participates: true,
      });
      if (outcome.delivered) notified.push(user);
    }
    return notified;
  }

  /** Participants and watchers other than `except` get the thread's standing reason (or `subscribed`). */
  #notifyOthers(issue: StoredIssue, repo: ResolvedRepo, except: string[], commentPath: string | null): string[] {
    const skip = new Set(except.map((u) => u.toLowerCase()));
    const subjectKey = issueSubjectKey(issue);
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
        repo: threadRepo(repo),
        subject: issueSubject(issue, commentPath),
        reason,
        trigger: "activity",
      });
      if (outcome.delivered) notified.push(this.fixture.user(user, "user").login);
    }
    return notified;
  }

  /** Records a feed event of `type` by `actor` in `repo`. */
  protected record(type: string, actor: UserRef, repo: ResolvedRepo, payload: Record<string, unknown>): StoredEvent {
    return this.feeds.add({
      type,
      actor,
      repo: { owner: repo.owner, name: repo.name, id: repo.id },
      org: this.fixture.org(repo),
      payload,
      public: !repo.private,
    });
  }

  protected issuePayload(issue: StoredIssue): Record<string, unknown> {
    return issuePayload(issue, { clock: this.clock, commits: this.commits, userRef: (login) => this.fixture.userRef(login) });
  }
}
