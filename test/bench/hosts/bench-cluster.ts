// The cluster the controller benchmark runs against, whichever it is: the fake cluster (its own process, driven over
// IPC: hosts/fake-cluster-host.ts) or a real control plane (hosts/real-cluster.ts). The benchmark scripts the same
// workloads and changes through this, and reads what the cluster runs from it.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { peakRss, startHost } from "./ipc.js";
import type { Spec } from "./workloads.js";

/** A request to the API server as its admin (a watch streams): the path with its query. */
export type ClusterGet = (path: string, init?: { signal?: AbortSignal }) => Promise<Response>;

/** A workload's new images, by container. */
export interface ImageChange {
  namespace: string;
  name: string;
  images: Record<string, string>;
}

/** The state ConfigMap as the benchmark reports it: its data and its size in bytes. */
export interface StateConfigMap {
  data: Record<string, string>;
  bytes: number;
}

/** A running cluster of the benchmark. */
export interface BenchCluster {
  /** "fake" or "real". */
  kind: string;
  /** An admin kubeconfig (YAML) for the controller. */
  kubeconfig: string;
  get: ClusterGet;
  /** Creates the Deployments; resolves once their pods run, with the pods and containers the cluster runs. */
  createDeployments(specs: Spec[]): Promise<{ pods: number; containers: number }>;
  /** Sets images (the Deployments roll); resolves once the changes are accepted. */
  setImages(changes: ImageChange[]): Promise<void>;
  /** Deletes the Deployments; resolves once their pods are gone. */
  deleteDeployments(list: { namespace: string; name: string }[]): Promise<void>;
  /** The digest each image runs with. */
  digestsOf(images: string[]): Promise<string[]>;
  /** The cluster's resourceVersion now (to watch from). */
  resourceVersion(): Promise<string>;
  configMap(namespace: string, name: string): Promise<StateConfigMap | undefined>;
  /** Peak resident memory of the cluster's own processes so far, by name, in bytes. */
  peakMemory(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** The size of a ConfigMap's data and binary data, in bytes. */
export function configMapOf(cm: { data?: Record<string, string>; binaryData?: Record<string, string> }): StateConfigMap {
  const bytes =
    Object.values(cm.data ?? {}).reduce((n, v) => n + Buffer.byteLength(v), 0) +
    Object.values(cm.binaryData ?? {}).reduce((n, v) => n + Buffer.from(v, "base64").length, 0);
  return { data: cm.data ?? {}, bytes };
}

/** Starts the fake cluster in its own process, with `namespaces` created, for a benchmark of `pods` pods. */
export async function startFakeBenchCluster(pods: number, namespaces: string[]): Promise<BenchCluster> {
  // A heap cap scaled to the cluster (2.5 GB at 150,000 pods), so V8 collects rather than grows past the 3 GB target.
  const heapMb = Math.max(1024, Math.round((pods / 150_000) * 2560));
  const here = dirname(fileURLToPath(import.meta.url));
  const host = await startHost(join(here, "fake-cluster-host.ts"), [`--max-old-space-size=${heapMb}`]);
  const { url, kubeconfig } = await host.call<{ url: string; kubeconfig: string }>("start", {
    nodes: ["node-1", "node-2", "node-3", "node-4"],
    namespaces,
  });
  return {
    kind: "fake",
    kubeconfig,
    get: (path, init) => fetch(`${url}${path}`, init),
    async createDeployments(specs) {
      let built = { pods: 0, containers: 0 };
      for (let i = 0; i < specs.length; i += 5000) built = await host.call("createDeployments", specs.slice(i, i + 5000));
      return built;
    },
    setImages: (changes) => host.call("setImages", changes),
    deleteDeployments: (list) => host.call("deleteDeployments", list),
    digestsOf: (images) => host.call("digestsOf", images),
    resourceVersion: () => host.call("resourceVersion"),
    configMap: (namespace, name) => host.call("configMap", namespace, name),
    peakMemory: async () => ({ "fake cluster": await peakRss(host.child.pid) }),
    stop: () => host.stop(),
  };
}
