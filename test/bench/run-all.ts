// Runs every benchmark in this folder, one after another, each in its own process.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const helpers = new Set(["run-all.ts", "emulator-process.ts", "overhead-sender.ts", "synthetic-kube-api.ts"]);
const benches = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !helpers.has(f) && !f.endsWith(".d.ts"))
  .sort();
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(here, bench)], { stdio: "inherit" });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
