#!/usr/bin/env node
// Runs the action's sources under GitHub's @github/local-action (7.x), with or without pnpm on PATH:
//
//   node packages/action/scripts/local-action.mjs <dotenv file>
//   npm run local-action -- <dotenv file>          (in packages/action)
//
// The dotenv file holds the step's INPUT_* and GITHUB_* variables, as local-action takes them.
//
// Why the tool alone needs pnpm: its bin picks a package manager from the first package.json above the action's
// directory, here the repository's root, whose `packageManager` is pnpm. It then starts itself with `pnpm dlx tsx`
// and, the action being ESM, asks `pnpm list @actions/core @actions/github ... --json` where the toolkit packages it
// replaces with its stubs are. Without pnpm on PATH both fail (`pnpm: not found`).
//
// This starts the tool's own entry with the tsx it depends on (no download), and answers its one pnpm question with
// the packages as this package resolves them, through a `pnpm` put first on PATH for the run that does only that.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(import.meta.url);
const ACTION_PACKAGE = resolve(dirname(SCRIPT), "..");
/** Where action.yml is: the action's directory as local-action takes it. */
const ROOT = resolve(ACTION_PACKAGE, "..", "..");
const ENTRYPOINT = "packages/action/src/main.ts";

/** `pnpm list <package>... --json` as local-action reads it: where each package this package depends on really is. */
function pnpmList(names) {
  const dependencies = {};
  for (const name of names) {
    const path = join(ACTION_PACKAGE, "node_modules", ...name.split("/"));
    // The real path: an ESM stub applies to the module as Node resolves it, through pnpm's links.
    if (existsSync(path)) dependencies[name] = { path: realpathSync(path) };
  }
  return [{ path: ACTION_PACKAGE, dependencies }];
}

/** A word for sh, quoted. */
const sh = (word) => `'${word.replace(/'/g, `'\\''`)}'`;

if (process.argv[2] === "--as-pnpm") {
  const [command, ...args] = process.argv.slice(3);
  if (command !== "list" || !args.includes("--json")) {
    console.error(
      `local-action.mjs: only \`pnpm list <package>... --json\` is answered here, not \`pnpm ${process.argv.slice(3).join(" ")}\``,
    );
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(pnpmList(args.filter((arg) => !arg.startsWith("-"))))}\n`);
  process.exit(0);
}

const [dotenv, ...extra] = process.argv.slice(2);
if (dotenv === undefined || dotenv.startsWith("-") || extra.length > 0) {
  console.error("usage: node packages/action/scripts/local-action.mjs <dotenv file>");
  process.exit(2);
}

const localAction = realpathSync(join(ACTION_PACKAGE, "node_modules", "@github", "local-action"));
const tsx = createRequire(join(localAction, "package.json")).resolve("tsx/cli");
const shim = mkdtempSync(join(tmpdir(), "shiplog-local-action-"));
writeFileSync(join(shim, "pnpm"), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(SCRIPT)} --as-pnpm "$@"\n`, { mode: 0o755 });
writeFileSync(join(shim, "pnpm.cmd"), `@"${process.execPath}" "${SCRIPT}" --as-pnpm %*\r\n`);

const child = spawn(process.execPath, [tsx, join(localAction, "src", "index.ts"), "run", ROOT, ENTRYPOINT, resolve(dotenv)], {
  cwd: ACTION_PACKAGE,
  stdio: "inherit",
  env: {
    ...process.env,
    PATH: `${shim}${delimiter}${process.env.PATH ?? ""}`,
    // What the tool's bin would have set before starting its entry.
    TARGET_ACTION_PATH: ROOT,
    NODE_PACKAGE_MANAGER: "pnpm",
    NODE_NO_WARNINGS: "1",
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  rmSync(shim, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
