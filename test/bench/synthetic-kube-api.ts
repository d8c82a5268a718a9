// A tiny Kubernetes API for the controller-caches benchmark: `--pods N` pods of Deployments (3 pods each, 1 to 3
// containers), generated on the fly rather than stored, so 150,000 pods cost this process a few MB. Objects look
// like a real API server's (defaults, managedFields, status), so parsing costs what it would. Lists page with
// `limit`/`continue` as the API server does; watches replay and stream MODIFIED events. `POST /admin/change?count=N`
// rolls the image digest of N pods in place (the newest pod of N workloads spread over the cluster) and answers
// once their events are written. Run as its own process: prints `{"url": ...}` on stdout.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const PODS_PER_WORKLOAD = 3;
const WORKLOADS_PER_NAMESPACE = 50;
const CREATED = Date.parse("2026-01-01T00:00:00Z");

const podsArg = process.argv.indexOf("--pods");
const PODS = Number(podsArg > 0 ? process.argv[podsArg + 1] : 10_000);
const WORKLOADS = Math.ceil(PODS / PODS_PER_WORKLOAD);
// Object i (pods first, then ReplicaSets, then Deployments) starts at resourceVersion i + 1.
const podGeneration = new Uint16Array(PODS);
const podVersion = new Float64Array(PODS).map((_, i) => i + 1);
let currentVersion = PODS + 2 * WORKLOADS;

function hex(seed: string, length: number): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, length);
}

function uuid(seed: string): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const namespaceOf = (w: number) => `team-${Math.floor(w / WORKLOADS_PER_NAMESPACE)}`;
const hashOf = (w: number) => hex(`rs/${w}`, 10);
const controllerRef = (kind: string, name: string, uid: string) => ({
  apiVersion: "apps/v1",
  kind,
  name,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});
const containerCount = (w: number) => 1 + (w % 3);
const image = (w: number, c: number, generation: number) => `ghcr.io/acme/svc-${w}-c${c}:1.${generation}`;
const stamp = (seconds: number) => new Date(CREATED + seconds * 1000).toISOString().replace(".000Z", "Z");

function containerSpec(w: number, c: number, generation: number) {
  return {
    name: `c${c}`,
    image: image(w, c, generation),
    ports: [{ name: "http", containerPort: 8080 + c, protocol: "TCP" }],
    env: [
      { name: "SERVICE", value: `svc-${w}` },
      { name: "LOG_LEVEL", value: "info" },
    ],
    resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } },
    volumeMounts: [{ name: "kube-api-access", readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }],
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  };
}

function template(w: number) {
  return {
    metadata: { labels: { app: `svc-${w}`, "pod-template-hash": hashOf(w) } },
    spec: {
      containers: Array.from({ length: containerCount(w) }, (_, c) => containerSpec(w, c, 0)),
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
    },
  };
}

function managedFields(manager: string, time: string, subresource?: string) {
  const fields = subresource
    ? {
        "f:status": {
          "f:conditions": { 'k:{"type":"Ready"}': { ".": {}, "f:lastProbeTime": {}, "f:status": {}, "f:type": {} } },
          "f:containerStatuses": {},
          "f:hostIP": {},
          "f:phase": {},
          "f:podIP": {},
          "f:startTime": {},
        },
      }
    : {
        "f:metadata": {
          "f:generateName": {},
          "f:labels": { ".": {}, "f:app": {}, "f:pod-template-hash": {} },
          "f:ownerReferences": { ".": {} },
        },
        "f:spec": { "f:containers": {}, "f:dnsPolicy": {}, "f:restartPolicy": {} },
      };
  const entry = { manager, operation: "Update", apiVersion: "v1", time, fieldsType: "FieldsV1", fieldsV1: fields };
  return subresource ? { ...entry, subresource } : entry;
}

function pod(i: number) {
  const w = Math.floor(i / PODS_PER_WORKLOAD);
  const generation = podGeneration[i]!;
  const rs = `svc-${w}-${hashOf(w)}`;
  const created = stamp(i % PODS_PER_WORKLOAD);
  const node = `node-${w % 5000}`;
  const statuses = Array.from({ length: containerCount(w) }, (_, c) => ({
    name: `c${c}`,
    state: { running: { startedAt: created } },
    lastState: {},
    ready: true,
    restartCount: generation,
    image: image(w, c, 0),
    imageID: `ghcr.io/acme/svc-${w}-c${c}@sha256:${hex(`${w}/${c}/${generation}`, 64)}`,
    containerID: `containerd://${hex(`cid/${i}/${c}/${generation}`, 64)}`,
    started: true,
  }));
  return {
    metadata: {
      name: `${rs}-${hex(`pod/${i}`, 5)}`,
      generateName: `${rs}-`,
      namespace: namespaceOf(w),
      uid: uuid(`pod/${i}`),
      resourceVersion: String(podVersion[i]),
      creationTimestamp: created,
      labels: { app: `svc-${w}`, "pod-template-hash": hashOf(w) },
      ownerReferences: [controllerRef("ReplicaSet", rs, uuid(`rs/${w}`))],
      managedFields: [managedFields("kube-controller-manager", created), managedFields("kubelet", created, "status")],
    },
    spec: {
      volumes: [
        {
          name: "kube-api-access",
          projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: "token" } }], defaultMode: 420 },
        },
      ],
      containers: Array.from({ length: containerCount(w) }, (_, c) => containerSpec(w, c, 0)),
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      serviceAccount: "default",
      nodeName: node,
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: {
      phase: "Running",
      conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: created,
      })),
      hostIP: `10.0.${(w >> 8) % 256}.${w % 256}`,
      podIP: `10.244.${(i >> 8) % 256}.${i % 256}`,
      startTime: created,
      containerStatuses: statuses,
      qosClass: "Burstable",
    },
  };
}

