// A real Kubernetes control plane on loopback: etcd, kube-apiserver (RBAC and Node authorization, the default
// admission plugins with PodSecurity, ServiceAccount tokens), kube-controller-manager (the garbage collector and the
// workload controllers), kube-scheduler, and KWOK for nodes and the pod lifecycle. Certificates and data live in a
// temporary folder that `stop()` removes. `pnpm cluster:up` and the real-cluster tests start it through here.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { clusterTools, type ClusterTools } from "../cluster/tools.js";
import { freePort } from "./loopback.js";
import { runProcess, startProcess, type Run, type RunningProcess } from "./process.js";
import { tempDir } from "./temp-dir.js";

/** KWOK manages the nodes that carry this annotation. */
const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";
/** Kubernetes' documented limit of pods per node; the fake nodes offer exactly that. */
export const PODS_PER_NODE = 110;
const SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

/** Options of `startControlPlane`. */
export interface ControlPlaneOptions {
  /** Fake nodes KWOK runs (default 3). */
  nodes?: number;
  /** Where the folder with certificates, data and logs goes (default: a new temporary folder). */
  dir?: string;
  /** Hears each start-up step. */
  onStep?: (step: string) => void;
  /** More kube-controller-manager flags, after (and so over) the defaults (a benchmark's worker counts). */
  controllerManagerFlags?: string[];
  /** KWOK's options (a KwokConfiguration's `options`, e.g. `podPlayStageParallelism`: pods started at once). */
  kwokOptions?: Record<string, unknown>;
  /** More environment for kube-apiserver (a benchmark's `GOMEMLIMIT`). */
  apiServerEnv?: Record<string, string>;
}

/** A running control plane. */
export interface ControlPlane {
  tools: ClusterTools;
  /** An admin (system:masters) kubeconfig with embedded credentials. */
  kubeconfig: string;
  /** The API server's https URL. */
  server: string;
  /** The cluster CA's PEM. */
  caPem: string;
  /** The folder holding certificates, etcd's data and each component's log. */
  dir: string;
  /** Runs the toolset's kubectl as the admin. */
  kubectl(args: readonly string[], input?: string): Promise<Run>;
  /** Runs kubectl for a step that must succeed: its stdout, or an error naming the command and its stderr. */
  kubectlOut(args: readonly string[], input?: string): Promise<string>;
  /** Runs the toolset's helm as the admin. */
  helm(args: readonly string[]): Promise<Run>;
  /** A bearer token for a ServiceAccount, issued by the TokenRequest API. */
  serviceAccountToken(namespace: string, name: string): Promise<string>;
  /** A kubeconfig file that authenticates with `token`. */
  tokenKubeconfig(token: string): string;
  /** Resident memory of the API server and etcd, in bytes. */
  memory(): { apiserver: number; etcd: number };
  /** An admin request to the API server; the parsed JSON body (the text when it is not JSON) and the headers. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Record<string, string | string[] | undefined> }>;
  /** The admin's client certificate and the cluster CA, for a TLS client of the tests' own (a proxy). */
  adminTls: { ca: string; cert: Buffer; key: Buffer };
  /**
   * Stops kube-controller-manager and starts it again with the default flags and `flags` after them (a benchmark
   * that builds its objects with the workload controllers off turns them on); resolves once it serves.
   */
  restartControllerManager(flags?: readonly string[]): Promise<void>;
  /** Stops every component and removes the folder. */
  stop(): Promise<void>;
}

interface Pki {
  ca: { crt: string; key: string };
  apiserver: { crt: string; key: string };
  admin: { crt: string; key: string };
  controllerManager: { crt: string; key: string };
  scheduler: { crt: string; key: string };
  serviceAccount: { key: string; pub: string };
}

