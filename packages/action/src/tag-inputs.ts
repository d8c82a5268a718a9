import {
  DERIVED_TAGS,
  IF_TAG_EXISTS,
  derivedTagNames,
  releaseTags,
  type CreateTagParams,
  type DerivedTags,
  type ReleaseTag,
} from "@shiplog/client";
import { createTagParams, toFieldIssues } from "@shiplog/client/schemas";
import { schemaRuleKey } from "./input-rules.js";
import { lineInput, optional, setBeyondDefault, type InputName, type InputProblem, type RawInputs, type RunContext } from "./inputs.js";

/** The tags to create: what the tag inputs ask for, checked. */
export interface TagPlan {
  /** The first tag's request (what the single-tag outputs describe); every tag shares its object, type and tagger. */
  params: CreateTagParams;
  /** Every tag to make, in order: the given ones, then the derived floating ones. */
  tags: ReleaseTag[];
  /** The message given, if any; otherwise each tag's message is its own name. */
  message: string | undefined;
}

/** Which input carries each request field, so a schema's complaint names what the user wrote. */
const TAG_FIELD_INPUTS: Record<string, InputName> = {
  tag: "tag",
  message: "tag-message",
  object: "tag-object",
  type: "tag-type",
  "tagger.name": "tagger-name",
  "tagger.email": "tagger-email",
  "tagger.date": "tagger-date",
};

/** Checks the tag inputs (pushing each problem) and plans the tags; undefined when there is no tag or a problem. */
export function planTag(raw: RawInputs, context: RunContext, owner: string, repo: string, problems: InputProblem[]): TagPlan | undefined {
  const names = [
    ...lineInput(raw.tag).map((name) => ({ name, input: "tag" as const })),
    ...lineInput(raw.tags).map((name) => ({ name, input: "tags" as const })),
  ];
  const tag = names[0]?.name;
  const tagOnly: InputName[] = ["tag-message", "tagger-name", "tagger-email", "tagger-date", "derived-tags"];
  if (!tag) {
    for (const input of tagOnly) {
      if (setBeyondDefault(raw, input))
        problems.push({ input, rule: "needs tag", message: `${input} is set but tag is empty: give the tag name to create` });
    }
    return undefined;
  }

  const ifExists = optional(raw["if-tag-exists"]) ?? "skip";
  if (!(IF_TAG_EXISTS as readonly string[]).includes(ifExists)) {
    problems.push({
      input: "if-tag-exists",
      rule: "one of",
      message: `if-tag-exists must be one of ${IF_TAG_EXISTS.join(", ")}, got ${JSON.stringify(ifExists)}`,
    });
  }
  const derive = optional(raw["derived-tags"]) ?? "none";
  if (!(DERIVED_TAGS as readonly string[]).includes(derive)) {
    problems.push({
      input: "derived-tags",
      rule: "one of",
      message: `derived-tags must be one of ${DERIVED_TAGS.join(", ")}, got ${JSON.stringify(derive)}`,
    });
  }
  for (const { name, input } of names) {
    const checked = createTagParams.shape.tag.safeParse(name);
    if (!checked.success)
      problems.push({
        input,
        rule: "form",
        message: `${input} ${JSON.stringify(name)}: ${checked.error.issues[0]?.message ?? "invalid tag name"}`,
      });
  }

  const taggerName = optional(raw["tagger-name"]);
  const taggerEmail = optional(raw["tagger-email"]);
  const taggerDate = optional(raw["tagger-date"]);
  if ((taggerName === undefined) !== (taggerEmail === undefined)) {
    const missing: InputName = taggerName === undefined ? "tagger-name" : "tagger-email";
    problems.push({
      input: missing,
      rule: "together",
      message: `${missing} is required when ${missing === "tagger-name" ? "tagger-email" : "tagger-name"} is set`,
    });
  }
  if (taggerDate && taggerName === undefined && taggerEmail === undefined) {
    problems.push({
      input: "tagger-date",
      rule: "needs tagger",
      message: "tagger-date needs tagger-name and tagger-email",
    });
  }

  const object = optional(raw["tag-object"]) ?? context.sha;
  if (!object) problems.push({ input: "tag-object", rule: "required", message: "tag-object is required when GITHUB_SHA is not set" });

  const params = {
    owner,
    repo,
    tag,
    message: optional(raw["tag-message"]) ?? tag,
    object: object ?? "",
    type: optional(raw["tag-type"]) ?? "commit",
    ...(taggerName !== undefined &&
      taggerEmail !== undefined && { tagger: { name: taggerName, email: taggerEmail, ...(taggerDate && { date: taggerDate }) } }),
  };
  if (!object) return undefined;
  const checked = createTagParams.safeParse(params);
  if (!checked.success) {
    for (const issue of toFieldIssues(checked.error)) {
      const input = TAG_FIELD_INPUTS[issue.field];
      // Tag names were checked one by one above, each naming its input.
      if (input && issue.field !== "tag") problems.push({ input, rule: schemaRuleKey(issue.rule), message: `${input}: ${issue.message}` });
    }
    return undefined;
  }
  if (problems.length > 0) return undefined;
  let tags: ReleaseTag[];
  try {
    tags = releaseTags(
      names.map((n) => n.name),
      derive as DerivedTags,
      ifExists as ReleaseTag["ifExists"],
    );
  } catch (error) {
    problems.push({ input: "derived-tags", rule: "one version per floating tag", message: `derived-tags: ${(error as Error).message}` });
    return undefined;
  }
  if (derive !== "none" && !names.some((n) => derivedTagNames(n.name, derive as DerivedTags).length > 0)) {
    const message = `derived-tags is ${derive} but no tag is a release version such as v1.4.0 (pre-releases never move floating tags)`;
    problems.push({ input: "derived-tags", rule: "needs a release version tag", message });
    return undefined;
  }
  return { params: checked.data, tags, message: optional(raw["tag-message"]) };
}
