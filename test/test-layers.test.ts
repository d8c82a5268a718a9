// The unit project's promise (vitest.config.ts): pure logic, or in-process servers driven by a virtual clock or by the
// events they report, with no real-time wait. A test that polls until something holds, under a deadline, waits in
// real time and stretches (or fails) on a loaded machine: such a wait belongs in an integration test, by name.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectOf } from "../vitest.config.js";
import { REPO_ROOT } from "./chart/helm.js";

/** The polling waits of vitest (and of anything named like them), outside comments. */
const POLLING_WAIT = /\b(?:vi\.waitFor|vi\.waitUntil|expect\.poll)\s*\(/;

/** An import of built output (dist/ or lib/), which a fresh checkout does not have before the build. */
const BUILT_IMPORT = /\bfrom\s+["'](?:\.\.?\/)+(?:[\w.-]+\/)*(?:dist|lib)\//;

/** The lines of `source` that poll in real time, as `line: text`. */
function pollingWaits(source: string): string[] {
  return source.split("\n").flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    return POLLING_WAIT.test(code) ? [`${i + 1}: ${line.trim()}`] : [];
  });
}

/** The unit project's test files, by vitest.config.ts's naming rule. */
function unitTestFiles(): string[] {
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.test.ts"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  return files.split("\n").filter((f) => projectOf(f) === "unit");
}

describe("the unit project runs on the sources, and waits in no real time", () => {
  it("finds a polling wait, and not one in a comment", () => {
    // Spelt apart, so that this file has none of the waits it looks for.
    const [waitFor, waitUntil, poll] = ["vi.waitFor", "vi.waitUntil", "expect.poll"];
    expect(pollingWaits(`await ${waitFor}(() => expect(x).toBe(1), WAIT);`)).toHaveLength(1);
    expect(pollingWaits(`  await ${poll}(() => n).toBe(2);\n// ${waitUntil}(() => done)`)).toEqual([`1: await ${poll}(() => n).toBe(2);`]);
  });

  it("no unit test polls until something holds (await the event, or move time on a VirtualClock)", () => {
    const files = unitTestFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => pollingWaits(readFileSync(join(REPO_ROOT, file), "utf8")).map((line) => `${file}:${line}`));
    expect(found, "rename the file *.integration.test.ts, or await the event itself").toEqual([]);
  });

  it("no unit test imports built output (it runs on the sources, before any build)", () => {
    const built = ["..", "dist", "x.js"].join("/"); // spelt apart, so that this file imports nothing built
    expect(BUILT_IMPORT.test(`import { x } from "${built}";`)).toBe(true);
    expect(BUILT_IMPORT.test(`import { x } from "../src/x.js";`)).toBe(false);
    const found = unitTestFiles().filter((file) => BUILT_IMPORT.test(readFileSync(join(REPO_ROOT, file), "utf8")));
    expect(found, "import from src/ (or @shiplog/<package>, which the unit project resolves to src/)").toEqual([]);
  });
});
