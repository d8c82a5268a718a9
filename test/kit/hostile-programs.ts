// The three programs that read files a user names, run as a user runs them, for the secret sweep and the
// hostile-file table: the controller (dist/main.js), the CLI (dist/cli.js) and the action's committed bundle. Each
// run is bounded (a hang is killed and reported as such); `withoutRootRead` runs it without root's power to read any file
// (for a mode-000 file root could read anyway).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBundledAction } from "../../packages/action/test/local-runner.js";
import { CONTROLLER_MAIN } from "./controller-process.js";
import { runProcess } from "./process.js";
import { tempDir } from "./temp-dir.js";

export const CLI_MAIN = fileURLToPath(new URL("../../packages/cli/dist/cli.js", import.meta.url));

/** Past this a run counts as a hang. */
export const HANG_MS = 30_000;

/**
 * Runs without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (root reads a mode-000 file anyway), staying root otherwise:
 * a checkout in a mode-700 folder (mktemp -d) stays readable, as it would not be to `nobody`.
 */
const WITHOUT_ROOT_READ = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"];

/** What one run printed and how it ended. */
export interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed at HANG_MS. */
  hung: boolean;
}

export interface RunOptions {
  withoutRootRead?: boolean;
}

async function run(args: string[], env: Record<string, string>, options: RunOptions): Promise<ProgramRun> {
  const [file, ...rest] = options.withoutRootRead ? [...WITHOUT_ROOT_READ, process.execPath, ...args] : [process.execPath, ...args];
  const result = await runProcess(file!, rest, {
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", ...env },
    timeoutMs: HANG_MS,
  });
  return { ...result, hung: result.code === null };
}

/** The controller with the settings that pass (the loopback service, a cluster at 127.0.0.1:1), `env` on top. */
export function runController(env: Record<string, string>, options: RunOptions = {}): Promise<ProgramRun> {
  return run(
    [CONTROLLER_MAIN],
    {
      SHIPLOG_API_URL: "http://127.0.0.1:1",
      SHIPLOG_ORG: "acme",
      SHIPLOG_CLUSTER: "c",
      SHIPLOG_LOGICAL_ENVIRONMENT: "production",
      SHIPLOG_HTTP_HOST: "127.0.0.1",
      SHIPLOG_HTTP_PORT: "0",
      SHIPLOG_LOG_LEVEL: "silent",
      ...env,
    },
    options,
  );
}

/** `shiplog args` against a loopback URL nothing answers (every run here fails before a call). */
export function runShiplog(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<ProgramRun> {
  return run([CLI_MAIN, ...args], { SHIPLOG_API_URL: "http://127.0.0.1:1", ...env }, options);
}

/** The action's bundle in `workspace` as the runner starts it; `env` may replace GITHUB_OUTPUT / GITHUB_STEP_SUMMARY. */
export async function runAction(
  workspace: string,
  inputs: Record<string, string>,
  env: Record<string, string>,
  token: string,
  options: RunOptions = {},
): Promise<ProgramRun & { annotations: { level: string; title?: string; message: string }[] }> {
  const result = await runBundledAction({
    inputs,
    jobToken: token,
    env: {
      GITHUB_SHA: "a".repeat(40),
      GITHUB_REPOSITORY: "acme/web",
      GITHUB_API_URL: "http://127.0.0.1:1",
      GITHUB_WORKSPACE: workspace,
      ...env,
    },
    cwd: workspace,
    timeoutMs: HANG_MS,
    ...(options.withoutRootRead && { wrapper: WITHOUT_ROOT_READ }),
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr, hung: result.timedOut, annotations: result.annotations };
}

/** The hostile files, made once in a directory every user can reach. */
export interface HostileFiles {
  dir: string;
  fifo: string;
  directory: string;
  /** A symbolic link leading out of `dir` (to /dev/zero). */
  linkOut: string;
  /** A sparse file of `bytes` bytes beginning with `content`. */
  oversized(name: string, bytes: number, content?: string): string;
  /** A file holding `content`, mode 000 (unreadable but to root). */
  unreadable(name: string, content: string): string;
  /** A file holding `content`. */
  file(name: string, content: string): string;
}

export function hostileFiles(prefix: string): HostileFiles {
  const dir = tempDir(prefix);
  chmodSync(dir, 0o755);
  const fifo = join(dir, "fifo");
  execFileSync("mkfifo", ["-m", "666", fifo]);
  const directory = join(dir, "directory");
  mkdirSync(directory);
  const linkOut = join(dir, "link-out");
  symlinkSync("/dev/zero", linkOut);
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o644 });
    return path;
  };
  return {
    dir,
    fifo,
    directory,
    linkOut,
    file,
    oversized(name, bytes, content = "") {
      const path = file(name, content);
      truncateSync(path, bytes);
      return path;
    },
    unreadable(name, content) {
      const path = file(name, content);
      chmodSync(path, 0o000);
      return path;
    },
  };
}

/** The first line of what a program answered: its stderr, else its first error or warning annotation. */
export function answerOf(result: ProgramRun & { annotations?: { level: string; title?: string; message: string }[] }): string {
  if (result.hung) return "(hung: killed)";
  const annotation = result.annotations?.find((a) => a.level === "error" || a.level === "warning");
  if (annotation) return `${annotation.title ? `[${annotation.title}] ` : ""}${annotation.message}`;
  return result.stderr.trim().split("\n")[0] ?? "";
}

/** Shortens a cell for a printed table. */
export const cell = (text: string, width = 150) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);
