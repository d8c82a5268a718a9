// Runs the built `shiplog` as a user runs it: a child process with only the environment given (and PATH).
import { fileURLToPath } from "node:url";
import { runProcess, type Run } from "../../../test/kit/process.js";

export type { Run } from "../../../test/kit/process.js";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/** Runs `shiplog args` to its end; the emulator may run in this process, so the child runs asynchronously. */
export function runCli(args: readonly string[], env: Record<string, string | undefined>): Promise<Run> {
  return runProcess(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
}
