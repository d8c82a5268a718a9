// A real control plane (test/kit/control-plane.ts: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// KWOK) as the controller benchmark's cluster. The benchmark's Deployments are created through the API; the workload
// controllers and the scheduler make and bind the pods, KWOK runs them. KWOK reports `imageID` as the image only when
// it is pinned by digest, so each `repo:tag` of the benchmark runs as `repo@sha256:<sha256 of repo:tag>`, a digest
// the benchmark knows without asking. The API server's and etcd's peak memory are sampled every second.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, fetch as undiciFetch } from "undici";
import { PODS_PER_NODE, startControlPlane, type ControlPlane } from "../../kit/control-plane.js";
import { type BenchCluster, type ClusterGet, configMapOf } from "./bench-cluster.js";
import { readWatch } from "./pod-stopwatch.js";
import type { Spec } from "./workloads.js";

/** Requests in flight at once when the benchmark creates, changes or deletes objects. */
const CONCURRENCY = 16;
/** Requests in flight at once when the bulk build creates objects itself. */
const BULK_CONCURRENCY = 64;

/**
 * The bulk build (`bulk`): the Deployment and ReplicaSet controllers are off while the benchmark writes each
 * Deployment, its ReplicaSet and its pods itself (owner references, the pod-template-hash label and the revision
 * annotations as the controllers write them; pods bound to KWOK's nodes, so the scheduler has no work), and on again
 * once KWOK runs every pod. It skips the controllers' per-pod work (a create by the ReplicaSet controller, a binding by
 * the scheduler, their status writes): at 150,000 pods that work, not any client's rate limit, paced the build
 * (kube-controller-manager and the scheduler already run at 1,000 requests a second, KWOK with none).
 */
const BULK_CONTROLLERS_OFF = "--controllers=*,-deployment-controller,-replicaset-controller";

/**
 * The API server's Go heap limit above 20,000 pods: it grew by 0.13 MB per pod (its default GOGC lets the heap reach
 * twice what is live), about 20 GB at 150,000 on a 24 GB machine; the limit makes it collect instead.
 */
const LARGE_API_SERVER_ENV = { GOMEMLIMIT: "10GiB" };
/**
 * Nodes beyond the pods' count (110 a node): a rolling update surges one pod a Deployment (maxSurge 25% of 3 or 4
 * rounds up), and with full nodes the surge pod stays Pending and the rollout never ends (maxUnavailable rounds down
 * to 0).
 */
const SURGE_ROOM = 1.1;

/**
 * The workload controllers' workers. The Deployment controller's default 5 made 8 ReplicaSets a second at 150,000 pods
 * (1,500 nodes, a loaded machine): 45,000 Deployments would have needed 90 minutes to get their pods. More workers
 * keep more of the API server's requests in flight; it, not the controller manager, should be what paces the build.
 */
const CONTROLLER_MANAGER_WORKERS = ["--concurrent-deployment-syncs=50", "--concurrent-replicaset-syncs=50"];

/**
 * KWOK's workers: with its default 4 pods started at once, 22,000 of 28,000 pods sat scheduled and Pending at 150,000
 * pods (each start a status write that waits on a loaded API server). A KwokConfiguration from a file is not defaulted
 * (a missing parallelism is 0, which KWOK refuses): its defaults are restated here, the pod workers raised.
 */
const KWOK_WORKERS = {
  podPlayStageParallelism: 32,
  nodePlayStageParallelism: 4,
  nodeLeaseParallelism: 4,
  podsOnNodeSyncParallelism: 1,
  enableDebuggingHandlers: true,
  enableContentionProfiling: false,
  enableProfilingHandler: true,
  enablePodsOnNodeSyncListPager: true,
  enablePodsOnNodeSyncStreamWatch: false,
};

/** The digest a benchmark image runs with. */
const digestOf = (image: string) => `sha256:${createHash("sha256").update(image).digest("hex")}`;
/** `repo:tag` as KWOK needs it to report an imageID: pinned by digest. */
const pinned = (image: string) => `${image.replace(/:[^:/]+$/, "")}@${digestOf(image)}`;

/** Runs `fn` over `items`, `concurrency` at a time. */
async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>, concurrency = CONCURRENCY): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

interface PodEvent {
  type: string;
  object: { metadata: { uid?: string; resourceVersion: string }; status?: { phase?: string } };
}

function deploymentOf(spec: Spec) {
  const labels = { app: spec.name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: spec.name, namespace: spec.namespace, labels, annotations: spec.annotations },
    spec: {
      replicas: spec.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: spec.containers.map((c) => ({ name: c.name, image: pinned(c.image) })) },
      },
    },
  };
}