/** EC keys: fast to make, accepted by every component. */
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function makePki(dir: string): Pki {
  const file = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  openssl(["req", "-x509", ...EC, "-keyout", file("ca.key"), "-out", file("ca.crt"), "-days", "2", "-subj", "/CN=shiplog-test-ca"]);
  const leaf = (name: string, subject: string, extensions: string[]) => {
    openssl([
      "req",
      "-x509",
      ...EC,
      "-keyout",
      file(`${name}.key`),
      "-out",
      file(`${name}.crt`),
      "-days",
      "2",
      "-subj",
      subject,
      "-CA",
      file("ca.crt"),
      "-CAkey",
      file("ca.key"),
      "-addext",
      "basicConstraints=critical,CA:FALSE",
      ...extensions.flatMap((e) => ["-addext", e]),
    ]);
    return { crt: file(`${name}.crt`), key: file(`${name}.key`) };
  };
  const client = (name: string, subject: string) => leaf(name, subject, ["extendedKeyUsage=clientAuth"]);
  const apiserver = leaf("apiserver", "/CN=kube-apiserver", [
    "subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc",
    "extendedKeyUsage=serverAuth",
  ]);
  openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", file("sa.key")]);
  openssl(["pkey", "-in", file("sa.key"), "-pubout", "-out", file("sa.pub")]);
  return {
    ca: { crt: file("ca.crt"), key: file("ca.key") },
    apiserver,
    admin: client("admin", "/O=system:masters/CN=shiplog-test-admin"),
    controllerManager: client("controller-manager", "/CN=system:kube-controller-manager"),
    scheduler: client("scheduler", "/CN=system:kube-scheduler"),
    serviceAccount: { key: file("sa.key"), pub: file("sa.pub") },
  };
}

/** A kubeconfig with every credential embedded, so the file stands alone. */
function kubeconfigText(server: string, caPem: string, user: { token: string } | { crt: string; key: string }): string {
  const b64 = (path: string) => readFileSync(path).toString("base64");
  const credentials =
    "token" in user ? `    token: ${user.token}` : `    client-certificate-data: ${b64(user.crt)}\n    client-key-data: ${b64(user.key)}`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: shiplog-test",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString("base64")}`,
    "contexts:",
    "- name: shiplog-test",
    "  context: {cluster: shiplog-test, user: shiplog-test}",
    "current-context: shiplog-test",
    "users:",
    "- name: shiplog-test",
    "  user:",
    credentials,
    "",
  ].join("\n");
}

function nodeManifest(count: number): string {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: `kwok-node-${i}`,
        annotations: { [KWOK_NODE_ANNOTATION]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: { "kubernetes.io/hostname": `kwok-node-${i}`, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", type: "kwok" },
      },
      status: {
        allocatable: { cpu: "64", memory: "256Gi", pods: String(PODS_PER_NODE) },
        capacity: { cpu: "64", memory: "256Gi", pods: String(PODS_PER_NODE) },
      },
    }),
  ).join("\n");
}

/** A KwokConfiguration file with `options` (JSON, which KWOK reads as YAML); its path. */
function kwokConfiguration(dir: string, options: Record<string, unknown>): string {
  const path = join(dir, "kwok-configuration.yaml");
  writeFileSync(path, JSON.stringify({ apiVersion: "config.kwok.x-k8s.io/v1alpha1", kind: "KwokConfiguration", options }));
  return path;
}

/** Polls `check` every 100 ms until it returns a value, or fails after `ms` naming `what`. */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>, exited?: RunningProcess[]): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const dead = exited?.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    if (dead) throw new Error(`${what}: a component exited:\n${dead.output().slice(-4000)}`);
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function rssOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

const running = new Set<RunningProcess>();
process.once("exit", () => {
  for (const p of running) p.child.kill("SIGKILL");
});

