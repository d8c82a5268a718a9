import { describe, expect, it } from "vitest";
import { runCli, type Run } from "./cli-process.js";

// The built bin, run as users run it.
function shiplog(...args: string[]): Promise<Run> {
  return runCli(args, {});
}

describe("shiplog permissions", () => {
  it("answers what PUT import needs, for people", async () => {
    const { code, stdout, stderr } = await shiplog("permissions", "PUT", "/repos/acme/web/import");
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toContain("PUT /repos/acme/web/import");
    expect(stdout).toMatch(/matches\s+PUT \/repos\/\{owner\}\/\{repo\}\/import/);
    expect(stdout).toMatch(/needs\s+Contents \(repository\) write/);
    expect(stdout).toMatch(/tokens\s+personal access token \(classic\) only/);
    expect(stdout).toMatch(/Contents \(contents\)\s+repository\s+write\s+fine-grained, UAT/);
    expect(stdout).toContain("Source import endpoints accept only a personal access token (classic)");
  });

  it("answers the same with --json, as the resolution object", async () => {
    const { code, stdout } = await shiplog("permissions", "PUT", "/repos/acme/web/import", "--json");
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer).toMatchObject({
      covered: true,
      method: "PUT",
      path: "/repos/acme/web/import",
      template: "/repos/{owner}/{repo}/import",
      params: { owner: "acme", repo: "web" },
      combine: "allOf",
      requirements: [
        { permission: "contents", title: "Contents", scope: "repository", access: "write", tokenTypes: ["UAT"], multi: false },
      ],
      tokenKinds: ["classic"],
      classicScopes: null,
      publicReadable: false,
    });
  });

  it("shows alternatives, public access and classic scopes", async () => {
    const { code, stdout } = await shiplog("permissions", "get", "/repos/acme/web/issues/12/events");
    expect(code).toBe(0);
    expect(stdout).toContain("any one of: Issues (repository) read, Pull requests (repository) read");
    expect(stdout).toContain("(any one suffices)");
    expect(stdout).toMatch(/public\s+yes/);
    expect(stdout).toMatch(/scopes\s+classic token: repo/);
  });

  it("says where a classic token is not accepted (4.2 names the token types) and why", async () => {
    const { code, stdout } = await shiplog("permissions", "POST", "/repos/acme/web/git/tags");
    expect(code).toBe(0);
    // Wrapped at 80 columns: the words, whitespace aside.
    expect(stdout.replace(/\s+/g, " ")).toContain(
      " tokens fine-grained personal access token, app user access token (UAT), app installation access token (IAT) scopes ",
    );
    expect(stdout).toMatch(/scopes\s+classic token: not accepted/);
    expect(stdout).toContain("Token types come from 4.2");
  });

  it.each([
    ["GET", "/orgs/acme/artifacts/sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae/metadata/storage-records"],
    ["PATCH", "/repos/acme/web/git/refs/tags/v1"],
    ["GET", "/notifications"],
    ["GET", "/repos/acme/web/issues/12/events"],
  ])("fits 80 columns off a terminal, prose and tables wrapped: %s %s", async (method, path) => {
    const { code, stdout } = await shiplog("permissions", method, path);
    expect(code).toBe(0);
    // The first line repeats the caller's path as given; every other line fits.
    expect(
      stdout
        .split("\n")
        .slice(1)
        .filter((line) => line.length > 80),
    ).toEqual([]);
  });

  it("reports an unknown path clearly with exit code 3", async () => {
    const human = await shiplog("permissions", "GET", "/repos/acme/web/deployments");
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toContain("the permission matrix does not cover GET /repos/acme/web/deployments");

    const json = await shiplog("permissions", "GET", "/repos/acme/web/issues/12", "--json");
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ covered: false, reason: "method_not_covered", knownMethods: ["PATCH"] });
  });

  it("treats bad usage as exit code 2 with one line naming the command and where help is", async () => {
    const cases = [
      ["permissions", "GET"],
      ["permissions", "FETCH", "/events"],
      ["permissions", "GET", "events"],
      ["permissions", "GET", "/events", "extra"],
      ["permissions", "GET", "/events", "--yaml"],
      ["deploy"],
      [],
    ];
    const results = await Promise.all(cases.map((args) => shiplog(...args)));
    for (const [index, { code, stderr, stdout }] of results.entries()) {
      expect(code, cases[index]?.join(" ")).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^shiplog[a-z ]*: .*\n$/);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("prints help on --help, with exit code 0", async () => {
    const [command, main, topic] = await Promise.all([shiplog("permissions", "--help"), shiplog("--help"), shiplog("help", "permissions")]);
    expect(command.code).toBe(0);
    expect(command.stdout).toContain("Usage: shiplog permissions [options] <method> <path>");
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/permissions <method> <path>\s+what a call needs: permissions,/);
    expect(command.stdout).toContain("what does this call need? Resolves a concrete call");
    expect(topic.stdout).toBe(command.stdout);
  });
});
