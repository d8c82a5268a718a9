// Runs the built `shiplog` as a user runs it: a child process with only the environment given (and PATH).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `shiplog args` to its end; the emulator may run in this process, so the child runs asynchronously. */
export function runCli(args: readonly string[], env: Record<string, string | undefined>): Promise<Run> {
  const childEnv = { PATH: process.env["PATH"] ?? "", ...env };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { encoding: "utf8", env: childEnv, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}
