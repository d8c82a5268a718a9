// `shiplog` permissions, help and usage as a user meets them: a subprocess against the emulator, every command's help
// with an example and the exit codes, and every usage error one line, exit 2, with nothing sent.
import { describe, expect, it } from "vitest";
import { digest, emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";

useCliEmulator();

describe("permissions, help, completion, usage", () => {
  it("permissions as today, and --json", async () => {
    const table = await shiplog(["permissions", "PATCH", "/repos/acme/web/git/refs/tags/v1"], null);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/needs\s+Contents \(repository\) write/);
    const json = await shiplog(["permissions", "DELETE", "/repos/acme/web/git/refs/tags/v1", "--json"], null);
    expect(JSON.parse(json.stdout)).toMatchObject({ covered: true, template: "/repos/{owner}/{repo}/git/refs/{ref}" });
    expect((await shiplog(["permissions", "GET", "/nowhere/at/all"], null)).code).toBe(3);
  });

  const commands = [
    ["records"],
    ["records", "deployments"],
    ["records", "storage"],
    ["records", "set-cluster"],
    ["records", "create-storage"],
    ["records", "create-deployment"],
    ["tag"],
    ["tag", "create"],
    ["tag", "list"],
    ["tag", "show"],
    ["tag", "delete"],
    ["events"],
    ["events", "tail"],
    ["events", "list"],
    ["notifications"],
    ["notifications", "list"],
    ["notifications", "read"],
    ["notifications", "tail"],
    ["notifications", "done"],
    ["notifications", "subscribe"],
    ["notifications", "unsubscribe"],
    ["import"],
    ["import", "status"],
    ["import", "follow"],
    ["permissions"],
    ["auth"],
    ["auth", "status"],
    ["completion"],
  ];
  it.each(commands.map((command) => [command.join(" "), command] as const))(
    "%s --help shows an example and the exit codes",
    async (_name, command) => {
      const run = await shiplog([...command, "--help"], null);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/\nExamples?:\n {2}(source <\()?shiplog /);
      expect(run.stdout).toContain("2    bad usage: nothing was sent");
      expect(run.stdout).toContain("130  interrupted (Ctrl-C) before the command was done");
      // Each command's help lists the options that apply to every command: --json and the credentials.
      expect(run.stdout).toMatch(/Global Options:\n[\s\S]*--app-private-key-file <path>[\s\S]*--json/);
    },
  );

  const usage: [string, string[], RegExp][] = [
    ["no command", [], /^shiplog: a command is needed: records, tag, events, notifications, import, permissions, auth, completion \(/],
    ["options but no command", ["--json"], /^shiplog: a command is needed: records, tag, /],
    [
      "a group without its command",
      ["records"],
      /^shiplog records: a command is needed: deployments, storage, set-cluster, create-storage, create-deployment \(see shiplog records --help\)\n/,
    ],
    [
      "a tag of a tag object",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--type", "tag"],
      /^shiplog tag create: option '--type <type>' argument 'tag' is invalid\. Allowed choices are commit, tree, blob\./,
    ],
    [
      "plain http to a host that is not loopback",
      ["--api-url", "http://api.example.com", "records", "storage", "--org", "acme", digest],
      /^shiplog records storage: --api-url: must use https:\/\/ \(over http:\/\/ the token would travel in clear text\).* not api\.example\.com/,
    ],
    ["unknown command", ["deploy"], /^shiplog: unknown command 'deploy'/],
    ["unknown option", ["records", "storage", "--orgg", "acme", digest], /^shiplog records storage: unknown option '--orgg'/],
    ["missing digest", ["records", "deployments", "--org", "acme"], /^shiplog records deployments: missing required argument 'digest'/],
    [
      "bad digest",
      ["records", "storage", "--org", "acme", "sha256:xyz"],
      /^shiplog records storage: .*expected sha256:<64 lowercase hex digits>/,
    ],
    ["no org", ["records", "storage", digest], /^shiplog records storage: --org is required/],
    [
      "missing file",
      ["records", "set-cluster", "--org", "acme", "--cluster", "c", "--file", "/nope.json"],
      /^shiplog records set-cluster: --file: "\/nope\.json" does not exist \[rule: existing file\]/,
    ],
    ["bad repository", ["tag", "create", "acme", "v1", "--object", "a".repeat(40)], /^shiplog tag create: .*expected owner\/repo/],
    [
      "bad object",
      ["tag", "create", "acme/web", "v1", "--object", "abc"],
      /^shiplog tag create: --object: must be 40 \(SHA-1\) or 64 \(SHA-256\) lowercase hex digits/,
    ],
    [
      "bad tag name",
      ["tag", "create", "acme/web", "bad..name", "--object", "a".repeat(40)],
      /^shiplog tag create: tag "bad\.\.name": tag name must not contain \.\./,
    ],
    [
      "bad if-exists",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--if-exists", "move"],
      /^shiplog tag create: option '--if-exists <what>' argument 'move' is invalid/,
    ],
    [
      "floating tags without a version",
      ["tag", "create", "acme/web", "v2.0.0-rc.1", "--object", "a".repeat(40), "--derived-tags", "major"],
      /^shiplog tag create: --derived-tags major: no tag is a release version such as v1\.4\.0/,
    ],
    [
      "half a tagger",
      ["tag", "create", "acme/web", "v1", "--object", "a".repeat(40), "--tagger-name", "Bot"],
      /^shiplog tag create: --tagger-email is required with --tagger-name/,
    ],
    ["bad feed", ["events", "tail", "repos:acme/web"], /^shiplog events tail: .*expected one of public, repo:OWNER\/REPO/],
    ["read without id", ["notifications", "read"], /^shiplog notifications read: give a thread id or --all/],
    ["bad thread id", ["notifications", "read", "x1"], /^shiplog notifications read: .*expected a positive whole number/],
    ["bad import repo", ["import", "status", "acme"], /^shiplog import status: .*expected owner\/repo/],
    [
      "bad shell",
      ["completion", "powershell"],
      /^shiplog completion: .*'powershell' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish/,
    ],
    [
      "bad limit",
      ["records", "storage", "--org", "acme", digest, "--limit", "0"],
      /^shiplog records storage: option '-L, --limit <n>' argument '0' is invalid\. expected a positive whole number/,
    ],
    [
      "bad output",
      ["records", "storage", "--org", "acme", digest, "-o", "xml"],
      /^shiplog: option '-o, --output <format>' argument 'xml' is invalid\. Allowed choices are table, json, yaml/,
    ],
    [
      "two formats",
      ["records", "storage", "--org", "acme", digest, "--json", "-o", "yaml"],
      /^shiplog records storage: --json and --output yaml ask for two formats: give one/,
    ],
    ["bad query", ["permissions", "GET", "/notifications", "--query", "$$$("], /^shiplog permissions: --query: /],
    [
      "tag delete without --yes",
      ["tag", "delete", "acme/web", "v1"],
      /^shiplog tag delete: --yes is required: deleting refs\/tags\/v1 cannot be undone/,
    ],
    ["bad api url", ["--api-url", "ftp://x", "records", "storage", "--org", "acme", digest], /^shiplog records storage: --api-url: /],
    [
      "a token file beside SHIPLOG_TOKEN",
      ["--token-file", "/nope", "records", "storage", "--org", "acme", digest],
      /^shiplog records storage: SHIPLOG_TOKEN and --token-file are both set: .* \[rule: one token source\]/,
    ],
  ];
  it.each(usage)("usage error (%s): one line, exit 2, nothing sent", async (_, args, message) => {
    emulator.requests.clear();
    const run = await shiplog(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr.endsWith("\n")).toBe(true);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("a token file that does not exist: one line naming the option and the rule, exit 2", async () => {
    const run = await shiplog(["--token-file", "/nope", "records", "storage", "--org", "acme", digest], null);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^shiplog records storage: --token-file: "\/nope" does not exist \[rule: existing file\]/);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("no token where one is needed: exit 4, one line", async () => {
    const run = await shiplog(["records", "storage", "--org", "acme", digest], null);
    expect(run.code).toBe(4);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
