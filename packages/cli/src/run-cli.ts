import { authCommand } from "./commands/auth.js";
import { completionCommand } from "./completion.js";
import type { Environment } from "./credentials.js";
import { eventsCommand } from "./commands/events.js";
import { importCommand } from "./commands/import.js";
import { notificationsCommand } from "./commands/notifications.js";
import { permissionsCommand } from "./commands/permissions.js";
import { recordsCommand } from "./commands/records.js";
import { tagCommand } from "./commands/tag.js";
import type { Command } from "commander";
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
    authCommand(ctx),
  ]) {
    root.addCommand(command);
  }
  root.addCommand(completionCommand(ctx, root));
  return runProgram(root, jsonFieldsApart(argv, root), ctx);
}

/** A list of JSON fields as `--json` takes them: `id,name`. */
const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * `--json` takes an optional field list, and commander would take the next word for it whatever it is
 * (`shiplog --json records storage ...`, `--json sha256:...`). The next word is the fields only when it reads as a
 * field list and names no command; otherwise `--json` stands alone (written `--json=` for commander).
 */
function jsonFieldsApart(argv: readonly string[], root: Command): string[] {
  const names = new Set<string>();
  const visit = (command: Command) => {
    for (const sub of command.commands) {
      names.add(sub.name());
      visit(sub);
    }
  };
  visit(root);
  return argv.map((word, i) => {
    if (word !== "--json") return word;
    const next = argv[i + 1];
    return next !== undefined && FIELD_LIST.test(next) && !names.has(next) ? word : "--json=";
  });
}