function replicaSet(w: number) {
  const name = `svc-${w}-${hashOf(w)}`;
  return {
    metadata: {
      name,
      namespace: namespaceOf(w),
      uid: uuid(`rs/${w}`),
      resourceVersion: String(PODS + w + 1),
      generation: 1,
      creationTimestamp: stamp(0),
      labels: { app: `svc-${w}`, "pod-template-hash": hashOf(w) },
      annotations: {
        "deployment.kubernetes.io/desired-replicas": "3",
        "deployment.kubernetes.io/max-replicas": "4",
        "deployment.kubernetes.io/revision": "1",
      },
      ownerReferences: [controllerRef("Deployment", `svc-${w}`, uuid(`deploy/${w}`))],
      managedFields: [managedFields("kube-controller-manager", stamp(0))],
    },
    spec: {
      replicas: PODS_PER_WORKLOAD,
      selector: { matchLabels: { app: `svc-${w}`, "pod-template-hash": hashOf(w) } },
      template: template(w),
    },
    status: { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 },
  };
}

function deployment(w: number) {
  return {
    metadata: {
      name: `svc-${w}`,
      namespace: namespaceOf(w),
      uid: uuid(`deploy/${w}`),
      resourceVersion: String(PODS + WORKLOADS + w + 1),
      generation: 1,
      creationTimestamp: stamp(0),
      annotations: { "deployment.kubernetes.io/revision": "1", "shiplog.dev/repository": ["web", "api", "infra"][w % 3]! },
      managedFields: [managedFields("kubectl", stamp(0))],
    },
    spec: {
      replicas: PODS_PER_WORKLOAD,
      selector: { matchLabels: { app: `svc-${w}` } },
      template: template(w),
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 },
  };
}

const COLLECTIONS: Record<string, { count: number; item: (i: number) => unknown }> = {
  "/api/v1/pods": { count: PODS, item: pod },
  "/apis/apps/v1/replicasets": { count: WORKLOADS, item: replicaSet },
  "/apis/apps/v1/deployments": { count: WORKLOADS, item: deployment },
  "/apis/apps/v1/statefulsets": { count: 0, item: () => ({}) },
  "/apis/apps/v1/daemonsets": { count: 0, item: () => ({}) },
  "/apis/batch/v1/jobs": { count: 0, item: () => ({}) },
  "/apis/batch/v1/cronjobs": { count: 0, item: () => ({}) },
};

function list(res: ServerResponse, path: string, query: URLSearchParams): void {
  const collection = COLLECTIONS[path]!;
  const limit = Number(query.get("limit") ?? 0);
  const token = query.get("continue");
  const start = token ? Number(JSON.parse(Buffer.from(token, "base64url").toString()).start) : 0;
  const end = limit > 0 ? Math.min(collection.count, start + limit) : collection.count;
  const next = end < collection.count ? Buffer.from(JSON.stringify({ start: end })).toString("base64url") : undefined;
  const paging = next ? { continue: next, remainingItemCount: collection.count - end } : {};
  const metadata = { resourceVersion: String(currentVersion), ...paging };
  res.writeHead(200, { "content-type": "application/json" });
  res.write(`{"kind":"List","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`);
  for (let i = start; i < end; i++) res.write((i > start ? "," : "") + JSON.stringify(collection.item(i)));
  res.end("]}");
}

const podWatches = new Set<ServerResponse>();

function watch(_req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
  res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  res.flushHeaders();
  const timeout = setTimeout(() => res.end(), Number(query.get("timeoutSeconds") ?? 300) * 1000);
  if (path === "/api/v1/pods") podWatches.add(res);
  res.on("close", () => {
    clearTimeout(timeout);
    podWatches.delete(res);
  });
}

/** Rolls the image digest of the newest pod of `count` workloads spread evenly over the cluster. */
function change(count: number, round: number): number {
  const stride = Math.max(1, Math.floor(WORKLOADS / count));
  let changed = 0;
  for (let w = round % stride; w < WORKLOADS && changed < count; w += stride, changed++) {
    const i = Math.min(PODS - 1, w * PODS_PER_WORKLOAD + PODS_PER_WORKLOAD - 1);
    podGeneration[i] = podGeneration[i]! + 1;
    podVersion[i] = ++currentVersion;
    const line = `${JSON.stringify({ type: "MODIFIED", object: { kind: "Pod", apiVersion: "v1", ...pod(i) } })}\n`;
    for (const res of podWatches) res.write(line);
  }
  return changed;
}

let rounds = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (req.method === "POST" && url.pathname === "/admin/change") {
    void (async () => {
      // The informer opens its watch right after its list: wait for it rather than change unseen.
      while (podWatches.size === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const changed = change(Number(url.searchParams.get("count") ?? 1000), rounds++);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ changed, resourceVersion: String(currentVersion) }));
    })();
    return;
  }
  if (req.method !== "GET" || !COLLECTIONS[url.pathname]) {
    const status = { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 };
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify(status));
    return;
  }
  if (url.searchParams.get("watch") === "true") watch(req, res, url.pathname, url.searchParams);
  else list(res, url.pathname, url.searchParams);
});
// The benchmark's calls come minutes apart on one kept-alive connection: keep it open rather than race its close.
server.keepAliveTimeout = 3_600_000;
server.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pods: PODS, workloads: WORKLOADS }));
});
process.on("SIGTERM", () => process.exit(0));
