export { runCli, type RunCliOptions } from "./run-cli.js";
export { EXIT, EXIT_CODES_HELP, type ExitCode } from "./exit-codes.js";
export { UsageError } from "./cli-errors.js";
export type { CliIo } from "./output.js";
