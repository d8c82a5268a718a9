// The controller watching many named namespaces (SHIPLOG_NAMESPACES): up to MAX_NAMESPACED_WATCHES it opens a
// list-watch per kind and namespace; above, one cluster-wide list-watch per kind that keeps only the named
// namespaces' objects. For 0 (cluster-wide), the bound, 1,000 and 10,000 names, side by side: time from start to
// "caches synced", the Kubernetes requests made, peak RSS, and the records posted. A fake cluster with 200 namespaces
// of 2 Deployments each (800 pods); the names are its namespaces first, then names of namespaces that do not exist.
//   npx tsx test/bench/namespace-count.ts
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { MAX_NAMESPACED_WATCHES } from "@shiplog/controller/internal";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { startControllerProcess } from "../kit/controller-process.js";
import { startProxy } from "../kit/proxy.js";

const NAMESPACES = 200;
const COUNTS = [0, MAX_NAMESPACED_WATCHES, 1_000, 10_000];

function rssMb(pid: number | undefined): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

const cluster = await startFakeCluster({ nodes: ["node-1", "node-2", "node-3", "node-4", "node-5", "node-6", "node-7", "node-8"] });
const existing = Array.from({ length: NAMESPACES }, (_, i) => `team-${i}`);
await cluster.script.createDeployments(
  existing.flatMap((namespace) =>
    ["web", "api"].map((name) => ({
      namespace,
      name,
      replicas: 2,
      image: `ghcr.io/acme/${name}:1.0`,
      annotations: { "shiplog.dev/repository": name },
    })),
  ),
);
const rows: string[][] = [["names", "watches per kind", "caches synced", "k8s requests", "peak RSS", "records"]];
for (const count of COUNTS) {
  const names = [...existing, ...Array.from({ length: Math.max(0, count - NAMESPACES) }, (_, i) => `absent-${i}`)].slice(0, count);
  const emulator = await startEmulator({ port: 0 });
  const proxy = await startProxy(cluster.url);
  const started = Date.now();
  let synced = 0;
  const controller = startControllerProcess(
    { kubeconfig: proxy.kubeconfigFor(cluster.kubeconfig, cluster.url) },
    emulator,
    {
      ...(count > 0 ? { SHIPLOG_NAMESPACES: names.join(",") } : {}),
      SHIPLOG_LOG_LEVEL: "info",
    },
    {
      onLine: (line) => {
        if (!synced && line.includes("caches synced: desired state computed")) synced = Date.now();
      },
    },
  );
  let peak = 0;
  const expected = Math.min(count || NAMESPACES, NAMESPACES) * 2;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    peak = Math.max(peak, rssMb(controller.child.pid));
    if (synced && emulator.state.artifacts.countDeployments({ org: "acme" }).by_status.deployed >= expected) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const records = emulator.state.artifacts.countDeployments({ org: "acme" }).by_status.deployed;
  rows.push([
    String(count || "all (cluster-wide)"),
    count > 0 && count <= MAX_NAMESPACED_WATCHES ? String(count) : "1",
    synced ? `${((synced - started) / 1000).toFixed(2)} s` : "not within 300 s",
    String(proxy.requests.length),
    `${peak.toFixed(0)} MB`,
    `${records} of ${expected}`,
  ]);
  await controller.stop();
  await proxy.close();
  await emulator.stop();
}
await cluster.stop();
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
console.log(
  `namespace-count: ${NAMESPACES} namespaces, 800 pods; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
