// The damage matrix on the fake cluster: the controller as its own process (`node dist/main.js`, state ConfigMap on,
// tiny state limits so a few records spread over several shard ConfigMaps) syncs seven workloads, is killed (kill -9),
// and its state is damaged in one way per cell; while no controller runs, one workload is deleted, one scaled to zero
// and one rolled to a new image; then the controller is restarted. Every cell must end with 0 stale records at the
// service, or with the damage reported: /readyz failing with what was lost, shiplog_controller_state_damaged 1, and
// shiplog_controller_state_records_at_risk at least the records left stale (what the alert ShiplogStateDamaged says).
// The cells, their run and their verdict are damage-matrix-harness.ts's, shared with damage-matrix.real.test.ts (the
// same on a real control plane). The pure decisions are unit-tested in state-recovery.test.ts, the store's handling of
// each corruption in state-damage.test.ts.
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { afterAll, describe, it } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { pool } from "../../../test/kit/pool.js";
import {
  chosenDamages,
  expectDamageMatrix,
  printDamageMatrix,
  runDamageCell,
  type Damage,
  type DamageWorld,
} from "./damage-matrix-harness.js";
import { deployedRecords, expectedRecords, REPO } from "./scenario-harness.js";

const NS = "shop";
const PARALLEL = 4;
const DEADLINE_MS = 60_000;

const processes: ControllerProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.stop()));
});

const image = (name: string, version: string) => `ghcr.io/acme/${name}:${version}`;

/** A fake cluster and an emulator of the cell's own. */
async function fakeWorld(): Promise<DamageWorld> {
  const cluster = await startFakeCluster({ nodes: ["node-1"] });
  const emulator = await startEmulator({ port: 0 });
  servers.push(cluster, emulator);
  await cluster.script.ensureNamespace(NS);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  return {
    ns: NS,
    api: kubeConfig.makeApiClient(CoreV1Api),
    createWorkload: async (name, version) => {
      await cluster.script.createDeployment({
        namespace: NS,
        name,
        containers: [{ name: "app", image: image(name, version) }],
        annotations: REPO,
      });
    },
    deleteWorkload: async (name) => {
      await cluster.script.delete("deployments", NS, name);
    },
    scaleToZero: async (name) => {
      await cluster.script.scale("deployments", NS, name, 0);
    },
    roll: async (name, version) => {
      await cluster.script.setImage(NS, name, { app: image(name, version) });
      return cluster.imageIdFor(image(name, version)).split("@")[1]!;
    },
    settle: () => cluster.settle(),
    expected: async () => expectedRecords(cluster),
    deployed: () => deployedRecords(emulator),
    startController: (pod, env) => {
      const p = startControllerProcess(cluster, emulator, { POD_NAME: pod, ...env });
      processes.push(p);
      return p;
    },
  };
}

describe("damage matrix (controller processes, kill -9, damaged state)", () => {
  it("each corruption × deletions, scale to zero, rollouts while down: 0 stale, or the damage reported naming what is at risk", async () => {
    // SHIPLOG_DAMAGE_CELLS="deleted shard,deleted head" runs only those cells.
    const results = await pool(
      chosenDamages().map((d: Damage) => async () => runDamageCell(await fakeWorld(), d, DEADLINE_MS)),
      PARALLEL,
    );
    printDamageMatrix("damage matrix (emulator records vs cluster after the restart):", results);
    expectDamageMatrix(results);
  }, 600_000);
});
