// Cold start of the bundled action: wall time of one full run (a fresh annotated tag plus one storage record)
// as the runner starts it (a new node process on packages/action/dist/index.js), against the emulator running
// as its own process. Median of 20, beside bare `node` start-up and a run that only loads and validates.
// BENCH_NODE picks another node binary (for example Node 24). Prints figures and targets; asserts nothing.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BUNDLE_PATH, runBundledAction } from "../../packages/action/test/local-runner.js";
import { startEmulatorProcess } from "./emulator-process.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const node = process.env.BENCH_NODE ?? process.execPath;
const TARGET_MEDIAN_MS = 300;
const TARGET_BUNDLE_BYTES = 1.5 * 1024 * 1024;

// Runs back to back, three writes each, on purpose: over the service's 80 writes a minute from BENCH_RUNS=27 on.
const emulator = await startEmulatorProcess(["--rate-limit", "1000000", "--no-secondary-limits"]);
const workspace = mkdtempSync(join(tmpdir(), "shiplog-bench-"));
writeFileSync(join(workspace, "app.tgz"), "bench artifact\n");
const token = emulator.tokens.admin!;
let env: Record<string, string> = {};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function bareNode(): Promise<number> {
  const started = performance.now();
  // The same clean environment the action gets (the parent's NODE_OPTIONS would load tsx into it).
  await promisify(execFile)(node, ["-e", ""], { env: { PATH: process.env.PATH ?? "" } });
  return performance.now() - started;
}

const bare: number[] = [];
const validateOnly: number[] = [];
const full: number[] = [];
try {
  // The emulator runs as its own process: find a commit of acme/web through the API, as the workflow's GITHUB_SHA.
  const response = await fetch(`${emulator.url}/repos/acme/web/git/ref/heads/main`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`cannot read acme/web's main branch: ${response.status}`);
  const head = (await response.json()) as { object: { sha: string } };
  env = { GITHUB_SHA: head.object.sha, GITHUB_REPOSITORY: "acme/web", GITHUB_API_URL: emulator.url };
  // One warm-up of each, so the first measured run does not pay for the disk cache.
  await bareNode();
  await runBundledAction({
    inputs: { token, tag: "warm-up", "subject-path": "app.tgz", "registry-url": "https://registry.example/" },
    env,
    cwd: workspace,
    node,
  });
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    const invalid = await runBundledAction({ inputs: { token, tag: "bad..tag" }, env, cwd: workspace, node });
    if (invalid.exitCode !== 1) throw new Error("the validation-only run should fail on its bad tag");
    validateOnly.push(invalid.wallMs);
    const run = await runBundledAction({
      inputs: {
        token,
        tag: `v0.0.${i}`,
        "tag-message": `bench ${i}`,
        "subject-path": "app.tgz",
        "subject-version": `0.0.${i}`,
        "registry-url": "https://registry.example/",
      },
      env,
      cwd: workspace,
      node,
    });
    if (run.exitCode !== 0 || run.outputs["tag-outcome"] !== "created" || JSON.parse(run.outputs["storage-records"] ?? "[]").length !== 1) {
      throw new Error(`run ${i} failed: ${run.stdout}\n${run.stderr}`);
    }
    full.push(run.wallMs);
  }
} finally {
  await emulator.stop();
  rmSync(workspace, { recursive: true, force: true });
}

const bundleBytes = statSync(BUNDLE_PATH).size;
const m = median(full);
const nodeVersion = (await promisify(execFile)(node, ["--version"])).stdout.trim();
console.log(`action cold start, ${RUNS} runs each, node ${nodeVersion}`);
console.log(`  bare node start-up:              median ${median(bare).toFixed(1)} ms`);
console.log(`  load + validate (bad input):     median ${median(validateOnly).toFixed(1)} ms`);
console.log(
  `  full run (tag + 1 storage rec.): median ${m.toFixed(1)} ms, p90 ${pct(full, 90).toFixed(1)} ms, min ${Math.min(...full).toFixed(1)} ms, max ${Math.max(...full).toFixed(1)} ms`,
);
console.log(`  full run / bare node:            ${(m / median(bare)).toFixed(2)}x`);
console.log(
  `  target: median < ${TARGET_MEDIAN_MS} ms -> ${m < TARGET_MEDIAN_MS ? "met" : "MISSED"} (${((m / TARGET_MEDIAN_MS) * 100).toFixed(0)}% of target)`,
);
console.log(
  `  bundle: ${(bundleBytes / 1024).toFixed(0)} KiB (${bundleBytes} bytes); target < 1.5 MiB -> ${bundleBytes < TARGET_BUNDLE_BYTES ? "met" : "MISSED"} (${((bundleBytes / TARGET_BUNDLE_BYTES) * 100).toFixed(0)}% of target)`,
);