/** The ReplicaSet the Deployment controller would make for `spec` (its template hash: any value it finds equal). */
function replicaSetOf(spec: Spec, deploymentUid: string) {
  const hash = createHash("sha256")
    .update(`${spec.namespace}/${spec.name}`)
    .digest("hex")
    .slice(0, 10)
    .replace(/[^a-z0-9]/g, "a");
  const labels = { app: spec.name, "pod-template-hash": hash };
  const template = deploymentOf(spec).spec.template;
  return {
    hash,
    body: {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${spec.name}-${hash}`,
        namespace: spec.namespace,
        labels,
        annotations: {
          ...spec.annotations,
          "deployment.kubernetes.io/revision": "1",
          "deployment.kubernetes.io/desired-replicas": String(spec.replicas),
          "deployment.kubernetes.io/max-replicas": String(spec.replicas + 1),
        },
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "Deployment", name: spec.name, uid: deploymentUid, controller: true, blockOwnerDeletion: true },
        ],
      },
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: template.spec },
      },
    },
  };
}

/**
 * Starts a control plane with KWOK nodes enough for `pods` pods and their rollouts, and `namespaces` created;
 * `onStep` hears the start-up's steps and, every 30 s, how far building or deleting has got.
 */
export async function startRealBenchCluster(
  pods: number,
  namespaces: string[],
  onStep: (step: string) => void = () => {},
  build: "controllers" | "bulk" = "controllers",
): Promise<BenchCluster & { plane: ControlPlane }> {
  const nodes = Math.ceil((pods * SURGE_ROOM) / PODS_PER_NODE);
  const plane = await startControlPlane({
    nodes,
    onStep,
    controllerManagerFlags: build === "bulk" ? [...CONTROLLER_MANAGER_WORKERS, BULK_CONTROLLERS_OFF] : CONTROLLER_MANAGER_WORKERS,
    kwokOptions: KWOK_WORKERS,
    ...(pods > 20_000 ? { apiServerEnv: LARGE_API_SERVER_ENV } : {}),
  });
  const kubeconfig = readFileSync(plane.kubeconfig, "utf8");
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)![1]!, "base64");
  const dispatcher = new Agent({
    connect: { ca: plane.caPem, cert: field("client-certificate-data"), key: field("client-key-data") },
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  // undici's own fetch, for its client certificate; its Response is the global one's twin.
  const get: ClusterGet = (path, init) => undiciFetch(`${plane.server}${path}`, { ...init, dispatcher }) as unknown as Promise<Response>;
  const send = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const response = await undiciFetch(`${plane.server}${path}`, {
      method,
      dispatcher,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": contentType } }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const resourceVersion = async () =>
    ((await send("GET", "/api/v1/namespaces/default/configmaps?limit=1")).metadata as { resourceVersion: string }).resourceVersion;
  /** Pods in the cluster now (etcd's count: a one-item page and the rest). */
  const podCount = async () => {
    const list = (await send("GET", "/api/v1/pods?limit=1")) as { items: unknown[]; metadata: { remainingItemCount?: number } };
    return list.items.length + (list.metadata.remainingItemCount ?? 0);
  };

  const created = new Set<string>(["default"]);
  const createNamespaces = async (names: string[]) => {
    const fresh = [...new Set(names)].filter((ns) => !created.has(ns));
    await inParallel(fresh, async (ns) => {
      await send("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      created.add(ns);
    });
    // Pods are refused until their namespace's default ServiceAccount exists, and the ReplicaSet controller then
    // backs off: wait for them first.
    for (;;) {
      const accounts = (await send("GET", "/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault")) as { items: unknown[] };
      if (accounts.items.length >= created.size) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  await createNamespaces(namespaces);

  /** Peak RSS of the API server and etcd, sampled every second (the control plane reports the current RSS). */
  const peak = { apiserver: 0, etcd: 0 };
  const sample = () => {
    const now = plane.memory();
    peak.apiserver = Math.max(peak.apiserver, now.apiserver);
    peak.etcd = Math.max(peak.etcd, now.etcd);
  };
  const sampler = setInterval(sample, 1000);
  sampler.unref();

  const replicas = new Map<string, number>();
  const key = (d: { namespace: string; name: string }) => `${d.namespace}/${d.name}`;

  return {
    kind: "real",
    plane,
    kubeconfig,
    get,
    async createDeployments(specs) {
      await createNamespaces(specs.map((spec) => spec.namespace));
      const before = await resourceVersion();
      const wanted = specs.reduce((n, spec) => n + spec.replicas, 0);
      // Every pod of theirs running (KWOK's Running, each container started), counted from a pod watch (started again
      // where it ended, should the API server end it).
      const running = new Set<string>();
      const abort = new AbortController();
      let from = before;
      const allRunning = (async () => {
        while (!abort.signal.aborted) {
          const response = await get(`/api/v1/pods?watch=true&resourceVersion=${from}`, { signal: abort.signal });
          await readWatch<PodEvent>(response.body!, ({ type, object }) => {
            from = object.metadata.resourceVersion;
            if (!object.metadata.uid) return;
            if (type === "DELETED" || object.status?.phase !== "Running") running.delete(object.metadata.uid);
            else running.add(object.metadata.uid);
            if (running.size >= wanted) abort.abort();
          }).catch(() => undefined);
        }
      })();
      const progress = setInterval(() => {
        const { apiserver, etcd } = plane.memory();
        onStep(
          `${replicas.size} of ${specs.length} Deployments created, ${running.size} of ${wanted} pods running; ` +
            `API server ${(apiserver / 1e6).toFixed(0)} MB, etcd ${(etcd / 1e6).toFixed(0)} MB`,
        );
      }, 30_000);
      if (build === "bulk") {
        // Pod i goes to node floor(i / 110): full nodes, the rest left for the rollouts' surge.
        let nextPod = 0;
        await inParallel(
          specs,
          async (spec) => {
            const deployment = await send("POST", `/apis/apps/v1/namespaces/${spec.namespace}/deployments`, deploymentOf(spec));
            const rs = replicaSetOf(spec, (deployment.metadata as { uid: string }).uid);
            const created = await send("POST", `/apis/apps/v1/namespaces/${spec.namespace}/replicasets`, rs.body);
            const rsUid = (created.metadata as { uid: string }).uid;
            const owner = {
              apiVersion: "apps/v1",
              kind: "ReplicaSet",
              name: rs.body.metadata.name,
              uid: rsUid,
              controller: true,
              blockOwnerDeletion: true,
            };
            for (let i = 0; i < spec.replicas; i++) {
              const node = `kwok-node-${Math.floor(nextPod++ / PODS_PER_NODE)}`;
              await send("POST", `/api/v1/namespaces/${spec.namespace}/pods`, {
                apiVersion: "v1",
                kind: "Pod",
                metadata: {
                  name: `${rs.body.metadata.name}-${i}`,
                  labels: rs.body.spec.template.metadata.labels,
                  ownerReferences: [owner],
                },
                spec: { ...rs.body.spec.template.spec, nodeName: node },
              });
            }
            replicas.set(key(spec), spec.replicas);
          },
          BULK_CONCURRENCY,
        );
      } else {
        await inParallel(specs, async (spec) => {
          await send("POST", `/apis/apps/v1/namespaces/${spec.namespace}/deployments`, deploymentOf(spec));
          replicas.set(key(spec), spec.replicas);
        });
      }
      await allRunning;
      clearInterval(progress);
      if (build === "bulk") {
        onStep("every pod running: the Deployment and ReplicaSet controllers on");
        await plane.restartControllerManager(CONTROLLER_MANAGER_WORKERS);
      }
      const pods = await podCount();
      const containers = specs.reduce((n, spec) => n + spec.replicas * spec.containers.length, 0);
      return { pods, containers };
    },
    async setImages(changes) {
      await inParallel(changes, async (c) => {
        const containers = Object.entries(c.images).map(([name, image]) => ({ name, image: pinned(image) }));
        await send(
          "PATCH",
          `/apis/apps/v1/namespaces/${c.namespace}/deployments/${c.name}`,
          { spec: { template: { spec: { containers } } } },
          "application/strategic-merge-patch+json",
        );
      });
    },
    async deleteDeployments(list) {
      const remaining = (await podCount()) - list.reduce((n, d) => n + (replicas.get(key(d)) ?? 0), 0);
      await inParallel(list, async (d) => {
        await send("DELETE", `/apis/apps/v1/namespaces/${d.namespace}/deployments/${d.name}`, { propagationPolicy: "Background" });
        replicas.delete(key(d));
      });
      // The garbage collector deletes their ReplicaSets and pods, KWOK lets the pods go.
      for (let polls = 1; ; polls++) {
        const left = (await podCount()) - remaining;
        if (left <= 0) break;
        if (polls % 60 === 0) onStep(`deletions: ${left} pods left to go`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    digestsOf: async (images) => images.map(digestOf),
    resourceVersion,
    async configMap(namespace, name) {
      const response = await get(`/api/v1/namespaces/${namespace}/configmaps/${name}`);
      if (response.status === 404) return undefined;
      return configMapOf((await response.json()) as Parameters<typeof configMapOf>[0]);
    },
    async peakMemory() {
      sample();
      return { "API server": peak.apiserver, etcd: peak.etcd };
    },
    async stop() {
      clearInterval(sampler);
      await dispatcher.close();
      await plane.stop();
    },
  };
}
