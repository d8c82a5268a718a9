#!/usr/bin/env node
// The version is written in one place per package, its package.json (shiplog releases all packages under one
// version; test/versions.test.ts holds them equal). This script derives every other copy from it, so each build
// carries it even where no package.json sits beside the code (the bundles inline the client and the action):
// each package's src/version.ts, and the chart's version and appVersion (the chart ships the controller).
//
//   node scripts/write-versions.mjs          write them (pnpm build runs it first)
//   node scripts/write-versions.mjs --check  exit 1 naming what is stale
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const versionOf = (pkg) => JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8")).version;

/** The version modules: package directory and the constant it exports. */
const MODULES = [
  ["client", "CLIENT_VERSION"],
  ["controller", "CONTROLLER_VERSION"],
  ["action", "ACTION_VERSION"],
];

const versionModule = (pkg, constant) => `// GENERATED from package.json by scripts/write-versions.mjs (pnpm build runs it). Do not edit.

/** The ${pkg}'s version, as its package.json gives it. */
export const ${constant} = ${JSON.stringify(versionOf(pkg))};
`;

// Chart.yaml is edited line by line so its comments and order stay as written.
const chartFile = join(root, "charts", "shiplog-controller", "Chart.yaml");
const chart = (text) => {
  const version = versionOf("controller");
  return text.replace(/^version: .*$/m, `version: ${version}`).replace(/^appVersion: .*$/m, `appVersion: "${version}"`);
};

const files = [
  ...MODULES.map(([pkg, constant]) => [join(root, "packages", pkg, "src", "version.ts"), () => versionModule(pkg, constant)]),
  [chartFile, () => chart(readFileSync(chartFile, "utf8"))],
];

const stale = [];
for (const [file, render] of files) {
  let current;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  const text = render();
  if (current === text) continue;
  if (process.argv.includes("--check")) stale.push(file.slice(root.length + 1));
  else writeFileSync(file, text);
}
if (stale.length > 0) {
  console.error(`stale, run node scripts/write-versions.mjs: ${stale.join(", ")}`);
  process.exit(1);
}
