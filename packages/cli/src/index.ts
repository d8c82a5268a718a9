export { runCli } from "./run-cli.js";
export { EXIT, UsageError, type CliIo, type Command } from "./command.js";
export { COMMANDS } from "./commands.js";
