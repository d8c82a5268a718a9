// The bundled action, run as the runner runs it, on what a subject-path may match besides regular files, on file
// system errors, on a missing GITHUB_OUTPUT file and on a server that echoes the token. Every run is bounded: a hang
// is killed and fails the test.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { runBundledAction, type LocalRunResult } from "./local-runner.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const BOUND_MS = 20_000;
const REGISTRY = { "registry-url": "https://registry.example/" };
let emulator: Emulator;
let workspace: string;
let head: string;
let socketServer: Server;

beforeAll(async () => {
  emulator = await startEmulator();
  head = emulator.state.git.repository("acme", "web")!.head()!;
  workspace = tempDir("shiplog-files-");
  mkdirSync(join(workspace, "out"));
  writeFileSync(join(workspace, "out", "app.tgz"), "app");
  execFileSync("mkfifo", [join(workspace, "out", "pipe.tgz")]);
  mkdirSync(join(workspace, "loop"));
  symlinkSync("b.tgz", join(workspace, "loop", "a.tgz"));
  symlinkSync("a.tgz", join(workspace, "loop", "b.tgz"));
  mkdirSync(join(workspace, "sock"));
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(join(workspace, "sock", "daemon.tgz"), resolve));
});
afterAll(async () => {
  await new Promise((resolve) => socketServer.close(resolve));
  await emulator.stop();
  rmSync(workspace, { recursive: true, force: true });
});

function run(inputs: Record<string, string>, env: Record<string, string> = {}, token = emulator.tokens.admin!): Promise<LocalRunResult> {
  return runBundledAction({
    inputs,
    jobToken: token,
    env: { GITHUB_SHA: head, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url, ...env },
    cwd: workspace,
    timeoutMs: BOUND_MS,
  });
}

/** The run ended by itself, failed with one annotation on subject-path naming `file`, and sent nothing. */
function expectSubjectPathRefusal(result: LocalRunResult, words: string, file: RegExp) {
  expect(result.timedOut).toBe(false);
  expect(result.exitCode).toBe(1);
  expect(result.stdout).not.toContain("shiplog action crashed");
  expect(result.annotations).toEqual([expect.objectContaining({ level: "error", title: `Invalid input: subject-path ${words}` })]);
  expect(result.annotations[0]!.message).toMatch(/^subject-path: /);
  expect(result.annotations[0]!.message).toMatch(file);
  expect(emulator.requests.list().filter((r) => r.method !== "GET")).toEqual([]);
}

describe("subject-path: only regular files are hashed", () => {
  it("a FIFO is refused by name, without waiting for a writer", async () => {
    emulator.requests.clear();
    const result = await run({ ...REGISTRY, "subject-path": "out/*.tgz" });
    expectSubjectPathRefusal(result, "must match regular files only", /out\/pipe\.tgz is a named pipe \(FIFO\), not a regular file/);
  });

  it("a character device outside the workspace is refused by name, before any walk", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "/dev/null" });
    expectSubjectPathRefusal(result, "must match files inside the workspace", /\/dev\/null is outside the workspace/);
  });

  it("a socket is refused by name", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "sock/*" });
    expectSubjectPathRefusal(result, "must match regular files only", /sock\/daemon\.tgz is a socket/);
  });
});

describe("subject-path: file system errors name the input and the file", () => {
  it("a symbolic link loop", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "loop/a.tgz" });
    expectSubjectPathRefusal(result, "must match readable files", /loop\/a\.tgz is a loop of symbolic links \(ELOOP\)/);
  });

  it("a file outside the workspace (one that cannot be read, as root too) is not even opened", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "/proc/self/mem" });
    expectSubjectPathRefusal(
      result,
      "must match files inside the workspace",
      /\/proc\/self\/mem leads to \/proc\/\d+\/mem, outside the workspace/,
    );
  });

  it("a ../ pattern", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "../elsewhere/*.tgz" });
    expectSubjectPathRefusal(
      result,
      "must be valid glob patterns",
      /pattern "\.\.\/elsewhere\/\*\.tgz" is not allowed: '\.' and '\.\.' segments are not allowed/,
    );
  });

  it("a regular file still works beside them", async () => {
    const result = await run({ ...REGISTRY, "subject-path": "out/app.tgz", "dry-run": "true" });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.outputs["storage-records"]!)).toEqual([expect.objectContaining({ name: "app.tgz" })]);
  });
});

describe("outputs and summary", () => {
  it("a missing GITHUB_OUTPUT file is a warning after the work is done; the summary is still written", async () => {
    const result = await run({ tag: "v-missing-output" }, { GITHUB_OUTPUT: join(workspace, "no-such-dir", "output") });
    expect(result.exitCode).toBe(0);
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/tags/v-missing-output")).toBeDefined();
    expect(result.annotations).toEqual([
      {
        level: "warning",
        title: "Outputs not written",
        message: expect.stringContaining(`GITHUB_OUTPUT: "${join(workspace, "no-such-dir", "output")}" does not exist`),
      },
    ]);
    expect(result.summary).toContain("refs/tags/v-missing-output");
  });

  it("outputs are written before the summary: a missing summary file leaves the outputs in place", async () => {
    const result = await run({ tag: "v-missing-summary" }, { GITHUB_STEP_SUMMARY: join(workspace, "no-such-dir", "summary") });
    expect(result.exitCode).toBe(0);
    expect(result.outputs["tag-outcome"]).toBe("created");
    expect(result.annotations).toEqual([expect.objectContaining({ level: "warning", title: "Summary not written" })]);
  });
});

describe("a server that echoes the token", () => {
  let echo: HttpServer;
  let echoUrl: string;
  beforeAll(async () => {
    // A proxy-like page for one route, a JSON echo for the other: both quote the Authorization header.
    echo = createHttpServer((req, res) => {
      if (req.url?.includes("/git/")) {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: `Resource not accessible with ${req.headers.authorization}` }));
      } else {
        res.writeHead(404, { "content-type": "text/html" });
        res.end(`<html><body>Not here.<pre>authorization: ${req.headers.authorization}</pre></body></html>`);
      }
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => echo.close(resolve)));

  it("keeps it out of annotations, the summary, outputs and the log (but the mask command)", async () => {
    const token = "ghs_EchoedByTheServer0123456789abcdefXYZ";
    const result = await run(
      { ...REGISTRY, tag: "v-echo", "subject-digest": `sha256:${"b".repeat(64)}`, "subject-name": "app" },
      { GITHUB_API_URL: echoUrl },
      token,
    );
    expect(result.exitCode).toBe(1);
    expect(result.annotations.map((a) => a.title).sort()).toEqual(["Not found", "Permission missing"]);
    expect(result.annotations.find((a) => a.title === "Permission missing")!.message).toContain("Bearer [redacted]");
    expect(result.masked).toEqual([token]);
    expect(result.stdout.split(token)).toHaveLength(2);
    expect(result.summary).not.toContain(token);
    expect(result.summary).toContain("Permission missing");
    expect(JSON.stringify(result.annotations)).not.toContain(token.slice(4, 20));
    expect(result.stderr).not.toContain(token);
  });
});
