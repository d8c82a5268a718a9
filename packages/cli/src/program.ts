import { createRequire } from "node:module";
import { CREDENTIAL_SETTINGS as C } from "@shiplog/client/internal";
import { Command, CommanderError, Option } from "commander";
import { UsageError, exitCodeOf, oneLine, type FailureContext } from "./cli-errors.js";
import { connect, type CommandScope, type ConnectionOptions } from "./connection.js";
import type { Environment } from "./credentials.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import {
  OUTPUT_FORMATS,
  checkOutputOptions,
  formatData,
  itemFormatter,
  outputFormat,
  type OutputOptions,
  type Printable,
} from "./format.js";
import type { CliIo } from "./output.js";
import { PartialClusterWriteError, type ShiplogClient, type TransportHooks } from "@shiplog/client";

/** What every command's action gets: where to write, the environment, and how to reach the service. */
export interface CommandContext {
  io: CliIo;
  env: Environment;
  /** Aborts on Ctrl-C (SIGINT): tails stop cleanly. */
  signal: AbortSignal;
  /** The global options merged with the command's own. */
  options<T>(command: Command): T & GlobalOptions;
  /**
   * A client for `--api-url` with the token or the App's credentials. `scope` is what the command names: the App's
   * installation is found from its organization, and a 404 says what may not exist.
   */
  client(command: Command, scope?: CommandScope, hooks?: TransportHooks): ShiplogClient;
  /** What the last client was made for: how it authenticates, and the command's scope (for error messages). */
  connection: FailureContext | undefined;
  /** The exit code when the action returns normally (a command may set a non-zero one, as permissions does). */
  exitCode: number;
  /**
   * Prints the answer as --json [fields], -o yaml or --query ask and resolves to true; resolves to false (nothing
   * printed) when the table is wanted.
   */
  printData(command: Command, printable: Printable): Promise<boolean>;
  /** For a tail: how to print each item when a structured format is asked for; undefined for the table. */
  itemFormat(command: Command): ((item: unknown) => Promise<string>) | undefined;
}

export interface GlobalOptions extends ConnectionOptions, OutputOptions {}

export const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Adds the example and the exit codes to a command's --help. */
export function withExamples(command: Command, ...examples: string[]): Command {
  return command.addHelpText(
    "after",
    `\nExample${examples.length > 1 ? "s" : ""}:\n${examples.map((e) => `  ${e}`).join("\n")}\n\n${EXIT_CODES_HELP}`,
  );
}

/** The name a command is called by, from the root (`shiplog records storage`). */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** The root command with the global options; each command module adds its commands to it. */
export function rootCommand(): Command {
  return new Command("shiplog")
    .description("Look at and record where software artifacts are stored and running, from a terminal.")
    .version(VERSION, "-V, --version")
    .addOption(new Option("--api-url <url>", "base URL of the service's REST API (default: SHIPLOG_API_URL, else the public service)"))
    .addOption(
      new Option(`--${C.tokenFile.flag} <path>`, `read the token from this file (default: ${C.tokenFile.env}, else SHIPLOG_TOKEN)`),
    )
    .addOption(
      new Option(`--${C.appId.flag} <id>`, `authenticate as this App's installation instead of with a token (default: ${C.appId.env})`),
    )
    .addOption(
      new Option(`--${C.appPrivateKeyFile.flag} <path>`, `the App's private key, a PEM file (default: ${C.appPrivateKeyFile.env})`),
    )
    .addOption(
      new Option(
        `--${C.appInstallationId.flag} <id>`,
        `the App's installation (default: ${C.appInstallationId.env}, else found from the organization)`,
      ),
    )
    .option("--json [fields]", "print JSON instead of tables (one document per line for tails); with fields (id,name), only those")
    .addOption(new Option("-o, --output <format>", "the output's format, table unless given").choices(OUTPUT_FORMATS))
    .option("-q, --query <expression>", "a JSONata expression over the JSON (https://jsonata.org), e.g. 'storage_records.name'")
    .showSuggestionAfterError(true)
    .addHelpText("after", `\n${CREDENTIALS_HELP}\n\n${EXIT_CODES_HELP}`);
}

/** How the credentials are given, for the root's --help. */
const CREDENTIALS_HELP = `Credentials, one of:
  a token     SHIPLOG_TOKEN, or a file: --token-file / SHIPLOG_TOKEN_FILE (never an option of its own)
  an App      --app-id and --app-private-key-file (or SHIPLOG_APP_ID and SHIPLOG_APP_PRIVATE_KEY_FILE); the
              installation is --app-installation-id, else the one on the organization the command names`;

