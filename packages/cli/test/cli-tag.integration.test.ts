// `shiplog tag create` as a user runs it: a subprocess against the emulator, a release tag with its derived tags,
// a re-run skipped, a tag that exists elsewhere refused or moved, and a token without the permission refused.
import { describe, expect, it } from "vitest";
import { commits, emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";

useCliEmulator();

describe("tag create", () => {
  it("creates v1.4.0 and moves v1 and v1.4 (table), a re-run is skipped (--json)", async () => {
    const release = [
      "tag",
      "create",
      "acme/web",
      "v1.4.0",
      "--object",
      commits.at(-1)!,
      "--derived-tags",
      "major-minor",
      "--message",
      "Release 1.4.0",
    ];
    const run = await shiplog(release);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^TAG\s+OUTCOME\s+TAG OBJECT\s+OBJECT\s+DERIVED\n/);
    expect(run.stdout).toMatch(/refs\/tags\/v1\.4\.0\s+created/);
    expect(run.stdout).toMatch(/refs\/tags\/v1\s+created\s+\w{12}\s+commit \w{12}\s+from v1\.4\.0/);
    const again = await shiplog([...release, "--json"]);
    expect((JSON.parse(again.stdout) as { outcome: string }[]).map((t) => t.outcome)).toEqual(["skipped", "skipped", "skipped"]);
  });

  it("a tag that exists elsewhere is refused (exit 1, one line); --if-exists update moves it", async () => {
    const refused = await shiplog(["tag", "create", "acme/web", "v1.4.0", "--object", commits[0]!, "--message", "Release 1.4.0"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^shiplog tag create: refs\/tags\/v1\.4\.0 in acme\/web already exists .*\n$/);
    const moved = await shiplog([
      "tag",
      "create",
      "acme/web",
      "v1.4.0",
      "--object",
      commits[0]!,
      "--message",
      "Release 1.4.0",
      "--if-exists",
      "update",
      "--json",
    ]);
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual([expect.objectContaining({ tag: "v1.4.0", outcome: "updated" })]);
  });

  it("a token without contents write: exit 1 naming the permission", async () => {
    const run = await shiplog(["tag", "create", "acme/web", "v9", "--object", commits[0]!], emulator.tokens.readOnly);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/contents/i);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
