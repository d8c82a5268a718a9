// A release as a workflow runs it, through the committed bundle against the emulator: version and floating tags,
// a re-run, storage records from a checksums file and for a container image, and each new input's bad values.
import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { runBundledAction, type LocalRunResult } from "./local-runner.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

let emulator: Emulator;
let workspace: string;
let commits: string[];

beforeAll(async () => {
  emulator = await startEmulator();
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
  workspace = tempDir("shiplog-release-");
});
afterAll(async () => {
  await emulator.stop();
  rmSync(workspace, { recursive: true, force: true });
});
beforeEach(() => emulator.requests.clear());

function run(inputs: Record<string, string>, options: { sha?: string; token?: string } = {}): Promise<LocalRunResult> {
  return runBundledAction({
    inputs,
    jobToken: options.token ?? emulator.tokens.admin!,
    env: { GITHUB_SHA: options.sha ?? commits.at(-1)!, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url },
    cwd: workspace,
  });
}

const sha256 = (content: string) => createHash("sha256").update(content).digest("hex");
const writes = () =>
  emulator.requests
    .list()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.route}`);
const ref = (name: string) => emulator.state.git.repository("acme", "web")!.ref(`refs/tags/${name}`);
const taggedCommit = (name: string) => emulator.state.git.repository("acme", "web")!.tag(ref(name)!)?.object;

describe("release tags", () => {
  it("v1.4.0 is created and the floating v1 and v1.4 move to it; a re-run is skipped", async () => {
    // The previous release left v1.3.0 and v1 on the second commit, and someone pointed v1.4 there by hand.
    const before = await run({ tag: "v1.3.0", "derived-tags": "major" }, { sha: commits[1]! });
    expect(before.exitCode).toBe(0);
    emulator.state.git.repository("acme", "web")!.createRef("refs/tags/v1.4", commits[1]!);
    const oldV1 = ref("v1");
    emulator.requests.clear();

    const release = await run({ tags: "v1.4.0", "derived-tags": "major-minor", "tag-message": "Release 1.4.0" });
    expect(release.stderr).toBe("");
    expect(release.exitCode).toBe(0);
    const tags = JSON.parse(release.outputs.tags!) as { tag: string; outcome: string; sha: string }[];
    expect(tags.map((t) => [t.tag, t.outcome])).toEqual([
      ["v1.4.0", "created"],
      ["v1", "updated"],
      ["v1.4", "updated"],
    ]);
    for (const name of ["v1.4.0", "v1", "v1.4"]) expect(taggedCommit(name), name).toBe(commits.at(-1));
    expect(ref("v1")).not.toBe(oldV1);
    expect(ref("v1.3.0")).toBeDefined();
    expect(writes()).toEqual([
      "POST /repos/:owner/:repo/git/tags",
      "POST /repos/:owner/:repo/git/refs",
      "POST /repos/:owner/:repo/git/tags",
      "PATCH /repos/:owner/:repo/git/refs/*",
      "POST /repos/:owner/:repo/git/tags",
      "PATCH /repos/:owner/:repo/git/refs/*",
    ]);
    expect(release.outputs["tag-outcome"]).toBe("created");
    expect(release.summary).toContain("### Tags (3) in acme/web");
    expect(release.summary).toContain("| `refs/tags/v1` | updated |");

    emulator.requests.clear();
    const rerun = await run({ tags: "v1.4.0", "derived-tags": "major-minor", "tag-message": "Release 1.4.0" });
    expect(rerun.exitCode).toBe(0);
    expect((JSON.parse(rerun.outputs.tags!) as { outcome: string }[]).map((t) => t.outcome)).toEqual(["skipped", "skipped", "skipped"]);
    expect(writes()).toEqual([]);
  });

  it("if-tag-exists: update moves an explicit tag; several tags, one per line", async () => {
    await run({ tag: "nightly" }, { sha: commits[0]! });
    const moved = await run({ tags: "nightly\nedge", "if-tag-exists": "update" });
    expect(moved.exitCode).toBe(0);
    expect((JSON.parse(moved.outputs.tags!) as { outcome: string }[]).map((t) => t.outcome)).toEqual(["updated", "created"]);
    expect(taggedCommit("nightly")).toBe(commits.at(-1));
  });
});

describe("subjects", () => {
  const artifacts = { "web-1.4.0.tgz": "tarball", "web-1.4.0.zip": "zip", "sbom.spdx.json": "{}" };
  const checksumLines = Object.entries(artifacts).map(([name, content], i) => `${sha256(content)} ${i === 1 ? "*" : " "}${name}`);

  it("a checksums file in sha256sum format gives three storage records", async () => {
    writeFileSync(join(workspace, "SHA256SUMS"), `${checksumLines.join("\n")}\n`);
    const result = await run({
      "subject-checksums": "SHA256SUMS",
      "registry-url": "https://releases.example/",
      "subject-version": "1.4.0",
    });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const records = JSON.parse(result.outputs["storage-records"]!) as { name: string; digest: string; version: string }[];
    expect(records.map((r) => [r.name, r.digest])).toEqual(
      Object.entries(artifacts).map(([name, content]) => [name, `sha256:${sha256(content)}`]),
    );
    expect(writes()).toHaveLength(3);
  });

  it("inline lines work too, and a digest given twice is one record with a notice", async () => {
    const result = await run({
      "subject-checksums": `${checksumLines[0]}\n${checksumLines[0]!.replace("web-1.4.0.tgz", "copy.tgz")}`,
      "registry-url": "https://releases.example/",
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.outputs["storage-records"]!)).toHaveLength(1);
    expect(result.annotations).toEqual([
      expect.objectContaining({
        level: "notice",
        title: "Duplicate subject",
        message: expect.stringContaining("one storage record, named web-1.4.0.tgz"),
      }),
    ]);
  });

  it("a container image by subject-name and subject-digest: the registry and repository follow from the name", async () => {
    const digest = `sha256:${sha256("image manifest")}`;
    const result = await run({ "subject-name": "ghcr.io/acme/web", "subject-digest": digest, "subject-version": "1.4.0" });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [record] = JSON.parse(result.outputs["storage-records"]!) as Record<string, unknown>[];
    expect(record).toMatchObject({ name: "ghcr.io/acme/web", digest, registry_url: "https://ghcr.io", repository: "acme/web" });
  });

  it("a token without the storage-record permission fails the run, or only warns with storage-permission-missing: warn", async () => {
    const inputs = { "subject-name": "ghcr.io/acme/web", "subject-digest": `sha256:${sha256("other")}` };
    const failed = await run(inputs, { token: emulator.tokens.readOnly! });
    expect(failed.exitCode).toBe(1);
    expect(failed.annotations[0]).toMatchObject({ level: "error" });
    const warned = await run({ ...inputs, "storage-permission-missing": "warn" }, { token: emulator.tokens.readOnly! });
    expect(warned.exitCode).toBe(0);
    expect(warned.annotations).toEqual([
      expect.objectContaining({ level: "warning", message: expect.stringContaining("storage-permission-missing: warn") }),
    ]);
    expect(warned.outputs["storage-records"]).toBe("[]");
  });

  it("with storage-permission-missing: warn, an owner that is not an organization warns; a missing repository still fails", async () => {
    const inputs = {
      "subject-name": "ghcr.io/octo/tool",
      "subject-digest": `sha256:${sha256("user's image")}`,
      "storage-permission-missing": "warn",
    };
    // A user account as the owner: the organization endpoints answer 404, as for attest on a personal repository.
    const user = await runBundledAction({
      inputs,
      jobToken: emulator.tokens.admin!,
      env: { GITHUB_SHA: commits.at(-1)!, GITHUB_REPOSITORY: "octo/tool", GITHUB_API_URL: emulator.url },
      cwd: workspace,
    });
    expect(user.exitCode).toBe(0);
    expect(user.annotations).toEqual([expect.objectContaining({ level: "warning", title: "Storage record skipped: Not found" })]);
    const typo = await run({ ...inputs, "github-repository": "no-such-repository" });
    expect(typo.exitCode).toBe(1);
    expect(typo.annotations).toEqual([expect.objectContaining({ level: "error", title: "Repository not found" })]);
  });
});

describe("bad values of the new inputs are refused before anything is sent, naming the input", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["tags", { tags: "v1.4.0\nbad..name" }, "Invalid input: tags must be a valid tag name under git check-ref-format"],
    ["derived-tags", { tag: "v1.4.0", "derived-tags": "minor" }, "Invalid input: derived-tags must be one of none, major, major-minor"],
    [
      "derived-tags without a version",
      { tag: "v1.4.0-rc.1", "derived-tags": "major" },
      "Invalid input: derived-tags needs a release version tag such as v1.4.0",
    ],
    [
      "derived-tags without any tag",
      { "derived-tags": "major", "subject-checksums": "x", "registry-url": "https://r.example/" },
      "Invalid input: derived-tags needs tag",
    ],
    ["if-tag-exists", { tag: "v2", "if-tag-exists": "move" }, "Invalid input: if-tag-exists must be one of skip, fail, update"],
    [
      "subject-checksums line",
      { "subject-checksums": "not a checksum\nline", "registry-url": "https://r.example/" },
      "Invalid input: subject-checksums must be in sha256sum format",
    ],
    [
      "subject-checksums file",
      { "subject-checksums": "missing/SUMS", "registry-url": "https://r.example/" },
      "Invalid input: subject-checksums must name an existing file",
    ],
    [
      "subject-name image with a tag",
      { "subject-name": "ghcr.io/acme/web:1.4.0", "subject-digest": `sha256:${"a".repeat(64)}` },
      "Invalid input: subject-name must be an image name without tag or digest",
    ],
    [
      "storage-permission-missing",
      { "subject-name": "ghcr.io/acme/web", "subject-digest": `sha256:${"a".repeat(64)}`, "storage-permission-missing": "ignore" },
      "Invalid input: storage-permission-missing must be one of fail, warn",
    ],
  ];
  it.each(cases)("%s", async (_, inputs, title) => {
    const result = await run(inputs);
    expect(result.exitCode).toBe(1);
    expect(result.annotations.map((a) => a.title)).toContain(title);
    expect(result.annotations.every((a) => a.level === "error")).toBe(true);
    expect(emulator.requests.list()).toEqual([]);
  });
});
