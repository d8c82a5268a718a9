// action.yml against the code: every input the action reads is declared with a description, and the entry is the bundle.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { INPUT_NAMES } from "@shiplog/action/inputs";
import { runOutputs } from "@shiplog/action/run-report";

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
    expect(action.inputs["token"]?.default).toBe("${{ github.token }}");
    expect(action.inputs["api-url"]?.default).toBe("${{ github.api_url }}");
    expect(action.inputs["tag-object"]?.default).toBe("${{ github.sha }}");
    expect(action.inputs["if-tag-exists"]?.default).toBe("skip");
  });

  it("the bundle starts from src/entry.ts; the package surface (index) only re-exports and runs nothing", async () => {
    const pkg = JSON.parse(readFileSync(join(root, "packages", "action", "package.json"), "utf8")) as { scripts: { bundle: string } };
    expect(pkg.scripts.bundle).toMatch(/^esbuild src\/entry\.ts /);
    expect(pkg.scripts.bundle).toContain("--outfile=dist/index.js");
    const exitCodeBefore = process.exitCode;
    const surface = await import("@shiplog/action/index");
    // Give a started run() the chance to fail on the missing inputs and set the exit code.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(process.exitCode).toBe(exitCodeBefore);
    expect(typeof surface.run).toBe("function");
    const source = readFileSync(join(root, "packages", "action", "src", "index.ts"), "utf8");
    const statements = source.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("//"));
    for (const line of statements) expect(line, "src/index.ts holds re-exports only").toMatch(/^export (type )?\{[^}]*\} from "\.\/[a-z-]+\.js";$/);
  });

  it("declares exactly the outputs the action sets", () => {
    expect(Object.keys(action.outputs).sort()).toEqual(Object.keys(runOutputs({ dryRun: false, repository: "a/b", storageRecords: [] })).sort());
  });
});
