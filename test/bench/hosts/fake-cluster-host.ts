// The fake cluster in its own process, for test/bench/controller-sync.ts: builds the workloads, applies the changes
// the benchmark scripts, and answers what it needs to know (image digests, the state ConfigMap).
import { startFakeCluster, type FakeCluster, type WorkloadSpec } from "@shiplog/fake-cluster";
import { configMapOf } from "./bench-cluster.js";
import { serve } from "./ipc.js";

let cluster: FakeCluster | undefined;
const ready = (): FakeCluster => {
  if (!cluster) throw new Error("not started");
  return cluster;
};

serve({
  async start(options: { nodes: string[]; namespaces: string[] }) {
    cluster = await startFakeCluster({ nodes: options.nodes });
    for (const ns of options.namespaces) cluster.script.ensureNamespace(ns);
    return { url: cluster.url, kubeconfig: cluster.kubeconfig };
  },
  async createDeployments(specs: WorkloadSpec[]) {
    await ready().script.createDeployments(specs, { wait: false });
    await ready().settle();
    const pods = ready().store.list("pods");
    return { pods: pods.length, containers: pods.reduce((n, p) => n + (p.spec as { containers: unknown[] }).containers.length, 0) };
  },
  async setImages(changes: { namespace: string; name: string; images: Record<string, string> }[]) {
    for (const c of changes) await ready().script.setImage(c.namespace, c.name, c.images, { wait: false });
    await ready().settle();
  },
  async deleteDeployments(list: { namespace: string; name: string }[]) {
    for (const d of list) await ready().script.delete("deployments", d.namespace, d.name, { wait: false });
    await ready().settle();
  },
  /** The registry digest each image runs with. */
  digestsOf: (images: string[]) => images.map((image) => ready().imageIdFor(image).split("@")[1]!),
  resourceVersion: () => ready().store.resourceVersion(),
  configMap(namespace: string, name: string) {
    const cm = ready().store.get("configmaps", namespace, name) as
      | { data?: Record<string, string>; binaryData?: Record<string, string> }
      | undefined;
    return cm && configMapOf(cm);
  },
});

process.once("SIGTERM", () => void (cluster?.stop() ?? Promise.resolve()).then(() => process.exit(0)));
