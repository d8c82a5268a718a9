// `shiplog tag list|show|delete`: a repository's tags as the git references API holds them.
import { Command } from "commander";
import { NotFoundError, ServiceError, type GitRef, type GitTag } from "@shiplog/client";
import { ownerRepo } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import { repositoryScope } from "../connection.js";
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { countLine, limitOption } from "./common.js";

type Repository = { owner: string; repo: string };
const tagName = (ref: GitRef) => ref.ref.replace(/^refs\/tags\//, "");

export function tagListCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("list")
      .description("list a repository's tags, by name (annotated ones point at a tag object)")
      .argument("<owner/repo>", "the repository", ownerRepo)
      .option("--prefix <prefix>", "only tags whose name starts with this (v1.)")
      .addOption(limitOption("tags"))
      .action(async (repository: Repository, _options, command: Command) => {
        const options = ctx.options<{ prefix?: string; limit: number }>(command);
        const client = ctx.client(command, repositoryScope(repository));
        const refs = await client.git.listMatchingRefs({ ...repository, ref: `tags/${options.prefix ?? ""}` }, { signal: ctx.signal });
        const shown = refs.slice(0, options.limit);
        if (await ctx.printData(command, { data: shown, items: shown })) return;
        ctx.io.stdout(
          renderTable(
            ["tag", "type", "sha"],
            shown.map((r) => [tagName(r), r.object.type === "tag" ? "annotated" : `lightweight (${r.object.type})`, r.object.sha]),
          ),
        );
        ctx.io.stderr(countLine(shown.length, refs.length, "tag", `${repository.owner}/${repository.repo}`));
      }),
    "shiplog tag list acme/web --prefix v1.",
  );
}

export function tagShowCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("show")
      .description("show a tag: its reference and, when annotated, its tag object (message, tagger, what it tags)")
      .argument("<owner/repo>", "the repository", ownerRepo)
      .argument("<tag>", "the tag's name (v1.4.0)")
      .action(async (repository: Repository, name: string, _options, command: Command) => {
        const client = ctx.client(command, {
          ...repositoryScope(repository),
          subject: `tag ${name} in ${repository.owner}/${repository.repo}`,
        });
        const ref = await client.git.getRef({ ...repository, ref: `tags/${name}` }, { signal: ctx.signal });
        const tag: GitTag | undefined =
          ref.object.type === "tag"
            ? await client.git.getTag({ ...repository, tag_sha: ref.object.sha }, { signal: ctx.signal })
            : undefined;
        if (await ctx.printData(command, { data: { ref: ref.ref, object: ref.object, ...(tag && { tag }) } })) return;
        const lines = [
          ["ref", ref.ref],
          ["type", tag ? "annotated" : `lightweight (${ref.object.type})`],
          ...(tag
            ? [
                ["tag object", tag.sha],
                ["tags", `${tag.object.type} ${tag.object.sha}`],
                ["tagger", `${tag.tagger.name} <${tag.tagger.email}> ${tag.tagger.date}`],
                ["verified", tag.verification ? `${tag.verification.verified ? "yes" : "no"} (${tag.verification.reason})` : ""],
                ["message", tag.message.trimEnd()],
              ]
            : [["object", ref.object.sha]]),
        ];
        ctx.io.stdout(renderTable(["", ""], lines, { heading: false }));
      }),
    "shiplog tag show acme/web v1.4.0",
  );
}

export function tagDeleteCommand(ctx: CommandContext): Command {
  return withExamples(
    new Command("delete")
      .description("delete tags (their references; a tag object stays until git collects it); needs --yes")
      .argument("<owner/repo>", "the repository", ownerRepo)
      .argument("<tag...>", "the tags' names")
      .option("--yes", "delete without asking: there is no undo")
      .option("--missing-ok", "a tag that does not exist is not an error")
      .action(async (repository: Repository, names: string[], _options, command: Command) => {
        const options = ctx.options<{ yes?: boolean; missingOk?: boolean }>(command);
        if (!options.yes)
          throw new UsageError(`--yes is required: deleting ${names.map((n) => `refs/tags/${n}`).join(", ")} cannot be undone`);
        const client = ctx.client(command, repositoryScope(repository));
        const results: { tag: string; ref: string; outcome: "deleted" | "missing" }[] = [];
        for (const name of names) {
          // A 404 is about this tag, not the repository.
          if (ctx.connection)
            ctx.connection = {
              ...ctx.connection,
              scope: { org: repository.owner, subject: `tag ${name} in ${repository.owner}/${repository.repo}` },
            };
          try {
            await client.git.deleteRef({ ...repository, ref: `tags/${name}` }, { signal: ctx.signal });
            results.push({ tag: name, ref: `refs/tags/${name}`, outcome: "deleted" });
          } catch (error) {
            // The service answers 422 "Reference does not exist" for a tag that is not there (404 for a repository).
            const missing =
              error instanceof NotFoundError ||
              (error instanceof ServiceError && error.status === 422 && /does not exist/i.test(error.serviceMessage));
            if (!missing) throw error;
            if (!options.missingOk) throw error;
            results.push({ tag: name, ref: `refs/tags/${name}`, outcome: "missing" });
          }
        }
        if (await ctx.printData(command, { data: results, items: results })) return;
        ctx.io.stdout(
          renderTable(
            ["tag", "outcome"],
            results.map((r) => [r.ref, r.outcome]),
          ),
        );
      }),
    "shiplog tag delete acme/web v1.4.0-rc.1 --yes",
  );
}
