import { Command } from "commander";
import { AbortedError, describeImport, type ImportUpdate } from "@shiplog/client";
import { ownerRepo, positiveInteger } from "../arguments.js";
import { repositoryScope } from "../connection.js";
import { json, jsonLine, renderTable, StreamColumns } from "../output.js";
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

/** The retired API's deprecation (the client emits it once), as one `warning:` line on stderr, not Node's format. */
function sayRetired(ctx: CommandContext): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error) => ctx.io.stderr(`warning: ${warning.message}\n`));
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
          const options = ctx.options(command);
          const client = ctx.client(command, repositoryScope(repository));
          const update = describeImport(await client.imports.getImportStatus(repository, { signal: ctx.signal }));
          if (options.json) return ctx.io.stdout(json(update));
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
          try {
            const client = ctx.client(command, repositoryScope(repository));
            for await (const update of client.imports.follow(repository, { signal: ctx.signal, intervalMs: options.interval * 1000 })) {
              ctx.io.stdout(options.json ? jsonLine(update) : columns.line(updateCells(update)));
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
