#!/usr/bin/env node
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { startAdminServer } from "./admin-server.js";
import { seedDemoWorkloads } from "./demo-workloads.js";
import { startFakeCluster } from "./fake-cluster.js";
import { WorkloadFleet } from "./workload-fleet.js";

const usage = `usage: shiplog-fake-cluster [--port N] [--nodes a,b,c] [--seed] [--kubeconfig-out PATH] [--log]
                            [--workloads N | --pods N] [--replicas N] [--containers N] [--namespaces N]
                            [--annotation KEY=V1,V2...]... [--history-limit N] [--admin-port N]`;

/** A flag the user got wrong: one line naming it and the rule, exit 64. */
class UsageError extends Error {}

function integer(name: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new UsageError(`--${name}: must be an integer ${min}-${max}, got "${text}"`);
  return value;
}

function annotations(texts: string[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const text of texts ?? []) {
    const eq = text.indexOf("=");
    if (eq <= 0) throw new UsageError(`--annotation: must be KEY=VALUE[,VALUE...], got "${text}"`);
    out[text.slice(0, eq)] = text.slice(eq + 1).split(",");
  }
  return out;
}

function options() {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      nodes: { type: "string" },
      seed: { type: "boolean", default: false },
      "kubeconfig-out": { type: "string" },
      log: { type: "boolean", default: false },
      workloads: { type: "string" },
      pods: { type: "string" },
      replicas: { type: "string" },
      containers: { type: "string" },
      namespaces: { type: "string" },
      annotation: { type: "string", multiple: true },
      "history-limit": { type: "string" },
      "admin-port": { type: "string", default: "0" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.workloads !== undefined && values.pods !== undefined) throw new UsageError("--workloads, --pods: give one of them");
  const replicas = integer("replicas", values.replicas, 0, 10_000) ?? 3;
  const pods = integer("pods", values.pods, 0, 10_000_000);
  const fromPods = pods === undefined ? 0 : Math.ceil(pods / Math.max(1, replicas));
  const workloads = integer("workloads", values.workloads, 0, 10_000_000) ?? fromPods;
  return {
    help: values.help,
    port: integer("port", values.port, 0, 65535)!,
    adminPort: integer("admin-port", values["admin-port"], 0, 65535)!,
    nodes: values.nodes
      ?.split(",")
      .map((n) => n.trim())
      .filter((n) => n !== ""),
    seed: values.seed,
    kubeconfigOut: values["kubeconfig-out"],
    log: values.log,
    historyLimit: integer("history-limit", values["history-limit"], 1),
    fleet: {
      workloads,
      replicas,
      containers: integer("containers", values.containers, 1, 100) ?? 3,
      namespaces: integer("namespaces", values.namespaces, 1, 100_000) ?? 30,
      annotations: annotations(values.annotation),
    },
  };
}

/**
 * The heap is mostly long-lived JSON text that dies in bulk (object versions leaving the history window). V8 lets
 * old space grow to several times the live heap between full collections by default (at 150,000 pods: 0.9 GB live,
 * 2.6 GB resident); a growth factor of 1.5 keeps the process near its live size for a few percent more CPU. A
 * `--heap-growing-percent` given to node (or in NODE_OPTIONS) wins.
 */
const HEAP_GROWING_PERCENT = 50;

async function main(): Promise<void> {
  if (![...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => a.includes("heap-growing-percent"))) {
    v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
  let o: ReturnType<typeof options>;
  try {
    o = options();
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (o.help) {
    console.log(usage);
    return;
  }
  const cluster = await startFakeCluster({
    port: o.port,
    logger: o.log,
    ...(o.nodes ? { nodes: o.nodes } : {}),
    ...(o.historyLimit ? { historyLimit: o.historyLimit } : {}),
  });
  if (o.seed) await seedDemoWorkloads(cluster.script);
  // Without --workloads/--pods there is no fleet until POST /fleet (e.g. once a benchmark's watches are open).
  const fleet = o.fleet.workloads > 0 ? new WorkloadFleet(cluster, o.fleet) : undefined;
  const admin = await startAdminServer(cluster, fleet, o.adminPort);
  const shutdown = () => {
    void admin.app
      .close()
      .then(() => cluster.stop())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  const built = fleet ? await fleet.build() : {};
  if (o.kubeconfigOut) await writeFile(o.kubeconfigOut, cluster.kubeconfig, { mode: 0o600 });
  const ready = { url: cluster.url, kubeconfig: o.kubeconfigOut ?? null, admin: admin.url, pid: process.pid, ...built };
  console.log(JSON.stringify({ ...ready, pods: cluster.store.count("pods") }));
}

main().catch((error: unknown) => {
  console.error(`shiplog-fake-cluster: ${(error as Error).message}`);
  process.exit(1);
});
