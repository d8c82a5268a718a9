import { createHash } from "node:crypto";

/** The commits activity makes up: a deterministic sha sequence and the head each pushed branch has reached. */
export class SimulatedCommits {
  #shaCounter = 0;
  readonly #heads = new Map<string, string>();

  /** The next made-up commit sha. */
  nextSha(): string {
    return createHash("sha1")
      .update(`emulator-commit-${++this.#shaCounter}`)
      .digest("hex");
  }

  /** The head of `ref` in `owner/repo`, if anything was pushed to it. */
  head(owner: string, repo: string, ref: string): string | undefined {
    return this.#heads.get(headKey(owner, repo, ref));
  }

  /** Records `sha` as the new head of `ref` in `owner/repo`. */
  setHead(owner: string, repo: string, ref: string, sha: string): void {
    this.#heads.set(headKey(owner, repo, ref), sha);
  }
}

function headKey(owner: string, repo: string, ref: string): string {
  return `${owner}/${repo}:${ref}`.toLowerCase();
}
