// git/get-commit over HTTP, called through the client's registry (client.call): a commit's fields as the service
// shows them, which real git hashes back to the commit's id; 404 for an id that is no commit; 409 for an empty
// repository; the answer valid under the official schema.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, ConflictError, RequestValidationError, ShiplogClient, type ResultOf } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { validateResponse } from "../../../test/support/openapi-contract.js";

let emulator: Emulator;
let client: ShiplogClient;
let commits: string[];
beforeAll(async () => {
  emulator = await startEmulator();
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly, retry: false });
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
});
afterAll(() => emulator.stop());

/** The commit object's text rebuilt from the answer alone, as git writes it. */
function commitText(commit: ResultOf<"git/get-commit">): string {
  const line = (who: { name: string; email: string; date: string }) => {
    const offset = /([+-]\d\d):?(\d\d)$/.exec(who.date);
    return `${who.name} <${who.email}> ${Date.parse(who.date) / 1000} ${offset ? `${offset[1]}${offset[2]}` : "+0000"}`;
  };
  const parents = commit.parents.map((p) => `parent ${p.sha}\n`).join("");
  return `tree ${commit.tree.sha}\n${parents}author ${line(commit.author)}\ncommitter ${line(commit.committer)}\n\n${commit.message}`;
}

describe("git/get-commit", () => {
  it("answers every commit of the history with fields git hashes back to its id", async () => {
    for (const [index, sha] of commits.entries()) {
      const commit = await client.call("git/get-commit", { owner: "acme", repo: "web", commit_sha: sha });
      expect(commit.sha).toBe(sha);
      expect(commit.parents.map((p) => p.sha)).toEqual(index === 0 ? [] : [commits[index - 1]]);
      const hashed = execFileSync("git", ["hash-object", "-t", "commit", "--stdin"], { input: Buffer.from(commitText(commit), "utf8") });
      expect(hashed.toString().trim()).toBe(sha);
    }
  });

  it("answers as the official schema says", async () => {
    const response = await fetch(`${emulator.url}/repos/acme/web/git/commits/${commits[1]}`, {
      headers: { authorization: `Bearer ${emulator.tokens.readOnly}`, "x-service-api-version": "2026-03-10" },
    });
    expect(response.status).toBe(200);
    expect(validateResponse("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", 200, await response.json())).toEqual([]);
  });

  it("404 for an id that is no commit, 409 for an empty repository; a malformed id is refused before sending", async () => {
    const tree = (await client.call("git/get-commit", { owner: "acme", repo: "web", commit_sha: commits[0]! })).tree.sha;
    await expect(client.call("git/get-commit", { owner: "acme", repo: "web", commit_sha: tree })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.call("git/get-commit", { owner: "acme", repo: "web", commit_sha: "f".repeat(40) })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(client.call("git/get-commit", { owner: "acme", repo: "empty", commit_sha: "f".repeat(40) })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const sent = emulator.requests.list().length;
    await expect(client.call("git/get-commit", { owner: "acme", repo: "web", commit_sha: "HEAD" })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(emulator.requests.list()).toHaveLength(sent);
  });
});