/**
 * Makes every command report instead of exit: commander's own messages (an unknown option, a missing argument)
 * become one line naming the command, and --help / --version print through `io`.
 */
export function routeOutput(root: Command, io: CliIo, lastError: LastError): void {
  const visit = (command: Command) => {
    command.exitOverride();
    // A command's --help lists the global options too: --json and the credentials apply to it.
    if (command !== root) command.configureHelp({ showGlobalOptions: true });
    command.configureOutput({
      writeOut: (text) => io.stdout(text),
      // Commander writes a group's whole help to stderr when its command is missing (`shiplog records`): the run
      // says so in one line instead, as it does for the root.
      writeErr: (text) => {
        if (command.commands.length > 0) lastError.commandMissing = command;
        else io.stderr(text);
      },
      outputError: (text) => {
        lastError.command = commandPath(command);
        lastError.message = text.replace(/^error:\s*/, "").trim();
      },
    });
    command.commands.forEach(visit);
  };
  visit(root);
}

/** What commander reported before it threw: the message of its last error, or the group whose command was missing. */
interface LastError {
  command?: string;
  message?: string;
  commandMissing?: Command;
}

/** Builds the context commands run with. */
export function commandContext(io: CliIo, env: Environment, signal: AbortSignal): CommandContext {
  return {
    io,
    env,
    signal,
    options: <T>(command: Command) => command.optsWithGlobals<T & GlobalOptions>(),
    client(command: Command, scope: CommandScope = {}, hooks?: TransportHooks) {
      const options = command.optsWithGlobals<GlobalOptions>();
      const { client, credentials } = connect(options, env, `shiplog-cli/${VERSION}`, scope, commandPath(command), hooks);
      this.connection = { credentials, scope };
      return client;
    },
    connection: undefined,
    exitCode: EXIT.ok,
    async printData(command: Command, printable: Printable) {
      const options = command.optsWithGlobals<GlobalOptions>();
      if (outputFormat(options) === "table") return false;
      io.stdout(await formatData(options, printable));
      return true;
    },
    itemFormat: (command: Command) => itemFormatter(command.optsWithGlobals<GlobalOptions>()),
  };
}

/** Runs a built program: resolves to the exit code; every failure is one line on stderr. */
export async function runProgram(root: Command, argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  const lastError: LastError = {};
  routeOutput(root, io, lastError);
  let current = "shiplog";
  root.hook("preAction", (_, action) => {
    current = commandPath(action);
    // Two formats, or a query that does not compile: said before anything is sent.
    checkOutputOptions(action.optsWithGlobals<GlobalOptions>());
  });
  if (argv.length === 0) return commandMissing(root, io);
  try {
    await root.parseAsync([...argv], { from: "user" });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.help" && lastError.commandMissing) return commandMissing(lastError.commandMissing, io);
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return EXIT.ok;
      if (error.code === "commander.executeSubCommandAsync") return EXIT.ok;
      const where = lastError.command ?? "shiplog";
      const hint = where === "shiplog" && error.code === "commander.missingArgument" ? "" : ` (see ${where} --help)`;
      io.stderr(`${where}: ${(lastError.message ?? error.message).replace(/\n+/g, " ")}${hint}\n`);
      return EXIT.usage;
    }
    if (ctx.signal.aborted) {
      // Ctrl-C: what was done before it is said (a partial cluster write names it), nothing else.
      const partial = error instanceof PartialClusterWriteError ? `: ${oneLine(error, ctx.connection)}` : "";
      io.stderr(`${current}: interrupted${partial}\n`);
      return EXIT.interrupted;
    }
    const code = exitCodeOf(error);
    const hint = error instanceof UsageError ? ` (see ${current} --help)` : "";
    io.stderr(`${current}: ${oneLine(error, ctx.connection)}${hint}\n`);
    return code;
  }
}

/** `shiplog` or a group (`shiplog records`) without its command: one line naming the commands, exit 2. */
function commandMissing(group: Command, io: CliIo): number {
  const where = commandPath(group);
  const names = group.commands.map((c) => c.name()).filter((name) => name !== "help");
  io.stderr(`${where}: a command is needed: ${names.join(", ")} (see ${where} --help)\n`);
  return EXIT.usage;
}
