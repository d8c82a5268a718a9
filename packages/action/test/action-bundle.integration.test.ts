// The committed bundle, run as the runner runs it (node dist/index.js, INPUT_* variables, GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files), against the emulator, under whichever Node runs the suite.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { runBundledAction, type LocalRunResult } from "./local-runner.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

let emulator: Emulator;
let workspace: string;
let head: string;
const files = {
  "dist/web-1.0.0.tgz": "web tarball",
  "dist/web-1.0.0.zip": "web zip",
  "dist/sbom.json": '{"sbom":true}',
  "dist/notes.txt": "not an artifact",
};

beforeAll(async () => {
  emulator = await startEmulator();
  head = emulator.state.git.repository("acme", "web")!.head()!;
  workspace = tempDir("shiplog-ws-");
  mkdirSync(join(workspace, "dist"));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(workspace, path), content);
});
afterAll(async () => {
  await emulator.stop();
  rmSync(workspace, { recursive: true, force: true });
});
beforeEach(() => emulator.requests.clear());

/** A step with only the given inputs: the token comes from its action.yml default, the job's token. */
function run(inputs: Record<string, string>, token = emulator.tokens.admin!): Promise<LocalRunResult> {
  return runBundledAction({
    inputs,
    jobToken: token,
    env: { GITHUB_SHA: head, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url },
    cwd: workspace,
  });
}

/** The token may appear only in the runner's mask command, nowhere else. */
function expectNoToken(result: LocalRunResult, token = emulator.tokens.admin!) {
  expect(result.masked).toEqual([token]);
  expect(result.stdout.split(token)).toHaveLength(2);
  expect(result.summary).not.toContain(token);
  expect(JSON.stringify(result.outputs)).not.toContain(token);
  expect(result.stderr).not.toContain(token);
}

const sha256 = (content: string) => `sha256:${createHash("sha256").update(content).digest("hex")}`;
const writes = () => emulator.requests.list().filter((r) => r.method !== "GET");

describe("tags", () => {
  it("creates an annotated tag whose reference points at the tag object, with outputs and a summary", async () => {
    const result = await run({
      tag: "v1.0.0",
      "tag-message": "Release 1.0.0\n\nNotes.",
      "tagger-name": "Release Bot",
      "tagger-email": "bot@example.com",
    });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const repo = emulator.state.git.repository("acme", "web")!;
    const tagSha = repo.ref("refs/tags/v1.0.0");
    expect(result.outputs).toMatchObject({
      "tag-sha": tagSha,
      "tag-ref": "refs/tags/v1.0.0",
      "tag-outcome": "created",
      "storage-records": "[]",
    });
    expect(repo.object(tagSha!)?.type).toBe("tag");
    expect(repo.tag(tagSha!)).toMatchObject({ object: head, type: "commit", tag: "v1.0.0", tagger: { name: "Release Bot" } });
    expect(result.summary).toContain("| `refs/tags/v1.0.0` | created |");
    expect(result.annotations).toEqual([]);
    expectNoToken(result);
  });

  it("a re-run with the same tag is skipped and writes nothing", async () => {
    await run({ tag: "v1.1.0" });
    emulator.requests.clear();
    const again = await run({ tag: "v1.1.0" });
    expect(again.exitCode).toBe(0);
    expect(again.outputs["tag-outcome"]).toBe("skipped");
    expect(again.outputs["tag-sha"]).toBe(emulator.state.git.repository("acme", "web")!.ref("refs/tags/v1.1.0"));
    expect(writes()).toEqual([]);
    expect(again.summary).toContain("| skipped |");
  });

  it("a tag that points elsewhere fails with an annotation saying where it points; nothing is moved", async () => {
    await run({ tag: "v1.2.0" });
    const before = emulator.state.git.repository("acme", "web")!.ref("refs/tags/v1.2.0");
    const other = emulator.state.git.repository("acme", "web")!.commits()[0]!.sha;
    emulator.requests.clear();
    const result = await run({ tag: "v1.2.0", "tag-object": other });
    expect(result.exitCode).toBe(1);
    expect(result.annotations).toHaveLength(1);
    expect(result.annotations[0]).toMatchObject({ level: "error", title: "Tag already exists" });
    expect(result.annotations[0]!.message).toContain(
      `refs/tags/v1.2.0 in acme/web already exists and points at tag object ${before}: it tags commit ${head}, not commit ${other}`,
    );
    expect(result.annotations[0]!.message).toContain("delete it first, or choose another tag name");
    expect(writes()).toEqual([]);
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/tags/v1.2.0")).toBe(before);
    expect(result.summary).toContain("Tag already exists");
  });

  it("if-tag-exists: fail refuses a tag that already matches", async () => {
    await run({ tag: "v1.3.0" });
    const result = await run({ tag: "v1.3.0", "if-tag-exists": "fail" });
    expect(result.exitCode).toBe(1);
    expect(result.annotations[0]!.message).toContain("Set if-tag-exists: skip");
  });

  it("a token without contents write gets an annotation naming the permission and level", async () => {
    const token = emulator.tokens.readOnly!;
    const result = await run({ tag: "v9.0.0" }, token);
    expect(result.exitCode).toBe(1);
    expect(result.annotations).toEqual([
      expect.objectContaining({
        title: "Permission missing",
        message: expect.stringContaining("It needs the Contents (write) permission: add `permissions: { contents: write }`"),
      }),
    ]);
    expectNoToken(result, token);
  });
});

