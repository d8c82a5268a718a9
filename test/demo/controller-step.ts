// The platform team's view: the controller keeps deployment records true while the cluster changes.
import { KubeConfig } from "@kubernetes/client-node";
import { buildController, loadConfig, type Controller } from "@shiplog/controller";
import type { Emulator } from "@shiplog/emulator";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { printTable } from "./table.js";

const CLUSTER = "demo-eu-1";
const FLUSH_MS = 250;

/** Waits until the controller has synced, sent everything pending, and ticked twice since `since`. */
async function settled(controller: Controller, since: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = controller.status();
    if (s.synced && s.pending === 0 && s.lastTickAt > since + 2 * FLUSH_MS) return;
    if (Date.now() > deadline) throw new Error(`controller did not settle: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function printRecords(emulator: Emulator, title: string): void {
  const records = emulator.state.artifacts
    .deploymentRecords({ cluster: CLUSTER })
    .sort((a, b) => a.deployment_name.localeCompare(b.deployment_name));
  printTable(
    title,
    records.map((r) => ({
      deployment_name: r.deployment_name,
      artifact: r.name,
      version: r.version ?? "",
      digest: `${r.digest.slice(0, 19)}…`,
      status: r.status,
      updated: r.updated_at,
    })),
  );
}

/** Runs the controller against the fake cluster and steps the cluster through a rollout, a scale-down and a delete. */
export async function runControllerStep(emulator: Emulator, cluster: FakeCluster): Promise<void> {
  const config = loadConfig(
    [
      "--api-url",
      emulator.url,
      "--org",
      "acme",
      "--cluster",
      CLUSTER,
      "--logical-environment",
      "production",
      "--physical-environment",
      "eu-west-1",
      "--flush-window",
      "50ms",
      "--flush-max-wait",
      `${FLUSH_MS}ms`,
      "--http-port",
      "off",
    ],
    { SHIPLOG_TOKEN: emulator.tokens.installation! },
  );
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  const controller = buildController(config, { kubeConfig, logger: pino({ level: "silent" }) });

  const repo = (name: string) => ({ "shiplog.dev/repository": name });
  await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2, annotations: repo("web") });
  await cluster.script.createDeployment({
    namespace: "shop",
    name: "api",
    image: "ghcr.io/acme/api:2.4.0",
    replicas: 3,
    annotations: repo("api"),
  });
  await cluster.script.createStatefulSet({
    namespace: "data",
    name: "postgres",
    image: "postgres:16.4",
    replicas: 1,
    annotations: repo("infra"),
  });

  let since = Date.now();
  await controller.start();
  try {
    await settled(controller, since);
    printRecords(emulator, "Cold start: the controller records what runs (3 workloads)");

    since = Date.now();
    await cluster.script.setImage("shop", "web", "nginx:1.27");
    await settled(controller, since);
    printRecords(emulator, "Rollout of shop/web to nginx:1.27: the same record now holds the new digest");

    since = Date.now();
    await cluster.script.scale("deployments", "shop", "api", 0);
    await settled(controller, since);
    printRecords(emulator, "shop/api scaled to zero: decommissioned");

    since = Date.now();
    await cluster.script.delete("statefulsets", "data", "postgres", { propagationPolicy: "Foreground" });
    await settled(controller, since);
    printRecords(emulator, "data/postgres deleted (foreground): decommissioned");

    const s = controller.status();
    console.log(`\ncontroller: ${s.requests} requests carried ${s.recordsSent} record changes; ${s.pending} pending`);
  } finally {
    await controller.stop();
  }
}
