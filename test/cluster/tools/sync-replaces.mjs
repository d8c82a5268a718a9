// Writes go.mod's replace block: each staging module of k8s.io/kubernetes (replaced by a ./staging path in its own
// go.mod) pointed at the published k8s.io/* release of the same minor (v1.37.2 -> v0.37.2).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const goModPath = join(here, "go.mod");
const goMod = readFileSync(goModPath, "utf8");
const version = /^\s*k8s\.io\/kubernetes (v1\.\d+\.\d+)\b/m.exec(goMod)?.[1];
if (!version) throw new Error("go.mod: no `k8s.io/kubernetes v1.x.y` requirement");
const stagingVersion = version.replace(/^v1\./, "v0.");
const info = JSON.parse(execFileSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${version}`], { cwd: here, encoding: "utf8" }));
const upstream = readFileSync(info.GoMod, "utf8");
const staging = [...upstream.matchAll(/^\s*(k8s\.io\/[\w.-]+) => \.\/staging\/src\//gm)].map((m) => m[1]);
const block = `replace (\n${staging.map((m) => `\t${m} => ${m} ${stagingVersion}`).join("\n")}\n)\n`;
const withoutOld = goMod.replace(/\n\/\/ Staging modules[^\n]*\nreplace \([^)]*\)\n/s, "\n");
writeFileSync(
  goModPath,
  `${withoutOld.trimEnd()}\n\n// Staging modules of k8s.io/kubernetes ${version}, written by sync-replaces.mjs.\n${block}`,
);
console.log(`${staging.length} staging modules pinned at ${stagingVersion}`);
