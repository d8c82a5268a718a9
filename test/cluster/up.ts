// `pnpm cluster:up [--kubeconfig-out FILE] [--nodes N]`: a real control plane on loopback in the foreground, until
// Ctrl-C. Writes an admin kubeconfig to FILE (default ./kubeconfig.shiplog-test) and removes everything on exit.
import { writeFileSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startControlPlane } from "../kit/control-plane.js";
import { ClusterToolsError } from "./tools.js";

const USAGE = "usage: pnpm cluster:up [--kubeconfig-out FILE] [--nodes N]";
let values: { "kubeconfig-out"?: string; nodes?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { "kubeconfig-out": { type: "string" }, nodes: { type: "string" }, help: { type: "boolean", short: "h" } },
  }));
} catch (error) {
  console.error(`cluster:up: ${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const nodes = values.nodes === undefined ? 3 : Number(values.nodes);
if (!Number.isInteger(nodes) || nodes < 1) {
  console.error(`cluster:up: --nodes must be a whole number of at least 1, got ${values.nodes}`);
  process.exit(2);
}
const out = resolve(values["kubeconfig-out"] ?? "kubeconfig.shiplog-test");

const started = Date.now();
try {
  const plane = await startControlPlane({ nodes, onStep: (step) => console.error(`cluster:up: starting ${step}`) });
  writeFileSync(out, readFileSync(plane.kubeconfig), { mode: 0o600 });
  console.log(`cluster:up: ready in ${((Date.now() - started) / 1000).toFixed(1)} s; API server ${plane.server}, ${nodes} KWOK nodes`);
  console.log(`cluster:up: kubectl --kubeconfig ${out} get nodes   (kubectl ${plane.tools.kubectl})`);
  console.log("cluster:up: Ctrl-C stops it and removes its data");
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await plane.stop();
    rmSync(out, { force: true });
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
} catch (error) {
  console.error(`cluster:up: ${error instanceof ClusterToolsError ? error.message : (error as Error).message}`);
  process.exit(1);
}
