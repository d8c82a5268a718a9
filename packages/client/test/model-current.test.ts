// src/model/ is printed from the zod schemas (scripts/generate-model.mjs): the files committed must be what the
// schemas give, so the declared types and the checks at run time never disagree.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script, without declarations
import { generateModel } from "../scripts/generate-model.mjs";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("src/model", () => {
  it("is what the schemas give (node packages/client/scripts/generate-model.mjs writes it)", () => {
    const files = generateModel() as Map<string, string>;
    expect(files.size).toBeGreaterThan(5);
    for (const [path, text] of files) expect(readFileSync(join(packageDir, path), "utf8"), path).toBe(text);
  });
});
