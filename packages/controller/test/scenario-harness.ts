// Runs the real controller against the real fake cluster and the real emulator over loopback, and computes the
// records the cluster should have from the fake cluster's objects, independently of the controller's code.
import { KubeConfig } from "@kubernetes/client-node";
import {
  buildController,
  loadConfig,
  type AcknowledgedStore,
  type Clock,
  type Controller,
  type ControllerConfig,
} from "@shiplog/controller";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster, type KubeObject } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { CLUSTER, ORG } from "../../../test/kit/controller-process.js";
import { WAIT } from "../../../test/kit/wait.js";

export { CLUSTER, ORG } from "../../../test/kit/controller-process.js";
export const REPO = { "shiplog.dev/repository": "web" };

export interface Harness {
  cluster: FakeCluster;
  emulator: Emulator;
  controller: Controller;
  config: ControllerConfig;
  stop(): Promise<void>;
}

/** Options of a controller started by the harness. */
export interface ControllerStartOptions {
  flags?: string[];
  env?: Record<string, string>;
  store?: AcknowledgedStore;
  /** The controller's clock (a test's virtual clock); default the system clock. */
  clock?: Clock;
}

/** Starts a fake cluster, an emulator and a controller with fast timings. */
export async function startHarness(
  options: ControllerStartOptions & { beforeStart?: (cluster: FakeCluster, emulator: Emulator) => Promise<void>; faultSeed?: number } = {},
): Promise<Harness> {
  const cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
  const emulator = await startEmulator({ port: 0, ...(options.faultSeed !== undefined ? { faultSeed: options.faultSeed } : {}) });
  await options.beforeStart?.(cluster, emulator);
  const { controller, config } = await startController(cluster, emulator, options);
  const h: Harness = {
    cluster,
    emulator,
    controller,
    config,
    async stop() {
      await h.controller.stop();
      await emulator.stop();
      await cluster.stop();
    },
  };
  return h;
}

/** Starts (another) controller with fast timings against a running fake cluster and emulator. */
export async function startController(
  cluster: FakeCluster,
  emulator: Emulator,
  options: ControllerStartOptions = {},
): Promise<{ controller: Controller; config: ControllerConfig }> {
  const config = loadConfig(
    [
      "--api-url",
      emulator.url,
      "--org",
      ORG,
      "--cluster",
      CLUSTER,
      "--logical-environment",
      "production",
      "--physical-environment",
      "eu-west-1",
      "--flush-window",
      "20ms",
      "--flush-max-wait",
      "100ms",
      "--retry-min-delay",
      "50ms",
      "--retry-max-delay",
      "400ms",
      "--request-timeout",
      "2s",
      "--watch-timeout",
      "30s",
      "--http-port",
      "off",
      ...(options.flags ?? []),
    ],
    { SHIPLOG_TOKEN: emulator.tokens.admin!, ...(options.env ?? {}) },
  );
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
  const logger = pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" });
  const controller = buildController(config, {
    kubeConfig,
    logger,
    ...(options.store ? { store: options.store } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await controller.start();
  return { controller, config };
}

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

function controllerRef(obj: Obj): { kind: string; name: string; uid?: string } | undefined {
  return (obj.metadata.ownerReferences as { kind: string; name: string; uid?: string; controller?: boolean }[] | undefined)?.find(
    (r) => r.controller,
  );
}

const RESOURCE: Record<string, string> = {
  ReplicaSet: "replicasets",
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  DaemonSet: "daemonsets",
  Job: "jobs",
  CronJob: "cronjobs",
};

/** A cluster's objects by resource (`pods`, `replicasets`, ...): the fake cluster's store, or a real API server's lists. */
export interface ClusterObjects {
  list(resource: string): unknown[];
  get(resource: string, namespace: string | undefined, name: string): unknown;
}

/**
 * What the cluster runs now, as deployment name -> digest: every running container of every Running pod whose
 * owner chain exists, is not being deleted and is not scaled to zero. Written plainly on purpose.
 */
export function expectedRecords(cluster: FakeCluster | ClusterObjects): Map<string, string> {
  const objects: ClusterObjects = "store" in cluster ? (cluster.store as unknown as ClusterObjects) : cluster;
  const expected = new Map<string, string>();
  for (const pod of objects.list("pods") as Obj[]) {
    if (pod.metadata.deletionTimestamp || pod.status?.phase !== "Running") continue;
    let top: Obj = pod;
    let live = true;
    for (let ref = controllerRef(pod); ref; ref = controllerRef(top)) {
      const owner = objects.get(RESOURCE[ref.kind]!, pod.metadata.namespace, ref.name) as Obj | undefined;
      if (!owner || owner.metadata.deletionTimestamp || (owner.spec?.replicas as number | undefined) === 0) {
        live = false;
        break;
      }
      top = owner;
    }
    if (!live) continue;
    const statuses = [
      ...((pod.status?.containerStatuses as { name: string; imageID?: string; state?: { running?: unknown } }[]) ?? []),
      ...((pod.status?.initContainerStatuses as { name: string; imageID?: string; state?: { running?: unknown } }[]) ?? []),
    ];
    for (const status of statuses) {
      if (!status.state?.running || !status.imageID) continue;
      expected.set(
        `${pod.metadata.namespace}-${top.metadata.name}-${status.name}`,
        status.imageID.slice(status.imageID.lastIndexOf("@") + 1),
      );
    }
  }
  return expected;
}

/** The emulator's deployed records of the test cluster, as deployment name -> digest. */
export function deployedRecords(emulator: Emulator): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER }))
    if (r.status === "deployed") out.set(r.deployment_name, r.digest);
  return out;
}

/** The emulator's record for one deployment name. */
export function recordOf(emulator: Emulator, deploymentName: string) {
  return emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER }).find((r) => r.deployment_name === deploymentName);
}

/** Entries in key order, to compare maps. */
export function sorted(map: Map<string, string>): [string, string][] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** Waits until the emulator's deployed records equal what the cluster runs (and that is not trivially empty unless allowed). */
export async function converged(h: Harness, options: { allowEmpty?: boolean; timeoutMs?: number } = {}): Promise<Map<string, string>> {
  const { expect, vi } = await import("vitest");
  let expected = new Map<string, string>();
  await vi.waitFor(
    () => {
      expected = expectedRecords(h.cluster);
      if (!options.allowEmpty) expect(expected.size).toBeGreaterThan(0);
      expect(sorted(deployedRecords(h.emulator))).toEqual(sorted(expected));
    },
    { ...WAIT, ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}) },
  );
  return expected;
}

/** The value of one of the in-process controller's metrics, summed over the label sets matching `labels`. */
export async function metricValue(h: Harness, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await h.controller.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}
