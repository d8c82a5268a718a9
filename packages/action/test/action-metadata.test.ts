// action.yml against the code: every input the action reads is declared with a description, and the entry is the bundle.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { planFromInputs } from "../src/action-plan.js";
import { INPUT_NAMES, type InputName, type RawInputs } from "../src/inputs.js";
import { runOutputs } from "../src/run-report.js";
import { evaluateDefault, inputEnvName, runnerInputEnv } from "./runner-inputs.js";
import { readActionInputs } from "./local-runner.js";

/** A GitHub Actions expression as action.yml writes it (`${{ github.token }}`). */
const expression = (name: string) => `\${{ ${name} }}`;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const action = parse(readFileSync(join(root, "action.yml"), "utf8")) as {
  inputs: Record<string, { description?: string; default?: string; required?: boolean }>;
  outputs: Record<string, { description?: string }>;
  runs: Record<string, string>;
};

describe("action.yml", () => {
  it("runs the committed bundle on node24", () => {
    expect(action.runs).toEqual({ using: "node24", main: "packages/action/dist/index.js" });
  });

  it("declares exactly the inputs the action reads, kebab-case, each with a description", () => {
    expect(Object.keys(action.inputs).sort()).toEqual([...INPUT_NAMES].sort());
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(input.description?.length, name).toBeGreaterThan(20);
    }
    expect(action.inputs.token?.default).toBe(expression("github.token"));
    expect(action.inputs["api-url"]?.default).toBe(expression("github.api_url"));
    expect(action.inputs["tag-object"]?.default).toBe(expression("github.sha"));
    expect(action.inputs["if-tag-exists"]?.default).toBe("skip");
  });

  it("the bundle starts from src/index.ts, and the package has no import surface: it is an action, not a library", () => {
    const pkg = JSON.parse(readFileSync(join(root, "packages", "action", "package.json"), "utf8")) as {
      scripts: { bundle: string };
      exports?: unknown;
    };
    expect(pkg.scripts.bundle).toMatch(/^esbuild src\/index\.ts /);
    expect(pkg.scripts.bundle).toContain("--outfile=dist/index.js");
    expect(pkg.exports).toBeUndefined();
  });

  it("every default is one the code falls back to by itself: an input left empty plans like its evaluated default", () => {
    const sha = "a".repeat(40);
    const github = {
      token: "job-t0ken",
      env: { GITHUB_SHA: sha, GITHUB_API_URL: "https://api.service.example", GITHUB_REPOSITORY: "acme/web" },
    };
    const context = { repository: "acme/web", sha, apiUrl: "https://api.service.example" };
    // Inputs that make every default matter: a tag (tag-type, tag-object, if-tag-exists) and a storage record.
    const base: RawInputs = {
      token: "t0ken",
      tag: "v1",
      "subject-digest": `sha256:${"b".repeat(64)}`,
      "subject-name": "app",
      "registry-url": "https://r.example/",
    };
    const defaulted = Object.entries(action.inputs).filter(([, input]) => input.default !== undefined);
    expect(defaulted.map(([name]) => name).sort()).toEqual([
      "api-url",
      "derived-tags",
      "dry-run",
      "if-tag-exists",
      "storage-permission-missing",
      "tag-object",
      "tag-type",
      "token",
    ]);
    for (const [name, input] of defaulted) {
      const value = evaluateDefault(name, String(input.default), github);
      expect(value, `${name}'s default evaluates to something`).not.toBe("");
      if (name === "token") {
        // No fallback in the code: the job token is the default, and an empty token is refused.
        expect(value).toBe("job-t0ken");
        expect(planFromInputs({ ...base, token: "" }, context).problems).toEqual([
          expect.objectContaining({ input: "token", rule: "required" }),
        ]);
        continue;
      }
      const withDefault = planFromInputs({ ...base, [name as InputName]: value }, context);
      expect(withDefault.problems, `${name}: ${value}`).toEqual([]);
      expect(planFromInputs({ ...base, [name as InputName]: "" }, context), name).toEqual(withDefault);
    }
  });

  it("the local runner passes every declared input as the runner does: given, else the evaluated default, else empty", async () => {
    const declared = await readActionInputs();
    const env = runnerInputEnv(
      declared,
      { tag: "v1", "subject-path": "dist/*" },
      { token: "job-t0ken", env: { GITHUB_SHA: "c".repeat(40), GITHUB_API_URL: "http://127.0.0.1:9" } },
    );
    expect(Object.keys(env).sort()).toEqual(INPUT_NAMES.map((name) => `INPUT_${name.toUpperCase()}`).sort());
    expect(env).toMatchObject({
      INPUT_TOKEN: "job-t0ken",
      "INPUT_API-URL": "http://127.0.0.1:9",
      INPUT_TAG: "v1",
      "INPUT_TAG-OBJECT": "c".repeat(40),
      "INPUT_TAG-TYPE": "commit",
      "INPUT_IF-TAG-EXISTS": "skip",
      "INPUT_DRY-RUN": "false",
      "INPUT_SUBJECT-PATH": "dist/*",
      "INPUT_TAG-MESSAGE": "",
    });
    expect(inputEnvName("my input-name")).toBe("INPUT_MY_INPUT-NAME");
    expect(() => runnerInputEnv(declared, { "tag-typo": "x" }, { token: undefined, env: {} })).toThrow(/unexpected input\(s\) 'tag-typo'/);
    expect(() => evaluateDefault("x", expression("secrets.TOKEN"), { token: undefined, env: {} })).toThrow(
      /only github\.<name> expressions/,
    );
  });

  it("declares exactly the outputs the action sets", () => {
    expect(Object.keys(action.outputs).sort()).toEqual(
      Object.keys(runOutputs({ dryRun: false, repository: "a/b", storageRecords: [] })).sort(),
    );
  });
});