describe("storage records", () => {
  it("three files by glob give three storage records with the files' sha256", async () => {
    const result = await run({
      "subject-path": "dist/*.tgz\ndist/*.zip\ndist/*.json",
      "registry-url": "https://registry.example/",
      "subject-version": "1.0.0",
    });
    expect(result.exitCode).toBe(0);
    const records = JSON.parse(result.outputs["storage-records"]!) as { name: string; digest: string }[];
    expect(records.map((r) => [r.name, r.digest])).toEqual([
      ["sbom.json", sha256(files["dist/sbom.json"])],
      ["web-1.0.0.tgz", sha256(files["dist/web-1.0.0.tgz"])],
      ["web-1.0.0.zip", sha256(files["dist/web-1.0.0.zip"])],
    ]);
    const stored = emulator.state.artifacts.storageRecords({ org: "acme" }).filter((r) => r.version === "1.0.0");
    expect(stored.map((r) => [r.name, r.repository, r.registry_url]).sort()).toEqual([
      ["sbom.json", "web", "https://registry.example/"],
      ["web-1.0.0.tgz", "web", "https://registry.example/"],
      ["web-1.0.0.zip", "web", "https://registry.example/"],
    ]);
    expect(result.summary).toContain("### Storage records (3)");
    expect(result.outputs["tag-outcome"]).toBe("");
  });

  it("a tag and a digest subject in one run", async () => {
    const digest = sha256("image");
    const result = await run({
      tag: "v2.0.0",
      "subject-digest": digest,
      "subject-name": "ghcr.io/acme/web",
      "registry-url": "https://ghcr.io/",
      "storage-status": "active",
    });
    expect(result.exitCode).toBe(0);
    expect(result.outputs["tag-outcome"]).toBe("created");
    expect(JSON.parse(result.outputs["storage-records"]!)).toEqual([
      expect.objectContaining({ name: "ghcr.io/acme/web", digest, status: "active" }),
    ]);
  });

  it("bad inputs are refused before anything is sent, each annotation naming the input and the rule", async () => {
    const result = await run({
      tag: "bad..tag",
      "subject-digest": "sha256:1234",
      "subject-name": "app",
      "registry-url": "http://registry.example/",
      "storage-status": "gone",
      "if-tag-exists": "maybe",
    });
    expect(result.exitCode).toBe(1);
    expect(emulator.requests.list()).toEqual([]);
    const titles = result.annotations.map((a) => a.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        "Invalid input: tag must be a valid tag name under git check-ref-format",
        "Invalid input: if-tag-exists must be one of skip, fail, update",
        "Invalid input: subject-digest must be sha256: followed by 64 lowercase hex digits",
        "Invalid input: registry-url must be an https:// URL",
        "Invalid input: storage-status must be one of active, inactive, eol, deleted",
      ]),
    );
    expect(result.annotations).toHaveLength(5);
    expect(result.outputs).toEqual({});
  });

  it("a glob that matches nothing is an input problem", async () => {
    const result = await run({ "subject-path": "missing/*.bin", "registry-url": "https://registry.example/" });
    expect(result.exitCode).toBe(1);
    expect(result.annotations[0]).toMatchObject({ title: "Invalid input: subject-path must match a file" });
    expect(emulator.requests.list()).toEqual([]);
  });
});

