import { Command } from "commander";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AbortedError, NotFoundError, describeImport, type ImportUpdate, type ShiplogClient } from "@shiplog/client";
import { ownerRepo, positiveInteger } from "../arguments.js";
import { repositoryScope } from "../connection.js";
import { renderTable, StreamColumns } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";

const percent = (value: number | undefined) => (value === undefined ? "" : `${value}%`);
const updateRow = (u: ImportUpdate) => [
  u.status,
  u.phase,
  percent(u.progress.percent),
  percent(u.progress.push_percent),
  u.progress.commit_count,
  u.import.vcs_url,
  u.nextStep?.message ?? "",
];
const HEAD = ["status", "phase", "import", "push", "commits", "from", "next step"];
/** A line per change: status, phase, the import and push percentages, commits, and the next step if any. */
const updateCells = (u: ImportUpdate) => {
  const { percent: imported, push_percent: pushed, commit_count: commits } = u.progress;
  return [
    u.status,
    u.phase,
    imported === undefined ? "" : `import ${imported}%`,
    pushed === undefined ? "" : `push ${pushed}%`,
    commits === undefined ? "" : `${commits} commits`,
    u.nextStep ? `next: ${u.nextStep.message}` : "",
  ];
};

/**
 * The retired API's deprecation (the client emits it once a process), as one `warning:` line on stderr, not Node's
 * format, and once only, not on every run: a marker under $XDG_STATE_HOME/shiplog (else ~/.local/state/shiplog)
 * remembers it was said. Without either variable there is nowhere to remember, and it is said each time.
 */
function sayRetired(ctx: CommandContext): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error) => {
    const base = ctx.env.XDG_STATE_HOME || (ctx.env.HOME ? join(ctx.env.HOME, ".local", "state") : undefined);
    const marker = base && join(base, "shiplog", "source-imports-retired-warned");
    if (marker && existsSync(marker)) return;
    ctx.io.stderr(`warning: ${warning.message}\n`);
    if (!marker) return;
    try {
      mkdirSync(dirname(marker), { recursive: true });
      writeFileSync(marker, `${warning.message}\n`);
    } catch {
      // Nowhere to remember: it is said again next time.
    }
  });
}

/**
 * A 404 on a repository's import means no import or no repository: which one is told by reading the repository's
 * branches (a read of the same repository through the git references API).
 */
async function noImport(client: ShiplogClient, repository: { owner: string; repo: string }, error: NotFoundError, signal: AbortSignal) {
  try {
    await client.git.listMatchingRefs({ ...repository, ref: "heads/" }, { signal });
  } catch {
    return error;
  }
  const where = `${repository.owner}/${repository.repo}`;
  return new NotFoundError({ ...errorDetails(error), serviceMessage: `${where} has no source import (the repository exists)` });
}

function errorDetails(error: NotFoundError) {
  return {
    status: error.status,
    method: error.method,
    route: error.route,
    serviceMessage: error.serviceMessage,
    acceptedPermissions: [],
  };
}

export function importCommand(ctx: CommandContext): Command {
  const imports = withExamples(
    new Command("import").description("source imports (retired by the service on 2024-04-12; read-only use)"),
    "shiplog import status acme/legacy",
  );

  imports.addCommand(
    withExamples(
      new Command("status")
        .description("show a repository's source import")
        .argument("<owner/repo>", "the repository", ownerRepo)
        .action(async (repository: { owner: string; repo: string }, _options, command: Command) => {
          sayRetired(ctx);
          const client = ctx.client(command, repositoryScope(repository));
          let status: Awaited<ReturnType<typeof client.imports.getImportStatus>>;
          try {
            status = await client.imports.getImportStatus(repository, { signal: ctx.signal });
          } catch (error) {
            if (!(error instanceof NotFoundError)) throw error;
            const found = await noImport(client, repository, error, ctx.signal);
            // The repository is there: the 404 is about the import, which the message says; no "may not exist" hint.
            if (found !== error) ctx.connection = { credentials: ctx.connection?.credentials ?? "none", scope: {} };
            throw found;
          }
          const update = describeImport(status);
          if (await ctx.printData(command, { data: update })) return;
          ctx.io.stdout(renderTable(HEAD, [updateRow(update)]));
        }),
      "shiplog import status acme/legacy",
    ),
  );

  imports.addCommand(
    withExamples(
      new Command("follow")
        .description("follow a source import until it completes or needs you, printing each change once")
        .argument("<owner/repo>", "the repository", ownerRepo)
        .option("--interval <seconds>", "seconds between polls", positiveInteger, 5)
        .action(async (repository: { owner: string; repo: string }, _options, command: Command) => {
          sayRetired(ctx);
          const options = ctx.options<{ interval: number }>(command);
          // The status (auth_failed), the phase, "import 100%", "push 100%", the commits.
          const columns = new StreamColumns([11, 8, 11, 9, 11]);
          const structured = ctx.itemFormat(command);
          try {
            const client = ctx.client(command, repositoryScope(repository));
            for await (const update of client.imports.follow(repository, { signal: ctx.signal, intervalMs: options.interval * 1000 })) {
              ctx.io.stdout(structured ? await structured(update) : columns.line(updateCells(update)));
              if (update.phase === "problem") ctx.exitCode = 1;
            }
          } catch (error) {
            if (!(error instanceof AbortedError && ctx.signal.aborted)) throw error;
          }
        }),
      "shiplog import follow acme/legacy --interval 2",
    ),
  );
  return imports;
}
