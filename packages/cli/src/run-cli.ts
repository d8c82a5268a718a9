import { completionCommand } from "./completion.js";
import type { Environment } from "./credentials.js";
import { eventsCommand } from "./commands/events.js";
import { importCommand } from "./commands/import.js";
import { notificationsCommand } from "./commands/notifications.js";
import { permissionsCommand } from "./commands/permissions.js";
import { recordsCommand } from "./commands/records.js";
import { tagCommand } from "./commands/tag.js";
import type { CliIo } from "./output.js";
import { commandContext, rootCommand, runProgram } from "./program.js";

export interface RunCliOptions {
  /** Default: process.env. */
  env?: Environment;
  /** Aborted on Ctrl-C: the tails stop cleanly. */
  signal?: AbortSignal;
}

/** Runs the `shiplog` command line with `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, options: RunCliOptions = {}): Promise<number> {
  const ctx = commandContext(io, options.env ?? process.env, options.signal ?? new AbortController().signal);
  const root = rootCommand();
  for (const command of [
    recordsCommand(ctx),
    tagCommand(ctx),
    eventsCommand(ctx),
    notificationsCommand(ctx),
    importCommand(ctx),
    permissionsCommand(ctx),
  ]) {
    root.addCommand(command);
  }
  root.addCommand(completionCommand(ctx, root));
  return runProgram(root, argv, ctx);
}
