import Fastify from "fastify";
import type { Server } from "node:http";
import type { TransportClock } from "@shiplog/client";
import { ClusterClock } from "./cluster-clock.js";
import { ConnectionGate } from "./connection-gate.js";
import { ControlLoop } from "./control-loop.js";
import { ClusterFaults, FaultState } from "./faults.js";
import { GarbageCollector } from "./garbage-collector.js";
import { ImageRegistry } from "./image-digests.js";
import { cloneObject } from "./kube-object.js";
import type { KubeconfigObject } from "./kubeconfig.js";
import { kubeconfigFor } from "./kubeconfig.js";
import { Kubelet } from "./kubelet.js";
import { ListPages } from "./list-pages.js";
import { NameGenerator } from "./name-generator.js";
import type { ObjectOf } from "./object-kinds.js";
import { ObjectStore } from "./object-store.js";
import { RequestStats } from "./request-stats.js";
import type { ResourceName } from "./resource-kinds.js";
import { isResourceName } from "./resource-kinds.js";
import { MAX_REQUEST_BODY_BYTES, registerRoutes } from "./routes.js";
import { ClusterScript } from "./scripting.js";
import { parseFieldSelector, parseLabelSelector } from "./selectors.js";
import { WatchHub } from "./watch-stream.js";
import { WorkloadSimulator } from "./workload-simulator.js";

/** Options of startFakeCluster. */
export interface FakeClusterOptions {
  /** Port on 127.0.0.1 (0 = any free port). */
  port?: number;
  /** Simulated node names (default node-1..node-3). */
  nodes?: string[];
  /** Watch history events kept; older resourceVersions get 410 Expired (default 100000). */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60000). */
  bookmarkIntervalMs?: number;
  /** Seed of generated names and uids (default 1). */
  seed?: number;
  /** fastify request logging (default false). */
  logger?: boolean;
  /**
   * The cluster's time and waits (timestamps, Table ages, watch timeouts and BOOKMARKs, reopening connections);
   * default the system clock. A test passes a virtual clock to run the cluster with no real waits.
   */
  clock?: TransportClock;
}

/** Read access to the cluster's objects, for assertions (results are copies). */
export interface ClusterStore {
  get<R extends ResourceName>(resource: R, namespace: string | undefined, name: string): ObjectOf<R> | undefined;
  list<R extends ResourceName>(
    resource: R,
    options?: { namespace?: string; labelSelector?: string; fieldSelector?: string },
  ): ObjectOf<R>[];
  count(resource: ResourceName): number;
  resourceVersion(): string;
}

/** A running fake cluster. */
export interface FakeCluster {
  url: string;
  port: number;
  /** Kubeconfig YAML for KubeConfig.loadFromString. */
  kubeconfig: string;
  kubeconfigObject: KubeconfigObject;
  script: ClusterScript;
  faults: ClusterFaults;
  store: ClusterStore;
  /** Resolves when controllers, GC and kubelet have nothing left to do. */
  settle(): Promise<void>;
  /** Open watch streams (of one resource or all). */
  watches(resource?: ResourceName): number;
  /** Resolves once at least `count` watch streams of `resource` are open. */
  waitForWatches(resource: ResourceName | undefined, count?: number): Promise<void>;
  /** List/watch request counters per resource. */
  stats(): { lists: Partial<Record<ResourceName, number>>; watches: Partial<Record<ResourceName, number>> };
  /** Sends a BOOKMARK now on every watch opened with allowWatchBookmarks=true. */
  sendBookmarks(): void;
  /** imageID the kubelet reports for `image` now. */
  imageIdFor(image: string): string;
  stop(): Promise<void>;
}

const HOST = "127.0.0.1";

function validateOptions(options: FakeClusterOptions): void {
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535))
    throw new TypeError(`port: must be an integer 0-65535, got ${options.port}`);
  if (options.historyLimit !== undefined && (!Number.isInteger(options.historyLimit) || options.historyLimit < 1))
    throw new TypeError(`historyLimit: must be a positive integer, got ${options.historyLimit}`);
  if (options.bookmarkIntervalMs !== undefined && !(options.bookmarkIntervalMs > 0))
    throw new TypeError(`bookmarkIntervalMs: must be positive, got ${options.bookmarkIntervalMs}`);
  const clock = options.clock as Partial<TransportClock> | undefined;
  if (clock !== undefined && (typeof clock?.now !== "function" || typeof clock.sleep !== "function"))
    throw new TypeError("clock: must be a TransportClock (now() and sleep(ms, signal) functions)");
  for (const n of options.nodes ?? [])
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n))
      throw new TypeError(`nodes: "${n}" is not a valid node name (lowercase RFC 1123 subdomain)`);
}

