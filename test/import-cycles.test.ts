// `pnpm lint:cycles` (run by `pnpm test` on every package's sources) fails on any import cycle, type-only imports
// included. Shown here on two modules that import each other; the repository itself is the lint step's job.
import { execSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./kit/temp-dir.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts[
  "lint:cycles"
]!;
const SOURCES = "'packages/*/src/**/*.ts'";
const work = tempDir("shiplog-cycles-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string): { status: number; output: string } {
  try {
    return {
      status: 0,
      output: execSync(command, {
        cwd: root,
        encoding: "utf8",
        stdio: "pipe",
        env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}` },
      }),
    };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { status: failed.status, output: failed.stdout };
  }
}

describe("the import cycle check", () => {
  it("fails on two modules that import each other, even for a type only", () => {
    writeFileSync(join(work, "a.ts"), 'import type { B } from "./b.js";\nexport interface A { b?: B }\n');
    writeFileSync(join(work, "b.ts"), 'import { type A } from "./a.js";\nexport interface B { a?: A }\nexport const b = 1;\n');
    expect(script).toContain(SOURCES);
    const result = run(script.replace(SOURCES, `'${work}/*.ts'`));
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/1\) \S*[ab]\.ts -> \S*[ab]\.ts/);
  });
});
