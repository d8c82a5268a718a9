// The release flow run by GitHub's own @github/local-action (7.x): the action's sources under the tool's stubs of
// @actions/core and @actions/github, as GitHub checks an action against the toolkit's contract. Beside
// release-flow.integration.test.ts, which runs the committed bundle as the runner does. The tool is started as a developer
// starts it, through scripts/local-action.mjs, with no pnpm on PATH (the tool alone needs one: see the script).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { readActionInputs } from "./local-runner.js";
import { runnerInputEnv } from "./runner-inputs.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const ACTION_DIR = fileURLToPath(new URL("..", import.meta.url));
const LAUNCHER = join(ACTION_DIR, "scripts", "local-action.mjs");
/** The step's PATH: node and the system's commands (sh for the script's pnpm stand-in), and no pnpm. */
const PATH_WITHOUT_PNPM = [...new Set([dirname(process.execPath), "/usr/bin", "/bin"])];

let emulator: Emulator;
let work: string;
let commits: string[];

beforeAll(async () => {
  emulator = await startEmulator();
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
  work = tempDir("shiplog-local-action-");
  expect(PATH_WITHOUT_PNPM.filter((dir) => existsSync(join(dir, "pnpm")))).toEqual([]);
});
afterAll(async () => {
  await emulator.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs the action's sources with local-action through scripts/local-action.mjs, without pnpm on PATH; inputs get
 * action.yml's defaults evaluated as the runner would.
 */
async function localAction(inputs: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const github = {
    token: emulator.tokens.admin,
    env: { GITHUB_SHA: commits.at(-1)!, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: "acme/web" },
  };
  const env = { ...runnerInputEnv(await readActionInputs(), inputs, github), ...github.env, GITHUB_WORKSPACE: work };
  const dotenv = join(work, `run-${Date.now()}.env`);
  // dotenv's double quotes keep newlines (\n) of multi-line inputs.
  writeFileSync(
    dotenv,
    Object.entries(env)
      .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')}"`)
      .join("\n"),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LAUNCHER, dotenv],
      {
        cwd: work,
        encoding: "utf8",
        env: { PATH: PATH_WITHOUT_PNPM.join(":"), HOME: process.env.HOME ?? work },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout: `${stdout}${stderr}` }),
    );
  });
}

const writes = () =>
  emulator.requests
    .list()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.route}`);
const taggedCommit = (name: string) => {
  const repo = emulator.state.git.repository("acme", "web")!;
  return repo.tag(repo.ref(`refs/tags/${name}`)!)?.object;
};
const sha256 = (content: string) => createHash("sha256").update(content).digest("hex");

describe("@github/local-action runs the release flow", () => {
  it("v1.4.0 created with v1 and v1.4 moved, a checksums file giving three records; a re-run skips the tags", {
    timeout: 240_000,
  }, async () => {
    emulator.state.git.repository("acme", "web")!.createRef("refs/tags/v1", commits[0]!);
    emulator.state.git.repository("acme", "web")!.createRef("refs/tags/v1.4", commits[1]!);
    writeFileSync(join(work, "SHA256SUMS"), ["a.tgz", "b.zip", "c.json"].map((name) => `${sha256(name)}  ${name}`).join("\n"));
    const inputs = {
      tag: "v1.4.0",
      "derived-tags": "major-minor",
      "subject-checksums": join(work, "SHA256SUMS"),
      "registry-url": "https://releases.example/",
    };
    const first = await localAction(inputs);
    expect(first.stdout).not.toContain("::error");
    expect(first.code).toBe(0);
    for (const name of ["v1.4.0", "v1", "v1.4"]) expect(taggedCommit(name), name).toBe(commits.at(-1));
    expect(writes().filter((w) => w.includes("storage-record"))).toHaveLength(3);
    expect(writes().filter((w) => w.startsWith("PATCH"))).toHaveLength(2);

    emulator.requests.clear();
    const again = await localAction({
      tag: "v1.4.0",
      "derived-tags": "major-minor",
      "subject-name": "ghcr.io/acme/web",
      "subject-digest": `sha256:${sha256("image")}`,
    });
    expect(again.code).toBe(0);
    expect(writes()).toEqual(["POST /orgs/:org/artifacts/metadata/storage-record"]);
    expect(again.stdout).toContain("Skipped (already there) refs/tags/v1.4.0");
  });

  it("a bad value is refused naming the input, before anything is sent", { timeout: 120_000 }, async () => {
    emulator.requests.clear();
    const run = await localAction({ tag: "v2.0.0", "derived-tags": "minor" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("::error title=Invalid input: derived-tags must be one of none, major, major-minor::");
    expect(emulator.requests.list()).toEqual([]);
  });
});