/** Starts a control plane and resolves once its nodes are ready and the `default` ServiceAccount exists. */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const step = options.onStep ?? (() => {});
  const tools = clusterTools({ build: process.env.SHIPLOG_CLUSTER_TOOLS_BUILD === "1", onBuild: step });
  const dir = options.dir ?? tempDir("shiplog-control-plane-");
  const pki = makePki(dir);
  const caPem = readFileSync(pki.ca.crt, "utf8");
  const [etcdPort, etcdPeerPort, apiPort, kwokPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const server = `https://127.0.0.1:${apiPort}`;
  const processes: RunningProcess[] = [];
  const start = (name: string, file: string, args: string[], env?: Record<string, string>) => {
    const p = startProcess(file, args, { cwd: dir, ...(env ? { env: { ...process.env, ...env } } : {}) });
    processes.push(p);
    running.add(p);
    void p.exited.then(() => {
      running.delete(p);
      writeFileSync(join(dir, `${name}.log`), p.output());
    });
    return p;
  };
  const kubeconfigFor = (name: string, user: { crt: string; key: string }) => {
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, kubeconfigText(server, caPem, user), { mode: 0o600 });
    return path;
  };

  const stop = async () => {
    for (const p of [...processes].reverse()) await p.stop("SIGTERM");
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
  };

  try {
    step("etcd");
    const etcd = start("etcd", tools.etcd, [
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeerPort}`,
      // A test cluster's data dies with it: no fsync, and room for 150,000 pods.
      "--unsafe-no-fsync",
      `--quota-backend-bytes=${8 * 1024 ** 3}`,
      "--log-level=warn",
    ]);
    await until("etcd healthy", 30_000, async () => ((await fetch(`http://127.0.0.1:${etcdPort}/health`)).ok ? true : undefined), [etcd]);

    step("kube-apiserver");
    const apiserver = start(
      "kube-apiserver",
      tools.kubeApiserver,
      [
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        // Nothing runs in pods here to reach the `kubernetes` Service, and its endpoint may not be a loopback address.
        "--endpoint-reconciler-type=none",
        `--secure-port=${apiPort}`,
        `--tls-cert-file=${pki.apiserver.crt}`,
        `--tls-private-key-file=${pki.apiserver.key}`,
        `--client-ca-file=${pki.ca.crt}`,
        "--authorization-mode=Node,RBAC",
        `--service-account-key-file=${pki.serviceAccount.pub}`,
        `--service-account-signing-key-file=${pki.serviceAccount.key}`,
        `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
        "--service-cluster-ip-range=10.0.0.0/24",
        // Room for the benchmarks' pod creation and the controller's lists.
        "--max-requests-inflight=1000",
        "--max-mutating-requests-inflight=500",
      ],
      options.apiServerEnv,
    );
    const adminKubeconfig = kubeconfigFor("admin", pki.admin);
    const adminTls = { ca: caPem, cert: readFileSync(pki.admin.crt), key: readFileSync(pki.admin.key) };
    const api = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: T; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
        const req = request(
          `${server}${path}`,
          {
            method,
            ...adminTls,
            headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => (text += c));
            res.on("end", () => {
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {}
              resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: res.headers });
            });
          },
        );
        req.on("error", reject);
        req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
      });
    await until("kube-apiserver ready", 90_000, async () => ((await api("GET", "/readyz")).status === 200 ? true : undefined), [
      etcd,
      apiserver,
    ]);

    step("kube-controller-manager, kube-scheduler, kwok");
    const controllerManagerKubeconfig = kubeconfigFor("controller-manager", pki.controllerManager);
    const controllerManagerArgs = (flags: readonly string[]) => [
      `--kubeconfig=${controllerManagerKubeconfig}`,
      `--service-account-private-key-file=${pki.serviceAccount.key}`,
      `--root-ca-file=${pki.ca.crt}`,
      "--use-service-account-credentials=true",
      "--leader-elect=false",
      "--secure-port=0",
      // The workload controllers create pods as fast as a benchmark needs (client-go's default is 20 a second).
      "--kube-api-qps=1000",
      "--kube-api-burst=2000",
      "--concurrent-replicaset-syncs=10",
      "--concurrent-gc-syncs=40",
      ...flags,
    ];
    let controllerManager = start(
      "kube-controller-manager",
      tools.kubeControllerManager,
      controllerManagerArgs(options.controllerManagerFlags ?? []),
    );
    const scheduler = start("kube-scheduler", tools.kubeScheduler, [
      `--kubeconfig=${kubeconfigFor("scheduler", pki.scheduler)}`,
      "--leader-elect=false",
      "--secure-port=0",
      "--kube-api-qps=1000",
      "--kube-api-burst=2000",
    ]);
    const kwok = start("kwok", tools.kwok, [
      `--kubeconfig=${adminKubeconfig}`,
      `--config=${tools.kwokStages}`,
      ...(options.kwokOptions ? [`--config=${kwokConfiguration(dir, options.kwokOptions)}`] : []),
      "--manage-all-nodes=false",
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
      "--manage-nodes-with-label-selector=",
      "--cidr=10.128.0.1/12",
      "--node-ip=127.0.0.1",
      `--server-address=127.0.0.1:${kwokPort}`,
      "--node-lease-duration-seconds=40",
    ]);
    const all = [etcd, apiserver, controllerManager, scheduler, kwok];

    const kubectl = (args: readonly string[], input?: string) =>
      runProcess(tools.kubectl, ["--kubeconfig", adminKubeconfig, ...args], { ...(input !== undefined ? { input } : {}) });
    const nodes = options.nodes ?? 3;
    step(`${nodes} nodes`);
    const created = await kubectl(["create", "-f", "-"], nodeManifest(nodes));
    if (created.code !== 0) throw new Error(`creating the nodes failed: ${created.stderr}`);
    await until(
      "nodes ready and the default ServiceAccount",
      120_000,
      async () => {
        const list = await api<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>("GET", "/api/v1/nodes");
        const ready = list.body.items.filter((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
        if (ready < nodes) return undefined;
        return (await api("GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200 ? true : undefined;
      },
      all,
    );

    return {
      tools,
      kubeconfig: adminKubeconfig,
      server,
      caPem,
      dir,
      kubectl,
      async kubectlOut(args, input) {
        const run = await kubectl(args, input);
        if (run.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${run.stderr.trim()}`);
        return run.stdout;
      },
      helm: (args) =>
        runProcess(tools.helm, ["--kubeconfig", adminKubeconfig, ...args], {
          env: {
            ...process.env,
            HELM_CACHE_HOME: join(dir, "helm-cache"),
            HELM_CONFIG_HOME: join(dir, "helm-config"),
            HELM_DATA_HOME: join(dir, "helm-data"),
          },
        }),
      async serviceAccountToken(namespace, name) {
        const run = await kubectl(["create", "token", name, "--namespace", namespace, "--duration", "2h"]);
        if (run.code !== 0) throw new Error(`kubectl create token ${namespace}/${name}: ${run.stderr.trim()}`);
        return run.stdout.trim();
      },
      tokenKubeconfig(token) {
        const path = join(dir, `token-${Math.random().toString(36).slice(2)}.kubeconfig`);
        writeFileSync(path, kubeconfigText(server, caPem, { token }), { mode: 0o600 });
        return path;
      },
      memory: () => ({ apiserver: rssOf(apiserver.child.pid), etcd: rssOf(etcd.child.pid) }),
      api,
      adminTls,
      async restartControllerManager(flags = []) {
        const old = controllerManager;
        await old.stop("SIGTERM");
        processes.splice(processes.indexOf(old), 1);
        controllerManager = start("kube-controller-manager", tools.kubeControllerManager, controllerManagerArgs(flags));
        // It serves no port here (--secure-port=0): its first informer sync is what its log says.
        await until(
          "kube-controller-manager started",
          60_000,
          async () => (/Caches are synced|Started controller|Starting controller/.test(controllerManager.output()) ? true : undefined),
          [controllerManager],
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
