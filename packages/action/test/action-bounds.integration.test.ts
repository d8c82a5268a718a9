// The bundled action's work is bounded: matches stay in the workspace (symbolic links are not followed out of it,
// nor walked), at most MAX_SUBJECTS subjects a run (a named error pointing to a checksums file), the checksums file
// and the runner's files are regular files (a FIFO or a device is named, never waited on), and the outputs go only
// to the runner's file (a warning when there is none, never the deprecated ::set-output). Every run is bounded: a
// hang is killed and fails the test.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { runBundledAction, type LocalRunResult } from "./local-runner.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const BOUND_MS = 20_000;
const REGISTRY = { "registry-url": "https://registry.example/" };
const MAX_SUBJECTS = 250;
let emulator: Emulator;
let workspace: string;
let head: string;

const hex = (i: number) => i.toString(16).padStart(64, "0");

beforeAll(async () => {
  emulator = await startEmulator();
  head = emulator.state.git.repository("acme", "web")!.head()!;
  workspace = tempDir("shiplog-bounds-");
  mkdirSync(join(workspace, "dist"));
  writeFileSync(join(workspace, "dist", "app.tgz"), "app");
  mkdirSync(join(workspace, "rooted"));
  symlinkSync("/", join(workspace, "rooted", "everything"));
  mkdirSync(join(workspace, "etc-link"));
  symlinkSync("/etc", join(workspace, "etc-link", "etc"));
  mkdirSync(join(workspace, "file-link"));
  symlinkSync("/etc/hostname", join(workspace, "file-link", "hostname.tgz"));
  mkdirSync(join(workspace, "inner-link"));
  symlinkSync(join(workspace, "dist", "app.tgz"), join(workspace, "inner-link", "app-link.tgz"));
  mkdirSync(join(workspace, "many"));
  for (let i = 0; i <= MAX_SUBJECTS; i++) writeFileSync(join(workspace, "many", `f${i}.bin`), String(i));
  writeFileSync(
    join(workspace, "SHA256SUMS.many"),
    Array.from({ length: MAX_SUBJECTS + 1 }, (_, i) => `${hex(i + 1)}  a${i}.tgz`).join("\n"),
  );
  execFileSync("mkfifo", [join(workspace, "fifo")]);
});
afterAll(async () => {
  await emulator.stop();
  rmSync(workspace, { recursive: true, force: true });
});

function run(inputs: Record<string, string>, env: Record<string, string> = {}): Promise<LocalRunResult> {
  return runBundledAction({
    inputs,
    jobToken: emulator.tokens.admin!,
    env: { GITHUB_SHA: head, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url, GITHUB_WORKSPACE: workspace, ...env },
    cwd: workspace,
    timeoutMs: BOUND_MS,
  });
}

/** The run ended by itself with exactly one error annotation on `input` saying the rule it broke in `words`. */
function expectRefusal(result: LocalRunResult, input: string, words: string, message: RegExp) {
  expect(result.timedOut).toBe(false);
  expect(result.exitCode).toBe(1);
  expect(result.annotations).toEqual([expect.objectContaining({ level: "error", title: `Invalid input: ${input} ${words}` })]);
  expect(result.annotations[0]!.message).toMatch(message);
  expect(result.annotations[0]!.message).not.toContain("\n");
}

