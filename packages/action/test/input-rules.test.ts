// The rules of the inputs in words (src/input-rules.ts): each value rule is what the code enforces (a bad value breaks
// it, and a length's limit is the one stated), each is stated word for word in action.yml, and no annotation title
// shows a rule's machinery (a regex, `maxLength 256`, `format datetime`).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { planFromInputs } from "../src/action-plan.js";
import { readChecksums } from "../src/checksums.js";
import { INPUT_RULES, checksumsRuleKey, problemTitle, ruleWords, type ProblemInput } from "../src/input-rules.js";
import type { InputProblem, RawInputs } from "../src/inputs.js";
import { PLAN_LOG_MAX_LINES } from "../src/run-report.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const action = parse(readFileSync(join(root, "action.yml"), "utf8")) as { inputs: Record<string, { description?: string }> };
const context = { repository: "acme/web", sha: "a".repeat(40), apiUrl: "https://api.service.example" };
const digest = `sha256:${"b".repeat(64)}`;
/** Inputs that plan a tag and a storage record without a problem. */
const base: RawInputs = {
  token: "t0ken",
  tag: "v1",
  "subject-digest": digest,
  "subject-name": "app",
  "registry-url": "https://r.example/",
};
const TAGGER = { "tagger-name": "Ada", "tagger-email": "ada@example.com" };
const problemsOf = (raw: RawInputs): InputProblem[] => planFromInputs({ ...base, ...raw }, context).problems;
const long = (prefix: string, length: number) => prefix + "a".repeat(length - prefix.length);

/** For each value rule, inputs that break it; for each length, the longest value allowed (which must pass). */
const BREAKS: Record<string, { breaks: RawInputs; limit?: RawInputs }> = {
  "api-url / absolute http(s) URL": { breaks: { "api-url": "ftp://api.example" } },
  "api-url / https unless loopback": { breaks: { "api-url": "http://api.example" } },
  "api-url / no query or fragment": { breaks: { "api-url": "https://api.example/?q=1" } },
  "api-url / no credentials in the URL": { breaks: { "api-url": "https://u:p@api.example" } },
  "dry-run / true or false": { breaks: { "dry-run": "maybe" } },
  "tag / form": { breaks: { tag: "bad..name" } },
  "tags / form": { breaks: { tags: "v2\nbad..name" } },
  "derived-tags / one of": { breaks: { "derived-tags": "minor" } },
  "tag-object / form": { breaks: { "tag-object": "abc123" } },
  "tag-type / one of": { breaks: { "tag-type": "tag" } },
  "tagger-name / form": { breaks: { ...TAGGER, "tagger-name": "Ada <a>" } },
  "tagger-email / form": { breaks: { ...TAGGER, "tagger-email": "<ada@example.com>" } },
  "tagger-date / form": { breaks: { ...TAGGER, "tagger-date": "yesterday" } },
  "if-tag-exists / one of": { breaks: { "if-tag-exists": "move" } },
  "subject-digest / form": { breaks: { "subject-digest": `sha256:${"B".repeat(64)}` } },
  "subject-name / max length": { breaks: { "subject-name": long("", 257) }, limit: { "subject-name": long("", 256) } },
  "subject-version / max length": { breaks: { "subject-version": long("", 101) }, limit: { "subject-version": long("", 100) } },
  "registry-url / form": { breaks: { "registry-url": "http://r.example/" } },
  "registry-url / max length": { breaks: { "registry-url": long("https://", 257) }, limit: { "registry-url": long("https://", 256) } },
  "artifact-url / form": { breaks: { "artifact-url": "http://r.example/a" } },
  "artifact-url / max length": { breaks: { "artifact-url": long("https://", 153) }, limit: { "artifact-url": long("https://", 152) } },
  "registry-repository / max length": {
    breaks: { "registry-repository": long("", 129) },
    limit: { "registry-repository": long("", 128) },
  },
  "artifact-path / max length": { breaks: { "artifact-path": long("", 513) }, limit: { "artifact-path": long("", 512) } },
  "storage-status / one of": { breaks: { "storage-status": "gone" } },
  "github-repository / form": { breaks: { "github-repository": "acme/web" } },
  "github-repository / max length": {
    breaks: { "github-repository": long("", 101) },
    limit: { "github-repository": long("", 100) },
  },
  "storage-permission-missing / one of": { breaks: { "storage-permission-missing": "ignore" } },
};

