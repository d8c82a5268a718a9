import type { Fixture } from "./fixture.js";
import {
  commitContent,
  gitTime,
  hashObject,
  tagContent,
  treeContent,
  withFinalNewline,
  type GitIdent,
  type GitObjectKind,
  type TreeEntry,
} from "./git-objects.js";

/** A git object as stored: its type and exact content. */
export interface StoredGitObject {
  type: GitObjectKind;
  content: Buffer;
}

/** What a tag object says, kept beside its bytes for the API's views. */
export interface StoredTag {
  sha: string;
  tag: string;
  /** The message as the object holds it: with git's final newline, so the fields reproduce the sha. */
  message: string;
  tagger: GitIdent;
  object: string;
  type: GitObjectKind;
}

/** A commit of a repository's history, for tests and the demo. */
export interface StoredCommit {
  sha: string;
  tree: string;
  parents: string[];
  /** As the object holds it: with git's final newline, so the fields reproduce the sha. */
  message: string;
  author: GitIdent;
  committer: GitIdent;
}

/** The default author of fixture commits that name none. */
const FIXTURE_AUTHOR = { name: "Octo Cat", email: "octo@users.noreply.service.example" };
/** Fixture commits without a date are an hour apart from this moment. */
const FIXTURE_EPOCH = Date.parse("2026-01-05T09:00:00Z");

/** One repository's objects and references. */
export class GitRepository {
  readonly #objects = new Map<string, StoredGitObject>();
  readonly #tags = new Map<string, StoredTag>();
  readonly #refs = new Map<string, string>();
  readonly #commits: StoredCommit[] = [];

  constructor(
    readonly owner: string,
    readonly name: string,
    readonly defaultBranch: string,
  ) {}

  /** A repository without commits: the service answers 409 to git calls on it. */
  get empty(): boolean {
    return this.#refs.size === 0;
  }

  /** Stores an object and returns its id (the same id git would give it). */
  put(type: GitObjectKind, content: Buffer): string {
    const sha = hashObject(type, content);
    if (!this.#objects.has(sha)) this.#objects.set(sha, { type, content });
    return sha;
  }

  object(sha: string): StoredGitObject | undefined {
    return this.#objects.get(sha);
  }

  /** Writes a tag object; the reference is a separate step. */
  createTag(input: Omit<StoredTag, "sha">): StoredTag {
    const sha = this.put("tag", tagContent(input));
    const stored = { sha, ...input, message: withFinalNewline(input.message) };
    if (!this.#tags.has(sha)) this.#tags.set(sha, stored);
    return this.#tags.get(sha)!;
  }

  tag(sha: string): StoredTag | undefined {
    return this.#tags.get(sha);
  }

  /** The object a full reference name (`refs/tags/v1`) points at. */
  ref(name: string): string | undefined {
    return this.#refs.get(name);
  }

  /** Creates a reference; false when it already exists (references are never overwritten here). */
  createRef(name: string, sha: string): boolean {
    if (this.#refs.has(name)) return false;
    this.#refs.set(name, sha);
    return true;
  }

  /** Points an existing reference at `sha`; false when the reference does not exist. */
  updateRef(name: string, sha: string): boolean {
    if (!this.#refs.has(name)) return false;
    this.#refs.set(name, sha);
    return true;
  }

  /** Removes a reference; false when it does not exist. */
  deleteRef(name: string): boolean {
    return this.#refs.delete(name);
  }

  /** Whether moving a reference from `from` to `to` is a fast-forward: both commits, `from` an ancestor of `to`. */
  isFastForward(from: string, to: string): boolean {
    const parents = new Map(this.#commits.map((c) => [c.sha, c.parents]));
    if (!parents.has(from) || !parents.has(to)) return false;
    const pending = [to];
    const seen = new Set<string>();
    while (pending.length > 0) {
      const sha = pending.pop()!;
      if (sha === from) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      pending.push(...(parents.get(sha) ?? []));
    }
    return false;
  }

  /** Every reference, sorted by name. */
  refs(): { ref: string; sha: string }[] {
    return [...this.#refs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([ref, sha]) => ({ ref, sha }));
  }

  /** A commit by its id; undefined when there is none (or the id is another kind of object). */
  findCommit(sha: string): StoredCommit | undefined {
    return this.#commits.find((commit) => commit.sha === sha);
  }

  /** Commits in the order they were made, oldest first. */
  commits(): StoredCommit[] {
    return [...this.#commits];
  }

  /** The commit the default branch points at. */
  head(): string | undefined {
    return this.#refs.get(`refs/heads/${this.defaultBranch}`);
  }

  /** Adds a commit of `files` (path → content, on top of the parent's files) to the default branch. */
  commit(files: Map<string, string>, message: string, author: GitIdent): StoredCommit {
    const tree = this.#writeTree(files);
    const parent = this.head();
    const parents = parent ? [parent] : [];
    const sha = this.put("commit", commitContent({ tree, parents, author, committer: author, message }));
    const commit = { sha, tree, parents, message: withFinalNewline(message), author, committer: author };
    this.#commits.push(commit);
    this.#refs.set(`refs/heads/${this.defaultBranch}`, sha);
    return commit;
  }

  /** Writes blobs and (nested) trees for a set of paths and returns the root tree's id. */
  #writeTree(files: Map<string, string>): string {
    const here = new Map<string, string>();
    const below = new Map<string, Map<string, string>>();
    for (const [path, content] of files) {
      const slash = path.indexOf("/");
      if (slash === -1) {
        here.set(path, content);
      } else {
        const dir = path.slice(0, slash);
        const sub = below.get(dir) ?? new Map<string, string>();
        sub.set(path.slice(slash + 1), content);
        below.set(dir, sub);
      }
    }
    const entries: TreeEntry[] = [];
    for (const [name, content] of here) entries.push({ mode: "100644", name, sha: this.put("blob", Buffer.from(content, "utf8")) });
    for (const [name, sub] of below) entries.push({ mode: "40000", name, sha: this.#writeTree(sub) });
    return this.put("tree", treeContent(entries));
  }
}

/** Git data of every repository, seeded from the fixture's commits. */
export class GitStore {
  readonly #repositories = new Map<string, GitRepository>();

  constructor(fixture: Fixture) {
    for (const org of fixture.orgs) {
      for (const repo of org.repositories) {
        const git = new GitRepository(org.login, repo.name, repo.git?.default_branch ?? "main");
        this.#repositories.set(key(org.login, repo.name), git);
        if (repo.empty) continue;
        const commits = repo.git?.commits.length
          ? repo.git.commits
          : [{ message: "Initial commit", files: { "README.md": `# ${repo.name}\n` } }];
        const files = new Map<string, string>();
        commits.forEach((commit, index) => {
          for (const [path, content] of Object.entries(commit.files ?? {})) files.set(path, content);
          const date = commit.date ?? new Date(FIXTURE_EPOCH + index * 3_600_000).toISOString();
          const author = { ...FIXTURE_AUTHOR, ...commit.author, ...gitTime(date) };
          git.commit(files, commit.message, author);
        });
      }
    }
  }

  /** A repository's git data (names are case-insensitive). */
  repository(owner: string, repo: string): GitRepository | undefined {
    return this.#repositories.get(key(owner, repo));
  }
}

const key = (owner: string, repo: string) => `${owner.toLowerCase()}/${repo.toLowerCase()}`;