describe("many files", () => {
  const prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].find((path) => existsSync(path));
  if (!prlimit) console.warn("SKIPPED: no prlimit (util-linux) here to run the action with few file descriptors");

  it.skipIf(!prlimit)(
    "250 files (the most a run records) by glob under a 64 file descriptor limit: every file hashed, none failed with EMFILE",
    async () => {
      const dir = tempDir("shiplog-many-");
      try {
        mkdirSync(join(dir, "out"));
        const expected: [string, string][] = [];
        for (let i = 0; i < 250; i++) {
          const name = `part-${String(i).padStart(3, "0")}.bin`;
          writeFileSync(join(dir, "out", name), `part ${i}\n`);
          expected.push([name, sha256(`part ${i}\n`)]);
        }
        const result = await runBundledAction({
          inputs: { "dry-run": "true", "subject-path": "out/*.bin", "registry-url": "https://registry.example/" },
          jobToken: emulator.tokens.admin!,
          env: { GITHUB_SHA: head, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url },
          cwd: dir,
          wrapper: [prlimit!, "--nofile=64"],
        });
        expect(result.stdout).not.toContain("EMFILE");
        expect(result.exitCode).toBe(0);
        const records = JSON.parse(result.outputs["storage-records"]!) as { name: string; digest: string }[];
        expect(records.map((r) => [r.name, r.digest])).toEqual(expected);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe("dry run", () => {
  it("computes and reports everything but sends nothing", async () => {
    const result = await run({
      "dry-run": "true",
      tag: "v3.0.0",
      "subject-path": "dist/*.tgz",
      "registry-url": "https://registry.example/",
    });
    expect(result.exitCode).toBe(0);
    expect(emulator.requests.list()).toEqual([]);
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/tags/v3.0.0")).toBeUndefined();
    expect(result.outputs["tag-outcome"]).toBe("dry-run");
    expect(result.outputs["tag-sha"]).toBe("");
    expect(JSON.parse(result.outputs["storage-records"]!)).toEqual([
      {
        name: "web-1.0.0.tgz",
        digest: sha256(files["dist/web-1.0.0.tgz"]),
        registry_url: "https://registry.example/",
        github_repository: "web",
      },
    ]);
    expect(result.summary).toContain("dry run: nothing was sent");
  });

  /** The plan as the step's log shows it: the heading and the indented lines under it. */
  const planInLog = (stdout: string) => {
    const lines = stdout.split("\n");
    const start = lines.findIndex((line) => line.startsWith("Dry run: nothing was sent."));
    if (start < 0) return [];
    const end = lines.findIndex((line, i) => i > start && !line.startsWith("  "));
    return lines.slice(start, end < 0 ? undefined : end);
  };

  it("prints the plan to the step's log: each tag and storage record on a line, saying which repository is which", async () => {
    const result = await run({
      "dry-run": "true",
      tag: "v3.1.0",
      "derived-tags": "major",
      "subject-path": "dist/*.tgz",
      "subject-version": "3.1.0",
      "registry-url": "https://registry.example/",
      "registry-repository": "acme/web-releases",
    });
    expect(result.exitCode).toBe(0);
    expect(emulator.requests.list()).toEqual([]);
    expect(planInLog(result.stdout)).toEqual([
      "Dry run: nothing was sent. It would write 2 tags and 1 storage record:",
      `  tag v3.1.0 in acme/web → commit ${head}, message "v3.1.0" (if it exists: skip)`,
      `  tag v3 in acme/web → commit ${head}, message "v3" (moved with v3.1.0)`,
      `  storage record web-1.0.0.tgz ${sha256(files["dist/web-1.0.0.tgz"])} in https://registry.example/ ` +
        "(registry repository acme/web-releases, code repository web, version 3.1.0, file dist/web-1.0.0.tgz)",
    ]);
    expect(result.summary).toContain("| Name | Digest | Registry | Registry repository | Status | Code repository | Outcome | Record id |");
    expect(result.summary).toContain("| https://registry.example/ | acme/web-releases |  | web | dry-run |  |");
  });

  it("a large plan is bounded in the log: the first lines, then how many more", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `${createHash("sha256").update(String(i)).digest("hex")}  part-${i}.bin`);
    const result = await run({ "dry-run": "true", "subject-checksums": lines.join("\n"), "registry-url": "https://registry.example/" });
    expect(result.exitCode).toBe(0);
    const plan = planInLog(result.stdout);
    expect(plan[0]).toBe("Dry run: nothing was sent. It would write 60 storage records:");
    expect(plan).toHaveLength(1 + 50 + 1);
    expect(plan[50]).toMatch(
      /^ {2}storage record part-49\.bin sha256:[0-9a-f]{64} in https:\/\/registry\.example\/ \(code repository web\)$/,
    );
    expect(plan.at(-1)).toBe("  ... and 10 more (10 storage records): every one is in the job summary and the step's outputs");
    expect(JSON.parse(result.outputs["storage-records"]!)).toHaveLength(60);
  });
});
