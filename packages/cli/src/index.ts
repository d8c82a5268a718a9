// The CLI is a binary (`shiplog`, src/cli.ts). This surface runs it in-process: the command line in, an exit code out.
export { runCli, type RunCliOptions } from "./run-cli.js";
export { EXIT, type ExitCode } from "./exit-codes.js";
export type { CliIo } from "./output.js";
