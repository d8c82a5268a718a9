// The CLI README run as written: its install lines (after the build the suite ran), its completion lines in the real
// shells, and its "Each command, as run" section regenerated against a seeded emulator and compared with the README
// (timestamps, object ids and rate-limit figures aside), so a README that drifts from the command line fails here.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../../test/kit/process.js";
import { ROOT, readmeBlocks } from "../../../test/kit/readme.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { cliReadmeSection, normalize, readmeSection } from "./readme-transcript.js";

const README = "packages/cli/README.md";
const PATH = `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages", "cli", "package.json"), "utf8")) as { version: string }).version;

/** What may differ between runs besides normalize's: how many steps `import follow` saw between its first and last. */
function comparable(section: string): string {
  return normalize(section).replace(
    /(\$ shiplog import follow[^\n]*\n(?:warning: [^\n]*\n)?)(?:[^\n]*\n)*?(complete +complete[^\n]*\n```)/g,
    "$1…\n$2",
  );
}

/** Runs a shell script from the repository's root with node_modules/.bin on PATH; resolves to what it printed. */
async function sh(shell: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const run = await runProcess(shell, args, { cwd: ROOT, env: { PATH, HOME: tempDir("shiplog-readme-home-"), ...env } });
  return { code: run.code, out: run.stdout + run.stderr };
}

describe("packages/cli/README.md, as written", () => {
  it("every block of the README is one this file runs", () => {
    const blocks = readmeBlocks(README).filter(
      (b) => b.heading !== "Each command, as run" && !/^#/.test(b.heading) && b.lang !== "console",
    );
    expect(blocks.map((b) => `${b.lang}: ${b.code.split("\n")[0]}`)).toEqual([
      "sh: npx -y pnpm@10.34.8 install && npx -y pnpm@10.34.8 build   # at the repository's root",
      "sh: source <(shiplog completion bash)                 # bash 4 or later, e.g. in ~/.bashrc",
    ]);
  });

  it("the install lines: after the install and build the suite ran, `shiplog` is on PATH and prints its version", async () => {
    const [block] = readmeBlocks(README).filter((b) => b.lang === "sh");
    const [install, ...rest] = block!.code.trimEnd().split("\n");
    // The suite itself ran the install and the build (pnpm test builds first); the rest runs as written.
    expect(install).toMatch(/^npx -y pnpm@10\.34\.8 install && npx -y pnpm@10\.34\.8 build\b/);
    const run = await runProcess("sh", ["-c", rest.join("\n")], { cwd: ROOT, env: { PATH: process.env.PATH ?? "" } });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(`${VERSION}\n`);
  });

  it("the completion lines load into bash, zsh and fish (each where the shell is installed)", async () => {
    const [block] = readmeBlocks(README).filter((b) => b.lang === "sh" && b.code.includes("completion bash"));
    const lines = block!.code
      .trimEnd()
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, ""));
    const bash = lines.find((l) => l.includes("completion bash"))!;
    expect(await sh("bash", ["-c", `${bash} && complete -p shiplog`])).toEqual({ code: 0, out: "complete -F _shiplog shiplog\n" });
    const has = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;
    if (has("zsh")) {
      const source = lines.find((l) => l.startsWith("source <(shiplog completion zsh)"))!;
      const loaded = await sh("zsh", ["-fc", `autoload -Uz compinit && compinit -u -D && ${source} && print -r -- $_comps[shiplog]`]);
      expect(loaded).toEqual({ code: 0, out: "_shiplog\n" });
      const fpathDir = tempDir("shiplog-fpath-");
      const save = lines.find((l) => l.includes("_shiplog"))!;
      const saved = await sh("zsh", ["-fc", `fpath=(${fpathDir} $fpath) && ${save} && head -1 ${fpathDir}/_shiplog`]);
      expect(saved).toEqual({ code: 0, out: "#compdef shiplog\n" });
    }
    if (has("fish")) {
      const fish = lines.find((l) => l.includes("completion fish"))!;
      const loaded = await sh("fish", ["--no-config", "-c", `${fish}; complete -C 'shiplog rec'`]);
      expect(loaded.code).toBe(0);
      expect(loaded.out).toMatch(/^records\t/);
    }
  });

  it('"Each command, as run": every command run again against a seeded emulator prints what the README shows', {
    timeout: 300_000,
  }, async () => {
    const generated = await cliReadmeSection();
    const fix =
      "the README's commands print something else now: write the section again with `npx tsx packages/cli/test/readme-transcript.ts --write`";
    expect(comparable(readmeSection()), fix).toBe(comparable(generated));
  });
});
