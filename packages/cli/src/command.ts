import { ShiplogError } from "@shiplog/client";
/** Where a command writes; a test or an embedding program can capture it. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** One `shiplog` command: a module under `commands/` registers itself by exporting one of these. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full help text, shown by `shiplog <command> --help` and after usage errors. */
  help: string;
  /** Runs with the arguments after the command name; resolves to the process exit code. */
  run(args: readonly string[], io: CliIo): number | Promise<number>;
}

/** Exit codes, after sysexits(3) where one fits. */
export const EXIT = {
  ok: 0,
  failure: 1,
  /** The answer is "not covered" (for example a path the permission matrix does not know). */
  notCovered: 2,
  /** The command line was wrong (EX_USAGE). */
  usage: 64,
} as const;

/** Thrown by a command for bad usage; the runner prints the message and the command's help. */
export class UsageError extends ShiplogError {
  constructor(message: string) {
    super("usage", message);
  }
}
