#!/usr/bin/env node
// Writes src/version.ts from package.json, so the version is written in one place and still reaches every build:
// dist, and the bundles that inline the client (the action's), where no package.json sits beside the code.
//
//   node packages/client/scripts/write-version.mjs          write the module
//   node packages/client/scripts/write-version.mjs --check  exit 1 when it is stale
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "src", "version.ts");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const text = `// GENERATED from package.json by scripts/write-version.mjs (pnpm build runs it). Do not edit.

/** The client's version, as its package.json gives it. */
export const CLIENT_VERSION = ${JSON.stringify(version)};
`;

if (process.argv.includes("--check")) {
  if (readFileSync(target, "utf8") !== text) {
    console.error(`${target} is stale: run node packages/client/scripts/write-version.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
