// CI guard: the bundle action.yml runs (packages/action/dist/index.js, committed) must be what the sources build to.
import { execFileSync, execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const actionDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUNDLE = "packages/action/dist/index.js";

/** The bundle as committed at HEAD; the working-tree file outside a git checkout. */
function committedBundle(): { source: string; content: Buffer } {
  try {
    const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: actionDir, stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    return { source: `HEAD:${BUNDLE}`, content: execFileSync("git", ["show", `HEAD:${BUNDLE}`], { cwd: root, maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] }) };
  } catch {
    return { source: BUNDLE, content: readFileSync(join(actionDir, "dist", "index.js")) };
  }
}

describe("dist/index.js", () => {
  it("the committed bundle equals a fresh build of the sources", () => {
    const pkg = JSON.parse(readFileSync(join(actionDir, "package.json"), "utf8")) as { scripts: { bundle: string } };
    expect(pkg.scripts.bundle).toContain("--outfile=dist/index.js");
    const dir = mkdtempSync(join(tmpdir(), "shiplog-bundle-"));
    try {
      const fresh = join(dir, "index.js");
      // The package's own bundle command, writing elsewhere.
      execSync(pkg.scripts.bundle.replace("--outfile=dist/index.js", `--outfile=${fresh}`), {
        cwd: actionDir,
        env: { ...process.env, PATH: `${join(actionDir, "node_modules", ".bin")}:${process.env["PATH"] ?? ""}` },
        stdio: ["ignore", "ignore", "pipe"],
      });
      const committed = committedBundle();
      const same = Buffer.compare(readFileSync(fresh), committed.content) === 0;
      expect(
        same,
        `${committed.source} differs from a fresh build (${statSync(fresh).size} bytes vs ${committed.content.length}): ` +
          "run `pnpm build` (or `pnpm --filter @shiplog/action run bundle` after building @shiplog/client) and commit packages/action/dist/index.js",
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
