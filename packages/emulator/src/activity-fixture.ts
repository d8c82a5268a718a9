import type { Fixture } from "./fixture.js";
import type { IssueEventStore, StoredIssue } from "./issue-event-store.js";
import type { UserRef } from "./resource-views.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";

/** A repository named `owner/name`. */
export type RepoName = `${string}/${string}`;

/** A fixture repository with its owner resolved: what every piece of activity is written against. */
export interface ResolvedRepo {
  owner: string;
  ownerId: number;
  name: string;
  id: number;
  private: boolean;
}

/** A fixture user, as activity names them. */
export type ActivityUser = UserRef & { login: string; id: number };

/**
 * The fixture's repositories, users and issues as the activity generator's arguments name them (case-insensitive),
 * refusing a name the fixture lacks with a usage error naming the argument.
 */
export class ActivityFixture {
  constructor(
    private readonly fixture: Fixture,
    private readonly issues: IssueEventStore,
  ) {}

  /** The organization that owns `repo`, as feed events carry it, if the owner is one. */
  org(repo: ResolvedRepo): { login: string; id: number } | undefined {
    const org = this.fixture.orgs.find((o) => o.login === repo.owner);
    return org ? { login: org.login, id: org.id } : undefined;
  }

  /** The repository `owner/name`, or a usage error. */
  repo(name: string): ResolvedRepo {
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

  /** The user `login`, or a usage error naming `argument`. */
  user(login: string, argument: string): ActivityUser {
    const user = this.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    if (!user)
      throw new EmulatorUsageError("activity", {
        argument,
        rule: "a user of the fixture",
        message: `${JSON.stringify(login)} is not a user of the fixture`,
      });
    return { login: user.login, id: user.id, type: user.type };
  }

  /** The user `login` as views show them; an unknown login is shown as given, with id 0. */
  userRef(login: string): UserRef {
    const user = this.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    return { login: user?.login ?? login, id: user?.id ?? 0, type: user?.type ?? "User" };
  }

  /** Issue (or pull request) `number` of the repository, or a usage error. */
  issue(repo: ResolvedRepo, number: number): StoredIssue {
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
}
