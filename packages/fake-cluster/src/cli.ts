#!/usr/bin/env node
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { seedDemoWorkloads } from "./demo-workloads.js";
import { startFakeCluster } from "./fake-cluster.js";

const usage = "usage: shiplog-fake-cluster [--port N] [--nodes a,b,c] [--seed] [--kubeconfig-out PATH] [--log]";

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string", default: "0" },
        nodes: { type: "string" },
        seed: { type: "boolean", default: false },
        "kubeconfig-out": { type: "string" },
        log: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(64);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port: must be an integer 0-65535, got "${values.port}"\n${usage}`);
    process.exit(64);
  }
  const nodes = values.nodes?.split(",").map((n) => n.trim()).filter((n) => n !== "");
  const cluster = await startFakeCluster({ port, logger: values.log, ...(nodes ? { nodes } : {}) });
  if (values.seed) await seedDemoWorkloads(cluster.script);
  if (values["kubeconfig-out"]) await writeFile(values["kubeconfig-out"], cluster.kubeconfig, { mode: 0o600 });
  console.log(JSON.stringify({ url: cluster.url, kubeconfig: values["kubeconfig-out"] ?? null, pods: cluster.store.count("pods") }));
  const shutdown = () => {
    void cluster.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  console.error(`shiplog-fake-cluster: ${(error as Error).message}`);
  process.exit(1);
});