describe("matches stay in the workspace", () => {
  it("a symbolic link to / is not walked: refused by name", async () => {
    emulator.requests.clear();
    const result = await run({ ...REGISTRY, "subject-path": "rooted/**" });
    expectRefusal(
      result,
      "subject-path",
      "must match files inside the workspace",
      /rooted\/everything is a symbolic link to \/, outside the workspace/,
    );
    expect(emulator.requests.list().filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("a pattern rooted at a link out of the workspace is refused before any walk", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "rooted/everything/etc/*" });
    expectRefusal(
      result,
      "subject-path",
      "must match files inside the workspace",
      /rooted\/everything\/etc leads to \/etc, outside the workspace/,
    );
  });

  it("directory and file links out of the workspace are refused by name", async () => {
    const dir = await run({ ...REGISTRY, "subject-path": "etc-link/**" });
    expectRefusal(
      dir,
      "subject-path",
      "must match files inside the workspace",
      /etc-link\/etc is a symbolic link to \/etc, outside the workspace/,
    );
    const file = await run({ ...REGISTRY, "subject-path": "file-link/*.tgz" });
    expectRefusal(
      file,
      "subject-path",
      "must match files inside the workspace",
      /hostname\.tgz is a symbolic link to \/etc\/hostname, outside/,
    );
  });

  it("a link to a file inside the workspace is recorded", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "inner-link/*.tgz", "dry-run": "true" });
    expect(result.exitCode, result.stdout).toBe(0);
    expect(JSON.parse(result.outputs["storage-records"]!)).toEqual([expect.objectContaining({ name: "app-link.tgz" })]);
  });
});

describe(`at most ${MAX_SUBJECTS} subjects a run`, () => {
  it(`a pattern matching ${MAX_SUBJECTS + 1} files stops there, naming a checksums file as the way`, async () => {
    const result = await run({ ...REGISTRY, "subject-path": "many/*.bin", "dry-run": "true" });
    expectRefusal(
      result,
      "subject-path",
      `must name at most ${MAX_SUBJECTS} subjects in all`,
      /subject-path: matched more than 250 files \(the search stopped there\), more than the 250 one run records .* subject-checksums/,
    );
    expect(result.outputs).toEqual({});
  });

  it(`a checksums file of ${MAX_SUBJECTS + 1} lines is refused the same way`, async () => {
    const result = await run({ ...REGISTRY, "subject-checksums": "SHA256SUMS.many", "dry-run": "true" });
    expectRefusal(
      result,
      "subject-checksums",
      `must name at most ${MAX_SUBJECTS} subjects in all`,
      /subject-checksums: 251 subjects, more than the 250/,
    );
  });
});

describe("the checksums file and the runner's files are regular files", () => {
  it.each([
    ["a FIFO", () => join(workspace, "fifo"), /is a named pipe \(FIFO\), not a regular file/],
    ["/dev/zero", () => "/dev/zero", /"\/dev\/zero" is a character device, not a regular file/],
    ["a directory", () => workspace, /is a directory, not a regular file/],
  ])("subject-checksums naming %s: refused by name", async (_, path, message) => {
    const result = await run({ ...REGISTRY, "subject-checksums": path() });
    expectRefusal(result, "subject-checksums", "must name a regular file", message);
  });

  it("GITHUB_OUTPUT and GITHUB_STEP_SUMMARY naming a FIFO: warnings after the work, no hang", async () => {
    const fifo = join(workspace, "fifo");
    const result = await run(
      { ...REGISTRY, "subject-path": "dist/app.tgz", "dry-run": "true" },
      { GITHUB_OUTPUT: fifo, GITHUB_STEP_SUMMARY: fifo },
    );
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(result.annotations).toEqual([
      {
        level: "warning",
        title: "Outputs not written",
        message: expect.stringContaining(`GITHUB_OUTPUT: "${fifo}" is a named pipe (FIFO), not a regular file [rule: regular file]`),
      },
      {
        level: "warning",
        title: "Summary not written",
        message: expect.stringContaining(`GITHUB_STEP_SUMMARY: "${fifo}" is a named pipe (FIFO), not a regular file [rule: regular file]`),
      },
    ]);
  });

  it("no GITHUB_OUTPUT: a warning, and no ::set-output in the log", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "dist/app.tgz", "dry-run": "true" }, { GITHUB_OUTPUT: "" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain("::set-output");
    expect(result.annotations).toEqual([
      expect.objectContaining({
        level: "warning",
        title: "Outputs not written",
        message: expect.stringContaining("GITHUB_OUTPUT is not set"),
      }),
    ]);
    expect(result.summary).toContain("app.tgz");
  });
});
