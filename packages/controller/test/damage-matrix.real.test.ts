// The damage matrix on a real control plane (test/kit/control-plane.ts: the real API server and etcd, the real garbage
// collector and Deployment controller, pods run by KWOK): every corruption of the acknowledged state, one cell each,
// with its deletion, scale to zero and rollout while no controller runs. The controller is a process
// (`node dist/main.js`) with the admin kubeconfig, the emulator is the service; each cell has its own namespace (its
// workloads and its state ConfigMaps) and its own record cluster. The cells, their run, the printed matrix and the
// verdict (0 stale, or the damage reported naming what is at risk) are damage-matrix-harness.ts's, as on the fake
// cluster in damage-matrix.integration.test.ts.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { startControlPlane, type ControlPlane } from "../../../test/kit/control-plane.js";
import { pool } from "../../../test/kit/pool.js";
import { WAIT } from "../../../test/kit/wait.js";
import {
  chosenDamages,
  expectDamageMatrix,
  printDamageMatrix,
  runDamageCell,
  type Damage,
  type DamageWorld,
} from "./damage-matrix-harness.js";
import { expectedRecords, REPO, sorted, type ClusterObjects } from "./scenario-harness.js";

/** Cells at once: each is a controller process and a few pods on a machine the API server and etcd share. */
const PARALLEL = 3;
const DEADLINE_MS = 90_000;
const RESOURCES = { pods: "/api/v1", replicasets: "/apis/apps/v1", deployments: "/apis/apps/v1" } as const;

let plane: ControlPlane;
let emulator: Emulator;
const processes: ControllerProcess[] = [];
beforeAll(async () => {
  [plane, emulator] = await Promise.all([startControlPlane({ nodes: 2 }), startEmulator({ port: 0 })]);
}, 180_000);
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await emulator?.stop();
  await plane?.stop();
});

const kubectl = (args: string[], input?: string): Promise<string> => plane.kubectlOut(args, input);

/** The image of `name` at `version`, by digest: KWOK reports a pod's image as its imageID, so the digest is in it. */
const digestOf = (name: string, version: string) => `sha256:${createHash("sha256").update(`${name}:${version}`).digest("hex")}`;
const image = (name: string, version: string) => `registry.example.com/acme/${name}@${digestOf(name, version)}`;

/** The namespace's pods, ReplicaSets and Deployments as the API server holds them now. */
async function objects(ns: string): Promise<ClusterObjects> {
  const byResource = new Map<string, { metadata: { namespace?: string; name?: string; deletionTimestamp?: string } }[]>();
  for (const [resource, group] of Object.entries(RESOURCES)) {
    const { status, body } = await plane.api<{ items: never[] }>("GET", `${group}/namespaces/${ns}/${resource}`);
    if (status !== 200) throw new Error(`listing ${resource} in ${ns}: ${status}`);
    byResource.set(resource, body.items);
  }
  return {
    list: (resource) => byResource.get(resource) ?? [],
    get: (resource, namespace, name) =>
      (byResource.get(resource) ?? []).find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
  };
}

/** A cell's namespace on the control plane, recorded as cluster `ns`. */
async function realWorld(ns: string): Promise<DamageWorld> {
  await kubectl(["create", "namespace", ns]);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(plane.kubeconfig);
  const kubeconfigText = readFileSync(plane.kubeconfig, "utf8");
  const record = (workload: string) => `${ns}-${workload}-app`;
  /** What the namespace should run once the cluster has acted: record name -> digest. */
  const want = new Map<string, string>();
  const expected = async () => expectedRecords(await objects(ns));
  return {
    ns,
    api: kubeConfig.makeApiClient(CoreV1Api),
    async createWorkload(name, version) {
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name, annotations: REPO },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: image(name, version) }] } },
        },
      };
      await kubectl(["--namespace", ns, "apply", "-f", "-"], JSON.stringify(deployment));
      want.set(record(name), digestOf(name, version));
      // Running before the next step, as the fake cluster's createDeployment waits: else "nothing runs" would match.
      await vi.waitFor(async () => expect((await expected()).get(record(name))).toBe(digestOf(name, version)), {
        ...WAIT,
        timeout: DEADLINE_MS,
      });
    },
    async deleteWorkload(name) {
      await kubectl(["--namespace", ns, "delete", "deployment", name, "--wait=false"]);
      want.delete(record(name));
    },
    async scaleToZero(name) {
      await kubectl(["--namespace", ns, "scale", `deployment/${name}`, "--replicas=0"]);
      want.delete(record(name));
    },
    async roll(name, version) {
      await kubectl(["--namespace", ns, "set", "image", `deployment/${name}`, `app=${image(name, version)}`]);
      want.set(record(name), digestOf(name, version));
      return digestOf(name, version);
    },
    async settle() {
      // The garbage collector, the ReplicaSets and KWOK have acted: what runs is what is wanted, no pod is going away.
      await vi.waitFor(
        async () => {
          const pods = (await objects(ns)).list("pods") as { metadata: { deletionTimestamp?: string } }[];
          expect(pods.filter((p) => p.metadata.deletionTimestamp)).toEqual([]);
          expect(sorted(await expected())).toEqual(sorted(want));
        },
        { ...WAIT, timeout: DEADLINE_MS },
      );
    },
    expected,
    deployed: () => {
      const out = new Map<string, string>();
      for (const r of emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: ns }))
        if (r.status === "deployed") out.set(r.deployment_name, r.digest);
      return out;
    },
    startController(pod, env) {
      const p = startControllerProcess({ kubeconfig: kubeconfigText }, emulator, {
        SHIPLOG_CLUSTER: ns,
        SHIPLOG_NAMESPACES: ns,
        POD_NAME: pod,
        ...env,
      });
      processes.push(p);
      return p;
    },
  };
}

describe("damage matrix on a real control plane (controller processes, kill -9, damaged state)", () => {
  it("each corruption × deletion, scale to zero, rollout while down: 0 stale, or the damage reported naming what is at risk", async () => {
    // SHIPLOG_DAMAGE_CELLS="deleted shard,deleted head" runs only those cells.
    const results = await pool(
      chosenDamages().map((d: Damage, i) => async () => runDamageCell(await realWorld(`damage-${i}`), d, DEADLINE_MS)),
      PARALLEL,
    );
    printDamageMatrix("damage matrix on a real control plane (emulator records vs the API server's objects after the restart):", results);
    expectDamageMatrix(results);
  }, 900_000);
});