const valueRules = Object.entries(INPUT_RULES).flatMap(([input, rules]) =>
  Object.entries((rules as { value?: Record<string, string> }).value ?? {}).map(([rule, words]) => ({
    input: input as ProblemInput,
    rule,
    words,
  })),
);
/** A title that shows machinery rather than words. */
const MACHINERY = /\/\^|\$\/|pattern |maxLength|minLength|format \w|type \w+$|^Invalid input: [\w-]+ \(|breaks the rule/;

describe("the inputs' rules in words", () => {
  it("every value rule is one the code enforces: a value breaking it is refused by that rule, and a length's limit passes", () => {
    const checked = valueRules.filter((r) => r.input !== "subject-checksums").map((r) => `${r.input} / ${r.rule}`);
    expect(Object.keys(BREAKS).sort()).toEqual(checked.sort());
    for (const [name, { breaks, limit }] of Object.entries(BREAKS)) {
      const [input, rule] = name.split(" / ") as [ProblemInput, string];
      const problems = problemsOf(breaks);
      expect(
        problems.map((p) => `${p.input} / ${p.rule}`),
        name,
      ).toContain(name);
      expect(problemTitle(problems.find((p) => p.input === input)!)).toBe(`Invalid input: ${input} ${ruleWords(input, rule)}`);
      if (limit) expect(problemsOf(limit), `${name} at the limit`).toEqual([]);
    }
    // subject-checksums is read at run time, not planned: its format rule from the reader.
    const listed = readChecksums("not a checksum\nline");
    expect(checksumsRuleKey(listed.rule)).toBe("sha256sum format");
    expect(listed.problems.length).toBeGreaterThan(0);
  });

  it("action.yml states each value rule of an input in its description, word for word", () => {
    for (const { input, words } of valueRules) {
      const description = (action.inputs[input]?.description ?? "").replace(/\s+/g, " ");
      expect(description, `${input}: "${words}"`).toContain(words);
    }
    // And the bound of a dry run's plan in the log.
    expect(action.inputs["dry-run"]?.description?.replace(/\s+/g, " ")).toContain(`(the first ${PLAN_LOG_MAX_LINES}, then how many more)`);
  });

  it("every problem the inputs can have is titled in words: the input, then what it must be or needs", () => {
    const cases: RawInputs[] = [
      ...Object.values(BREAKS).map((c) => c.breaks),
      { token: "" },
      { tag: "", "subject-digest": "", "tag-message": "m", "tagger-date": "2026-03-10T12:00:00Z", "derived-tags": "major" },
      { "tagger-name": "Ada" },
      { "tagger-email": "ada@example.com" },
      { "tagger-date": "2026-03-10T12:00:00Z" },
      { tag: "v1.4.0-rc.1", "derived-tags": "major" },
      { tag: "v1.4.0", tags: "v1.5.0", "derived-tags": "major" },
      { "subject-name": "" },
      { "subject-name": "ghcr.io/acme/web:1.4.0" },
      { "subject-name": "app", "registry-url": "" },
      { "subject-digest": "", "subject-version": "1", "registry-url": "https://r.example/" },
      { tag: "", "subject-digest": "", "subject-name": "", "registry-url": "" },
    ];
    const titles = new Set<string>();
    for (const raw of cases) {
      const problems = planFromInputs({ ...base, ...raw }, raw.tag === "" ? { ...context, repository: "nope" } : context).problems;
      expect(problems.length, JSON.stringify(raw)).toBeGreaterThan(0);
      for (const problem of problems) {
        expect(ruleWords(problem.input, problem.rule), `${problem.input} / ${problem.rule}`).toBeDefined();
        const title = problemTitle(problem);
        expect(title).not.toMatch(MACHINERY);
        titles.add(title);
      }
    }
    expect(titles).toContain("Invalid input: registry-url must be an https:// URL");
    expect(titles).toContain("Invalid input: subject-digest must be sha256: followed by 64 lowercase hex digits");
    expect(titles).toContain("Invalid input: tagger-date must be an ISO 8601 timestamp with Z or an offset");
    expect(titles).toContain("Invalid input: tag-message needs tag");
  });
});