/** Starts a fake Kubernetes API server on 127.0.0.1 with simulated nodes, controllers and kubelet. */
export async function startFakeCluster(options: FakeClusterOptions = {}): Promise<FakeCluster> {
  validateOptions(options);
  const nodes = options.nodes ?? ["node-1", "node-2", "node-3"];
  const names = new NameGenerator(options.seed ?? 1);
  const clock = new ClusterClock(options.clock);
  const store = new ObjectStore(names, options.historyLimit ?? 100_000, clock);
  const loop = new ControlLoop((error, item) => console.error(`fake-cluster: reconcile ${item} failed:`, error));
  const gc = new GarbageCollector(store, loop);
  const images = new ImageRegistry();
  const kubelet = new Kubelet(store, loop, images, nodes);
  const workloads = new WorkloadSimulator(store, loop, gc, names);
  const faultState = new FaultState();
  const pages = new ListPages(store);
  const watchHub = new WatchHub(store, pages, faultState, options.bookmarkIntervalMs ?? 60_000);
  loop.slowDownWhile(() => watchHub.backedUp());
  const stats = new RequestStats();

  for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) store.create("namespaces", { metadata: { name: ns } });
  nodes.forEach((name, i) => {
    store.create("nodes", {
      metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" } },
      spec: {},
      status: {
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }],
        addresses: [
          { type: "InternalIP", address: `10.0.0.${10 + i}` },
          { type: "Hostname", address: name },
        ],
        nodeInfo: {
          kubeletVersion: "v1.31.0",
          containerRuntimeVersion: "containerd://1.7.0",
          operatingSystem: "linux",
          architecture: "amd64",
        },
      },
    });
  });

  const app = Fastify({ logger: options.logger ?? false, routerOptions: { maxParamLength: 4096 }, bodyLimit: MAX_REQUEST_BODY_BYTES });
  registerRoutes(app, { store, pages, gc, watches: watchHub, faults: faultState, stats });
  await app.ready();
  const gate = new ConnectionGate(app.server as Server, HOST, options.port ?? 0, clock);
  const port = await gate.listen();
  const url = `http://${HOST}:${port}`;
  const kubeconfig = kubeconfigFor(url);
  const script = new ClusterScript(store, loop, gc, kubelet, workloads, images);
  await loop.settle();

  const storeView: ClusterStore = {
    get: (resource, namespace, name) => {
      if (!isResourceName(resource)) throw new TypeError(`resource: unknown resource "${String(resource)}"`);
      const obj = store.get(resource, namespace, name);
      return obj && cloneObject(obj);
    },
    list: (resource, opts = {}) => {
      if (!isResourceName(resource)) throw new TypeError(`resource: unknown resource "${String(resource)}"`);
      const filter = {
        namespace: opts.namespace,
        labels: parseLabelSelector(opts.labelSelector),
        fields: parseFieldSelector(opts.fieldSelector),
      };
      // Fresh copies from the stored JSON text.
      return pages.read({ resource, filter, limit: 0 }).items.map((json) => JSON.parse(json) as ObjectOf<typeof resource>);
    },
    count: (resource) => store.count(resource),
    resourceVersion: () => String(store.currentRv()),
  };

  let stopped = false;
  return {
    url,
    port,
    kubeconfig: kubeconfig.yaml,
    kubeconfigObject: kubeconfig.object,
    script,
    faults: new ClusterFaults(faultState, watchHub, store, gate),
    store: storeView,
    settle: () => loop.settle(),
    watches: (resource) => watchHub.count(resource),
    waitForWatches: (resource, count = 1) => watchHub.waitFor(resource, count),
    stats: () => stats.snapshot(),
    sendBookmarks: () => watchHub.sendBookmarks(),
    imageIdFor: (image) => images.imageIdFor(image),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      loop.stop();
      watchHub.closeAll();
      await gate.shutdown();
      await app.close();
    },
  };
}
