import { createRequire } from "node:module";
import { COMMANDS } from "./commands.js";
import { EXIT, UsageError, type CliIo, type Command } from "./command.js";

function version(): string {
  const pkg = createRequire(import.meta.url)("../package.json") as { version?: string };
  return pkg.version ?? "unknown";
}

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const list = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n");
  return `Usage: shiplog <command> [arguments] [--json]

Commands:
${list}

Options:
  -h, --help     show help (also: shiplog <command> --help)
  -V, --version  print the version

Exit codes: 0 success, 1 failure, 2 not covered / not found, 64 bad usage.`;
}

/** Runs the `shiplog` command line with `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr(`${mainHelp()}\n`);
    return EXIT.usage;
  }
  if (first === "-h" || first === "--help") {
    io.stdout(`${mainHelp()}\n`);
    return EXIT.ok;
  }
  if (first === "-V" || first === "--version") {
    io.stdout(`${version()}\n`);
    return EXIT.ok;
  }
  if (first === "help") {
    const topic = rest[0] === undefined ? undefined : COMMANDS.find((c) => c.name === rest[0]);
    if (rest[0] !== undefined && !topic) {
      io.stderr(`shiplog: unknown command ${JSON.stringify(rest[0])}\n\n${mainHelp()}\n`);
      return EXIT.usage;
    }
    io.stdout(`${topic ? topic.help : mainHelp()}\n`);
    return EXIT.ok;
  }
  const command: Command | undefined = COMMANDS.find((c) => c.name === first);
  if (!command) {
    io.stderr(`shiplog: unknown command ${JSON.stringify(first)}\n\n${mainHelp()}\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`shiplog ${command.name}: ${error.message}\n\n${command.help}\n`);
      return EXIT.usage;
    }
    io.stderr(`shiplog ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failure;
  }
}
