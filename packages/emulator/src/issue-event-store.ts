import type { Clock } from "./clock.js";

export interface StoredLabel {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

/** An issue or pull request (every pull request is an issue). */
export interface StoredIssue {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  /** Author login. */
  user: string;
  state: "open" | "closed";
  stateReason: string | null;
  labels: StoredLabel[];
  assignees: string[];
  comments: number;
  pullRequest: boolean;
  locked: boolean;
  /** Deleted issues answer 410 on their event reads. */
  deleted: boolean;
  createdAtMs: number;
  updatedAtMs: number;
  closedAtMs: number | null;
}

export interface StoredIssueEvent {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  /** `closed`, `reopened`, `labeled`, `unlabeled`, `assigned`, `mentioned`, `subscribed`, `referenced`, ... */
  event: string;
  actor: string;
  commitId: string | null;
  label: { name: string; color: string } | undefined;
  assignee: string | undefined;
  /** Set when an app performed the action (rendered as `performed_via_service_app`). */
  viaApp: boolean;
  createdAtMs: number;
}

const key = (owner: string, repo: string) => `${owner}/${repo}`.toLowerCase();

/** Issues and their events per repository (spec 2.8, 4.5, 6.3). */
export class IssueEventStore {
  #issues = new Map<string, StoredIssue[]>();
  #events: StoredIssueEvent[] = [];
  #nextIssueId = 900_000_001;
  #nextEventId = 6_000_000_001;
  #nextLabelId = 208_000_001;
  readonly #labels = new Map<string, StoredLabel>();

  constructor(private readonly clock: Clock) {}

  /** Opens an issue (or a pull request) with the next number of the repository. */
  openIssue(input: {
    owner: string;
    repo: string;
    title: string;
    body?: string;
    user: string;
    pullRequest?: boolean;
    labels?: string[];
  }): StoredIssue {
    const list = this.#issues.get(key(input.owner, input.repo)) ?? [];
    const now = this.clock.now();
    const issue: StoredIssue = {
      id: this.#nextIssueId++,
      owner: input.owner,
      repo: input.repo,
      number: list.length + 1,
      title: input.title,
      body: input.body ?? null,
      user: input.user,
      state: "open",
      stateReason: null,
      labels: (input.labels ?? []).map((name) => this.label(name)),
      assignees: [],
      comments: 0,
      pullRequest: input.pullRequest ?? false,
      locked: false,
      deleted: false,
      createdAtMs: now,
      updatedAtMs: now,
      closedAtMs: null,
    };
    list.push(issue);
    this.#issues.set(key(input.owner, input.repo), list);
    return issue;
  }

  issue(owner: string, repo: string, number: number): StoredIssue | undefined {
    return this.#issues.get(key(owner, repo))?.find((i) => i.number === number);
  }

  issues(owner: string, repo: string): readonly StoredIssue[] {
    return this.#issues.get(key(owner, repo)) ?? [];
  }

  /** A label by name, created with a color derived from the name on first use. */
  label(name: string): StoredLabel {
    let found = this.#labels.get(name.toLowerCase());
    if (!found) {
      const hash = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
      found = { id: this.#nextLabelId++, name, color: (hash & 0xffffff).toString(16).padStart(6, "0"), description: null };
      this.#labels.set(name.toLowerCase(), found);
    }
    return found;
  }

  /** Records an event on an issue and touches the issue. */
  addEvent(
    issue: StoredIssue,
    input: { event: string; actor: string; commitId?: string; label?: StoredLabel; assignee?: string; viaApp?: boolean },
  ): StoredIssueEvent {
    const now = this.clock.now();
    const event: StoredIssueEvent = {
      id: this.#nextEventId++,
      owner: issue.owner,
      repo: issue.repo,
      issueNumber: issue.number,
      event: input.event,
      actor: input.actor,
      commitId: input.commitId ?? null,
      label: input.label ? { name: input.label.name, color: input.label.color } : undefined,
      assignee: input.assignee,
      viaApp: input.viaApp ?? false,
      createdAtMs: now,
    };
    this.#events.push(event);
    issue.updatedAtMs = now;
    return event;
  }

  /** Events of a repository, newest first. */
  repoEvents(owner: string, repo: string): StoredIssueEvent[] {
    const k = key(owner, repo);
    return this.#events.filter((e) => key(e.owner, e.repo) === k).reverse();
  }

  /** Events of one issue, oldest first. */
  issueEvents(owner: string, repo: string, number: number): StoredIssueEvent[] {
    const k = key(owner, repo);
    return this.#events.filter((e) => key(e.owner, e.repo) === k && e.issueNumber === number);
  }

  event(owner: string, repo: string, id: number): StoredIssueEvent | undefined {
    const k = key(owner, repo);
    return this.#events.find((e) => e.id === id && key(e.owner, e.repo) === k);
  }
}
