// The fenced blocks of a README, for doc tests that run them as written: each block with its language, its text,
// the heading it sits under and its line, so a test picks a block by where it is and a drifted README fails it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ReadmeBlock {
  /** The info string's first word: ts, sh, console, yaml ... */
  lang: string;
  code: string;
  /** The nearest heading above the block, without its #s. */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block of a Markdown file (a path relative to the repository's root). */
export function readmeBlocks(file: string): ReadmeBlock[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const blocks: ReadmeBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)/.exec(line);
    if (!fence) {
      const h = /^#+\s+(.*)$/.exec(line);
      if (h) heading = h[1]!.trim();
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    blocks.push({ lang: fence[1] ?? "", code: `${body.join("\n")}\n`, heading, line: start + 1 });
  }
  return blocks;
}

/** The blocks under a heading (of a language, if given); fails when there is none, naming the file and heading. */
export function blocksUnder(file: string, heading: string, lang?: string): ReadmeBlock[] {
  const found = readmeBlocks(file).filter((b) => b.heading === heading && (lang === undefined || b.lang === lang));
  if (found.length === 0) throw new Error(`${file} has no ${lang ?? ""} block under "${heading}"`);
  return found;
}

/**
 * Writes a ts block as a module under node_modules/.cache, so that `@shiplog/client` resolves to the built package
 * as it does in a user's project; returns its path.
 */
export function writeModule(name: string, code: string): string {
  const dir = join(ROOT, "node_modules", ".cache", "shiplog-readme");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${process.pid}.mts`);
  writeFileSync(file, code);
  return file;
}

/** The `$ command` lines of a shell block (a line ending in \ continues), without the prompt. */
export function shellCommands(block: ReadmeBlock): string[] {
  const commands: string[] = [];
  let current: string | undefined;
  for (const line of block.code.split("\n")) {
    if (current !== undefined) current += `\n${line}`;
    else if (line.startsWith("$ ")) current = line.slice(2);
    else continue;
    if (!current.endsWith("\\")) {
      commands.push(current);
      current = undefined;
    }
  }
  return commands;
}

/**
 * Type-checks modules (file name -> text) as a user's strict NodeNext project would, against the built packages'
 * types; resolves to tsc's output (empty when they compile).
 */
export async function typecheck(modules: Record<string, string>): Promise<string> {
  const { runProcess } = await import("./process.js");
  const dir = join(
    ROOT,
    "node_modules",
    ".cache",
    "shiplog-readme",
    `typecheck-${process.pid}-${Object.keys(modules).join("-").replace(/\W+/g, "")}`.slice(0, 120),
  );
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(dir, name), text);
  const compilerOptions = {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: Object.keys(modules) }));
  const run = await runProcess(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { env: { PATH: process.env.PATH ?? "" } });
  return `${run.stdout}${run.stderr}${run.code === 0 ? "" : `(tsc exit ${run.code})`}`;
}
