// The completion scripts loaded into real shells: bash runs the completion function as its `complete` binding would,
// fish answers `complete -C` (what it would offer at the cursor), and zsh completes in an interactive shell on a pseudo-terminal (zpty), where its own completion system draws the
// listing and edits the line. Each case waits for a marker, never a delay.
import { execFile, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

let dir: string;
const scripts: Record<"bash" | "zsh" | "fish", string> = { bash: "", zsh: "", fish: "" };

beforeAll(async () => {
  dir = tempDir("shiplog-completion-");
  // Two files sharing a prefix, for completing a path.
  for (const name of ["cluster-a.json", "cluster-b.json"]) writeFileSync(join(dir, name), "{}");
  for (const shell of ["bash", "zsh", "fish"] as const) {
    const run = await runCli(["completion", shell], {});
    expect(run.code).toBe(0);
    scripts[shell] = join(dir, `shiplog.${shell}`);
    writeFileSync(scripts[shell], run.stdout);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a shell in the test's directory, with an environment of its own (an EDITOR of vi would make zsh's keys vi's). */
function shell(file: string, args: string[]): Promise<string> {
  const env = { PATH: process.env.PATH ?? "", HOME: dir, TERM: "xterm" };
  return new Promise((resolve, reject) =>
    execFile(file, args, { cwd: dir, env, encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

describe("bash", () => {
  /** COMPREPLY for the words typed after `shiplog` (split as bash splits them, `=` and `:` apart). */
  async function complete(...words: string[]): Promise<string[]> {
    const driver = `source ${JSON.stringify(scripts.bash)}\ncomplete -p shiplog\nCOMP_WORDS=(shiplog ${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length}; _shiplog; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const [binding, ...reply] = (await shell("bash", ["-c", driver])).split("\n").filter(Boolean);
    expect(binding).toBe("complete -F _shiplog shiplog");
    return reply.sort();
  }

  it("commands, subcommands and options, global options after a subcommand", async () => {
    expect(await complete("rec")).toEqual(["records"]);
    expect(await complete("records", "s")).toEqual(["set-cluster", "storage"]);
    expect(await complete("--json", "records", "st")).toEqual(["storage"]);
    expect(await complete("--api-url", "http", ":", "//127.0.0.1:8080", "tag", "")).toEqual(["create", "delete", "list", "show"]);
    expect(await complete("records", "storage", "--o")).toEqual(["--org", "--output"]);
    expect(await complete("records", "storage", "--org", "acme", "sha256:x", "--j")).toEqual(["--json"]);
    expect(await complete("notifications", "read", "--")).toEqual([
      "--all",
      "--api-url",
      "--app-id",
      "--app-installation-id",
      "--app-private-key-file",
      "--help",
      "--json",
      "--output",
      "--query",
      "--repo",
      "--token-file",
    ]);
  });

  it("option values: choices (also after =), file names for a path, nothing for free text; positional choices", async () => {
    expect(await complete("tag", "create", "acme/web", "v1.4.0", "--derived-tags", "")).toEqual(["major", "major-minor", "none"]);
    expect(await complete("tag", "create", "acme/web", "v1.4.0", "--derived-tags", "=", "major-")).toEqual(["major-minor"]);
    expect(await complete("tag", "create", "acme/web", "v1.4.0", "--if-exists", "")).toEqual(["fail", "skip", "update"]);
    expect(await complete("records", "set-cluster", "--file", "cl")).toEqual(["cluster-a.json", "cluster-b.json"]);
    expect(await complete("records", "storage", "--app-private-key-file", "cluster-b")).toEqual(["cluster-b.json"]);
    expect(await complete("records", "storage", "--org", "")).toEqual([]);
    expect(await complete("completion", "")).toEqual(["bash", "fish", "zsh"]);
    expect(await complete("completion", "bash", "")).toEqual([]);
  });
});

const hasZsh = spawnSync("zsh", ["-fc", "exit 0"]).status === 0;
const inCi = !["", "0", "false"].includes((process.env.CI ?? "").toLowerCase());
if (!hasZsh && !inCi) console.warn("\n*** SKIPPED: zsh completion is not tried: zsh is not installed (apt-get install zsh) ***\n");

describe("zsh", () => {
  it.runIf(!hasZsh && inCi)("CI has zsh to try the zsh completion in", () => expect.fail("zsh is not installed: apt-get install zsh"));

  /**
   * Types `shiplog WORDS<Tab>` in an interactive zsh with the script loaded, then runs the edited line as
   * `print -r -- BUF:<line>`: resolves to the listing zsh drew and the line as completion left it.
   */
  async function complete(words: string): Promise<{ listing: string; line: string }> {
    const driver = join(dir, "drive.zsh");
    writeFileSync(
      driver,
      [
        "zmodload zsh/zpty",
        "zpty z zsh -f -i",
        // Emacs keys (Ctrl-A is the line's start), the script loaded, then a marker once the shell has done all that.
        `zpty -w z "bindkey -e; PS1='> '; autoload -Uz compinit; compinit -u -D; source \${(q)1}; zstyle ':completion:*' list-prompt ''; print READY\\"\\"MARK"`,
        "zpty -r z out '*READYMARK*'",
        `zpty -w -n z "shiplog $2"$'\\t'`,
        `zpty -w z $'\\x01print -r -- BU""F:'`,
        `zpty -r z out $'*BUF:shiplog*[\\r\\n]*'`,
        `print -r -- "$out"`,
        "zpty -d z",
      ].join("\n"),
    );
    // The terminal's escapes and carriage returns out: what a user reads.
    const screen = stripVTControlCharacters(await shell("zsh", ["-f", driver, scripts.zsh, words])).replace(/\r/g, "\n");
    const line = /^BUF:(.*)$/m.exec(screen)?.[1] ?? "";
    return { listing: screen.slice(0, screen.indexOf("BUF:shiplog")), line: line.trimEnd() };
  }

  it.runIf(hasZsh)(
    "completes commands, lists subcommands with their descriptions, option values and files",
    { timeout: 180_000 },
    async () => {
      expect((await complete("rec")).line).toBe("shiplog records");
      const records = await complete("records s");
      expect(records.listing).toMatch(/^set-cluster +-- set a cluster's deployment records from a JSON file$/m);
      expect(records.listing).toMatch(/^storage +-- list where an artifact is stored$/m);
      expect((await complete("--json records st")).line).toBe("shiplog --json records storage");
      expect((await complete("tag create acme/web v1.4.0 --derived-tags ")).listing).toMatch(/^major +major-minor +none *$/m);
      expect((await complete("tag create acme/web v1.4.0 --if-exists u")).line).toBe(
        "shiplog tag create acme/web v1.4.0 --if-exists update",
      );
      expect((await complete("records set-cluster --file cl")).line).toBe("shiplog records set-cluster --file cluster-");
      expect((await complete("records storage --or")).line).toBe("shiplog records storage --org");
      expect((await complete("records storage --o")).listing).toMatch(/--org\b[\s\S]*--output\b/);
      expect((await complete("tag create acme/web v1.4.0 --derived-tags=major-")).line).toBe(
        "shiplog tag create acme/web v1.4.0 --derived-tags=major-minor",
      );
      expect((await complete("completion ")).listing).toMatch(/^bash +fish +zsh *$/m);
    },
  );
});

const hasFish = spawnSync("fish", ["-c", "exit 0"]).status === 0;
if (!hasFish && !inCi) console.warn("\n*** SKIPPED: fish completion is not tried: fish is not installed (apt-get install fish) ***\n");

// CI installs fish (.ci/run): there its absence fails.
it.runIf(!hasFish && inCi)("CI has fish to try the fish completion in", () => expect.fail("fish is not installed: apt-get install fish"));

describe.runIf(hasFish)("fish", () => {
  /** What fish offers after `shiplog LINE` (`complete -C`), the candidates without their descriptions, sorted. */
  async function complete(line: string): Promise<string[]> {
    const out = await shell("fish", [
      "--no-config",
      "-c",
      `source ${JSON.stringify(scripts.fish)}; complete -C ${JSON.stringify(`shiplog ${line}`)}`,
    ]);
    return out
      .split("\n")
      .filter(Boolean)
      .map((candidate) => candidate.split("\t")[0]!)
      .sort();
  }

  it("commands and subcommands after options and their values, each command's options, option values and files", async () => {
    expect(await complete("rec")).toEqual(["records"]);
    expect(await complete("records s")).toEqual(["set-cluster", "storage"]);
    expect(await complete("--api-url http://127.0.0.1:8080 tag ")).toEqual(["create", "delete", "list", "show"]);
    expect(await complete("--json records st")).toEqual(["storage"]);
    expect(await complete("records storage --o")).toEqual(["--org", "--output"]);
    expect(await complete("tag create acme/web v1.4.0 --derived-tags ")).toEqual(["major", "major-minor", "none"]);
    expect(await complete("records set-cluster --file cl")).toEqual(["cluster-a.json", "cluster-b.json"]);
    expect(await complete("records storage --org ")).toEqual([]);
    expect(await complete("completion ")).toEqual(["bash", "fish", "zsh"]);
    expect(await complete("-o ")).toEqual(["json", "table", "yaml"]);
  });
});
