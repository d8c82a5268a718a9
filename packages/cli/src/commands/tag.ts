import { Command, Option } from "commander";
import {
  DERIVED_TAGS,
  IF_TAG_EXISTS,
  TAGGABLE_OBJECT_TYPES,
  createReleaseTags,
  derivedTagNames,
  releaseTags,
  type DerivedTags,
  type IfTagExists,
  type ReleaseTag,
  type TaggableObjectType,
} from "@shiplog/client";
import { createTagParams, tagger as taggerSchema, toFieldIssues } from "@shiplog/client/schemas";
import { ownerRepo } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import { repositoryScope } from "../connection.js";
import { EXIT } from "../exit-codes.js";
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { tagDeleteCommand, tagListCommand, tagShowCommand } from "./tag-refs.js";

interface TagOptions {
  object: string;
  type: TaggableObjectType;
  message?: string;
  ifExists: IfTagExists;
  derivedTags: DerivedTags;
  taggerName?: string;
  taggerEmail?: string;
  taggerDate?: string;
}

/** `shiplog tag create`: annotated tags with the action's rules (several names, floating tags, skip/fail/update). */
export function tagCommand(ctx: CommandContext): Command {
  const tag = withExamples(
    new Command("tag").description("git tags: annotated ones created with the action's rules, listed, shown, deleted"),
    "shiplog tag create acme/web v1.4.0 --object <sha>",
  );
  tag.addCommand(
    withExamples(
      new Command("create")
        .description("create annotated tags (tag object, then refs/tags/<tag>), as the action does; a re-run is skipped")
        .argument("<owner/repo>", "the repository", ownerRepo)
        .argument("<tag...>", "tag names (v1.4.0 ...), valid under git check-ref-format")
        .requiredOption("--object <sha>", "the object to tag (40 or 64 hex digits: a SHA-1 or SHA-256 object id)")
        .addOption(new Option("--type <type>", "type of the object").choices(TAGGABLE_OBJECT_TYPES).default("commit"))
        .option("--message <text>", "the tag message (default: each tag's name)")
        .addOption(
          new Option("--if-exists <what>", "when a tag exists: skip (if it matches), fail, or update (move it)")
            .choices(IF_TAG_EXISTS)
            .default("skip"),
        )
        .addOption(
          new Option("--derived-tags <which>", "also move floating tags: v1.4.0 moves v1 (major) or v1 and v1.4 (major-minor)")
            .choices(DERIVED_TAGS)
            .default("none"),
        )
        .option("--tagger-name <name>", "the tagger's name (with --tagger-email; default: the token's identity)")
        .option("--tagger-email <email>", "the tagger's email")
        .option("--tagger-date <iso8601>", "when the tag was made (default: now)")
        .action(async (repository: { owner: string; repo: string }, names: string[], _options, command: Command) => {
          const options = ctx.options<TagOptions>(command);
          const tagger = taggerOf(options);
          // The client checks every field (sha, names, tagger) before sending; a bad one is a usage error here.
          for (const name of names) checkTag(repository, name, options.object, options.type);
          const tags = planTags(names, options);
          const results = await createReleaseTags(
            ctx.client(command, repositoryScope(repository)).git,
            {
              ...repository,
              tags,
              object: options.object,
              type: options.type,
              ...(options.message !== undefined && { message: options.message }),
              ...(tagger && { tagger }),
            },
            { signal: ctx.signal },
          );
          const failed = results.find((r) => r.outcome === "failed");
          const answer = results.map((r) => ({
            tag: r.tag,
            ref: `refs/tags/${r.tag}`,
            outcome: r.outcome,
            ...(r.derivedFrom && { derived_from: r.derivedFrom }),
            ...("result" in r && { sha: r.result.tag.sha, object: r.result.tag.object }),
            ...("error" in r && { error: r.error instanceof Error ? r.error.message : String(r.error) }),
          }));
          if (await ctx.printData(command, { data: answer, items: answer })) {
            // printed
          } else if (results.some((r) => r.outcome !== "failed" && r.outcome !== "not-attempted")) {
            // A table only when something was made or found: a lone failure is the error line below.
            const rows = results.map((r) => [
              `refs/tags/${r.tag}`,
              r.outcome,
              "result" in r ? r.result.tag.sha.slice(0, 12) : "",
              "result" in r ? `${r.result.tag.object.type} ${r.result.tag.object.sha.slice(0, 12)}` : "",
              r.derivedFrom ? `from ${r.derivedFrom}` : "",
            ]);
            ctx.io.stdout(renderTable(["tag", "outcome", "tag object", "object", "derived"], rows));
          }
          if (failed && "error" in failed) throw failed.error;
          ctx.exitCode = EXIT.ok;
        }),
      "shiplog tag create acme/web v1.4.0 --object 2c26b46b68ffc68ff99b453c1d30413413422d70 --derived-tags major-minor",
    ),
  );
  tag.addCommand(tagListCommand(ctx));
  tag.addCommand(tagShowCommand(ctx));
  tag.addCommand(tagDeleteCommand(ctx));
  return tag;
}

/** The tags to make, by the action's rules: floating tags need a release version to follow. */
function planTags(names: string[], options: TagOptions): ReleaseTag[] {
  const { derivedTags, ifExists } = options;
  if (derivedTags !== "none" && !names.some((name) => derivedTagNames(name, derivedTags).length > 0)) {
    const why = "no tag is a release version such as v1.4.0 (pre-releases never move floating tags)";
    throw new UsageError(`--derived-tags ${derivedTags}: ${why}`);
  }
  try {
    return releaseTags(names, derivedTags, ifExists);
  } catch (error) {
    throw new UsageError(`--derived-tags: ${(error as Error).message}`);
  }
}

/** What the client would refuse before sending, as a usage error naming the option or the tag. */
function checkTag(repository: { owner: string; repo: string }, name: string, object: string, type: TaggableObjectType): void {
  const checked = createTagParams.safeParse({ ...repository, tag: name, message: "m", object, type });
  if (checked.success) return;
  const issue = toFieldIssues(checked.error)[0]!;
  const what = issue.field === "tag" ? `tag ${JSON.stringify(name)}` : issue.field === "object" ? "--object" : issue.field;
  throw new UsageError(`${what}: ${issue.message}`);
}

function taggerOf(options: TagOptions) {
  const { taggerName: name, taggerEmail: email, taggerDate: date } = options;
  if (name === undefined && email === undefined) {
    if (date !== undefined) throw new UsageError("--tagger-date needs --tagger-name and --tagger-email");
    return undefined;
  }
  if (name === undefined || email === undefined)
    throw new UsageError(
      `--${name === undefined ? "tagger-name" : "tagger-email"} is required with --${name === undefined ? "tagger-email" : "tagger-name"}`,
    );
  const checked = taggerSchema.safeParse({ name, email, ...(date !== undefined && { date }) });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(`--tagger-${String(issue.path[0] ?? "name")}: ${issue.message}`);
  }
  return checked.data;
}
