// Controller at scale: a fake cluster with 10,000 pods (3,000 Deployments, 1 to 3 containers each) and the
// emulator run in this process; the controller runs as its own process (`node packages/controller/dist/main.js`)
// so its peak RSS is its own. Measures the cold start to convergence, a rolling update of 1,000 workloads, then a
// restart: the controller stopped (SIGTERM), 1,000 workloads deleted while it is down, a new process started on the
// same state ConfigMap: time to reconcile and requests used.
// Prints figures and the targets beside them; asserts nothing.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { CONFIGMAP_MAX_BYTES, encodeAcknowledgedState, recordKey } from "@shiplog/controller";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";

const WORKLOADS = 3000;
const ROLLED = 1000;
const DELETED = 1000;
const STATE_NAMESPACE = "shiplog";
const STATE_CONFIGMAP = "shiplog-controller-state";
const FLUSH_INTERVAL_MS = 2000;
const ORG = "acme";
const CLUSTER = "bench";
const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const REPOSITORIES = ["web", "api", "infra"];

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cluster = await startFakeCluster({ nodes: ["node-1", "node-2", "node-3", "node-4"] });
await cluster.script.ensureNamespace(STATE_NAMESPACE);
const emulator = await startEmulator({ port: 0, rateLimit: 1_000_000 } as Parameters<typeof startEmulator>[0]);

// 3,000 workloads, 10,000 pods: 2,000 with 3 replicas and 1,000 with 4; containers 1 to 3.
const specs = Array.from({ length: WORKLOADS }, (_, i) => ({
  namespace: `team-${i % 30}`,
  name: `svc-${i}`,
  replicas: i % 3 === 0 ? 4 : 3,
  annotations: { "shiplog.dev/repository": REPOSITORIES[i % 3]! },
  containers: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ name: `c${j}`, image: `ghcr.io/acme/svc-${i}-c${j}:1.0` })),
}));
let t0 = performance.now();
await cluster.script.createDeployments(specs, { wait: false });
await cluster.settle();
const pods = cluster.store.list("pods");
const containerInstances = pods.reduce((n, p) => n + ((p.spec as { containers: unknown[] }).containers.length), 0);
const expectedRecords = specs.reduce((n, s) => n + s.containers.length, 0);
console.log(`fake cluster: ${specs.length} workloads, ${pods.length} pods, ${containerInstances} running containers, ${expectedRecords} deployment names (built in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const dir = mkdtempSync(join(tmpdir(), "shiplog-bench-"));
writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);

function deployed(): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER })) if (r.status === "deployed") out.set(r.deployment_name, r.digest);
  return out;
}
function clusterRequests(): number {
  return emulator.requests.list().filter((r) => r.route === CLUSTER_ROUTE).length;
}
async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}
const digestOf = (image: string): string => cluster.imageIdFor(image).split("@")[1]!;

// ---- cold start -----------------------------------------------------------------------------------
emulator.requests.clear();
t0 = performance.now();
// The heap cap the chart sets (NODE_OPTIONS); in a container Node also sizes its heap from the memory limit.
// Without it V8 collects lazily in an unconstrained process and the peak RSS is 240-285 MB on the same run.
// BENCH_CHILD_NODE_FLAGS overrides it ("" for none, "--trace-gc" to diagnose); BENCH_CHILD_LOG keeps the output.
const nodeFlags = (process.env.BENCH_CHILD_NODE_FLAGS ?? "--max-old-space-size=128").split(" ").filter(Boolean);
console.log(`controller: node ${[...nodeFlags, "packages/controller/dist/main.js"].join(" ")}`);
function startController(podName: string) {
  const proc = spawn(process.execPath, [...nodeFlags, join(root, "packages/controller/dist/main.js")], {
    env: {
      ...process.env,
      SHIPLOG_API_URL: emulator.url,
      SHIPLOG_TOKEN: emulator.tokens.admin!,
      SHIPLOG_ORG: ORG,
      SHIPLOG_CLUSTER: CLUSTER,
      SHIPLOG_LOGICAL_ENVIRONMENT: "production",
      SHIPLOG_FLUSH_INTERVAL: `${FLUSH_INTERVAL_MS}ms`,
      SHIPLOG_HTTP_HOST: "127.0.0.1",
      SHIPLOG_HTTP_PORT: "0",
      SHIPLOG_LOG_LEVEL: "info",
      SHIPLOG_STATE_CONFIGMAP: STATE_CONFIGMAP,
      POD_NAMESPACE: STATE_NAMESPACE,
      POD_NAME: podName,
      KUBECONFIG: join(dir, "kubeconfig"),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  metricsUrl = undefined;
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    if (childLog) appendFileSync(childLog, `${line}\n`);
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string; level?: number };
      if (entry.msg === "health and metrics server listening") metricsUrl = `${entry.url}/metrics`;
      if ((entry.level ?? 0) >= 40) warnings++;
    } catch {
      // not a log line
    }
  });
  return proc;
}
let metricsUrl: string | undefined;
let warnings = 0;
const childLog = process.env.BENCH_CHILD_LOG;
let child = startController("controller-1");
async function accepted(status?: string): Promise<number> {
  if (!metricsUrl) return 0;
  const text = await (await fetch(metricsUrl)).text();
  return [...text.matchAll(/^shiplog_controller_records_accepted_total\{status="([a-z]+)"\} (\d+)/gm)].reduce((n, m) => n + (status === undefined || m[1] === status ? Number(m[2]) : 0), 0);
}
/** A metric of the running controller, summed over its label sets. */
async function metric(name: string): Promise<number> {
  if (!metricsUrl) return 0;
  const text = await (await fetch(metricsUrl)).text();
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].reduce((n, m) => n + Number(m[1]), 0);
}
/** The write-ahead's cost so far: state ConfigMap writes per flush, and the size of the last one. */
async function writeAheadCost(): Promise<string> {
  const writes = await metric("shiplog_controller_state_writes_total");
  const flushes = await metric("shiplog_controller_flush_duration_seconds_count");
  const bytes = await metric("shiplog_controller_state_bytes");
  return `${writes} state writes in ${flushes} flushes (${(writes / Math.max(1, flushes)).toFixed(2)} per flush; 2 per flush that sends a new or changed record: intent, then answer), last ${(bytes / 1e3).toFixed(0)} KB`;
}
const peakRss = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

const coldOk = await until(() => deployed().size === expectedRecords, 120_000);
const coldMs = performance.now() - t0;
const coldRequests = clusterRequests();
const coldRecords = await accepted();
const coldPeakRss = peakRss();
console.log(`\ncold start${coldOk ? "" : " (DID NOT CONVERGE)"}:`);
console.log(`  requests sent           ${coldRequests}   (one request per container event: ${containerInstances})`);
console.log(`  records posted          ${coldRecords}`);
console.log(`  records per request     ${(coldRecords / Math.max(1, coldRequests)).toFixed(0)}   (target >= 900)`);
console.log(`  time to converge        ${(coldMs / 1000).toFixed(1)} s   (target < 30 s; includes process start and informer lists)`);
console.log(`  write-ahead             ${await writeAheadCost()}`);

// ---- rolling update of 1,000 workloads --------------------------------------------------------------
// A pod watch in this process notes when each new container first runs; the emulator's updated_at says when its
// record landed. Both clocks are this process's.
const rolled = specs.slice(0, ROLLED);
const newImage = new Map<string, string>(); // deployment name -> new digest
for (const s of rolled) for (const c of s.containers) newImage.set(`${s.namespace}-${s.name}-${c.name}`, digestOf(c.image.replace(":1.0", ":2.0")));
// A stopwatch process (so this busy process's event loop does not delay it) watches pods and notes when each new
// container first runs; the emulator's updated_at says when the record landed. Same machine clock for both.
writeFileSync(join(dir, "new-digests.json"), JSON.stringify([...newImage]));
const STOPWATCH = `
const [url, rv, file] = process.argv.slice(1);
const wanted = new Map(JSON.parse(require("fs").readFileSync(file, "utf8")));
const first = {};
(async () => {
  const res = await fetch(url + "/api/v1/pods?watch=true&resourceVersion=" + rv);
  let buf = "";
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    const lines = buf.split("\\n");
    buf = lines.pop();
    const now = Date.now();
    for (const line of lines) {
      if (!line) continue;
      const pod = JSON.parse(line).object;
      if (!pod.status || pod.status.phase !== "Running") continue;
      for (const s of pod.status.containerStatuses || []) {
        const name = pod.metadata.namespace + "-" + (pod.metadata.labels || {}).app + "-" + s.name;
        const digest = (s.imageID || "").split("@")[1];
        if (s.state && s.state.running && wanted.get(name) === digest && !(name in first)) first[name] = now;
      }
    }
  }
})();
process.stdin.on("data", () => { process.stdout.write(JSON.stringify(first)); process.exit(0); });
process.stdout.write("ready\\n");
`;
const stopwatch = spawn(process.execPath, ["-e", STOPWATCH, cluster.url, cluster.store.resourceVersion(), join(dir, "new-digests.json")], { stdio: ["pipe", "pipe", "inherit"] });
let stopwatchOut = "";
stopwatch.stdout!.on("data", (d: Buffer) => (stopwatchOut += d.toString()));
await until(() => stopwatchOut.startsWith("ready"), 10_000);
await new Promise((resolve) => setTimeout(resolve, 200)); // let its watch open

emulator.requests.clear();
const recordsBefore = await accepted();
t0 = performance.now();
for (const s of rolled) {
  await cluster.script.setImage(s.namespace, s.name, Object.fromEntries(s.containers.map((c) => [c.name, c.image.replace(":1.0", ":2.0")])), { wait: false });
}
await cluster.settle();
const rollOk = await until(() => {
  const now = deployed();
  for (const [name, digest] of newImage) if (now.get(name) !== digest) return false;
  return now.size === expectedRecords;
}, 120_000);
const rollMs = performance.now() - t0;
const rollRequests = clusterRequests();
const rollRecords = (await accepted()) - recordsBefore;
const rollContainerEvents = rolled.reduce((n, s) => n + s.containers.length * s.replicas, 0);

stopwatchOut = "";
stopwatch.stdin!.write("report\n");
await until(() => stopwatchOut.endsWith("}"), 10_000);
const firstRunning = new Map(Object.entries(JSON.parse(stopwatchOut) as Record<string, number>));
const latencies: number[] = [];
for (const r of emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER })) {
  const started = firstRunning.get(r.deployment_name);
  if (started !== undefined && newImage.get(r.deployment_name) === r.digest) latencies.push(Date.parse(r.updated_at) - started);
}
latencies.sort((a, b) => a - b);
const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
console.log(`\nrolling update of ${ROLLED} workloads${rollOk ? "" : " (DID NOT CONVERGE)"}:`);
console.log(`  requests sent           ${rollRequests}   (one request per container event: ${rollContainerEvents})`);
console.log(`  records posted          ${rollRecords}`);
console.log(`  records per request     ${(rollRecords / Math.max(1, rollRequests)).toFixed(0)}`);
console.log(`  time to converge        ${(rollMs / 1000).toFixed(1)} s   (from the first setImage; the fake cluster rolls in this process)`);
console.log(`  pod Running -> record   p50 ${(pct(50) / 1000).toFixed(2)} s, p99 ${(pct(99) / 1000).toFixed(2)} s over ${latencies.length} records   (target p99 < flush interval ${FLUSH_INTERVAL_MS / 1000} s + 2 s)`);

console.log(`\ncontroller process peak RSS: ${(peakRss() / 1e6).toFixed(0)} MB (after the cold sync: ${(coldPeakRss / 1e6).toFixed(0)} MB)   (target < 250 MB); warnings logged: ${warnings}`);

// ---- restart after 1,000 deletions -----------------------------------------------------------------------
// Stop the controller (SIGTERM: last flush, state written), delete 1,000 workloads while it is down, start a new
// process on the same state ConfigMap. The emulator's clock moves on an hour so that a record posted again
// needlessly would show a new updated_at.
const stopStarted = performance.now();
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
const stopMs = performance.now() - stopStarted;
const stateObject = cluster.store.get("configmaps", STATE_NAMESPACE, STATE_CONFIGMAP) as { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined;
const stateBytes =
  Object.values(stateObject?.data ?? {}).reduce((n, v) => n + Buffer.byteLength(v), 0) +
  Object.values(stateObject?.binaryData ?? {}).reduce((n, v) => n + Buffer.from(v, "base64").length, 0);
const deleted = specs.slice(WORKLOADS - DELETED);
const decommissionExpected = new Set(deleted.flatMap((s) => s.containers.map((c) => `${s.namespace}-${s.name}-${c.name}`)));
t0 = performance.now();
for (const s of deleted) await cluster.script.delete("deployments", s.namespace, s.name, { wait: false });
await cluster.settle();
console.log(`\nrestart after ${DELETED} deletions while the controller was down:`);
console.log(`  controller stop (SIGTERM) ${(stopMs / 1000).toFixed(1)} s; state ConfigMap ${stateObject?.data?.records ?? "?"} records in ${(stateBytes / 1e6).toFixed(2)} MB (limit 1.05 MB); deletions took ${((performance.now() - t0) / 1000).toFixed(1)} s in the fake cluster`);
emulator.clock.advance(3_600_000);
const updatedBefore = new Map(emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER }).map((r) => [r.deployment_name, r.updated_at]));
emulator.requests.clear();
t0 = performance.now();
child = startController("controller-2");
const restartOk = await until(() => {
  let decommissioned = 0;
  for (const r of emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER })) if (r.status === "decommissioned" && decommissionExpected.has(r.deployment_name)) decommissioned++;
  return decommissioned === decommissionExpected.size && deployed().size === expectedRecords - decommissionExpected.size;
}, 120_000);
const restartMs = performance.now() - t0;
const restartRequests = clusterRequests();
const needless = emulator.state.artifacts.deploymentRecords({ org: ORG, cluster: CLUSTER }).filter((r) => !decommissionExpected.has(r.deployment_name) && r.updated_at !== updatedBefore.get(r.deployment_name)).length;
console.log(`  reconciled${restartOk ? "" : " (DID NOT CONVERGE)"} in ${(restartMs / 1000).toFixed(1)} s   (process start, state load, informer lists, one diff)`);
console.log(`  requests sent           ${restartRequests}   (records decommissioned: ${await accepted("decommissioned")} of ${decommissionExpected.size}; deployed records posted: ${await accepted("deployed")})`);
console.log(`  unchanged records posted again: ${needless} of ${expectedRecords - decommissionExpected.size}`);
console.log(`  write-ahead             ${await writeAheadCost()}`);
console.log(`  controller process peak RSS: ${(peakRss() / 1e6).toFixed(0)} MB`);

child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
await emulator.stop();
await cluster.stop();

// ---- state size at Kubernetes' limit ------------------------------------------------------------------------
// 150,000 records (the cluster limit is 150,000 pods): 1,500 tenant namespaces running the same 50 two-container
// apps, 5,000 distinct digests; and the same with every record on its own digest.
{
  const group = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
  const sha = (i: number) => `sha256:${createHash("sha256").update(String(i)).digest("hex")}` as const;
  const shared = Array.from({ length: 5000 }, (_, i) => sha(i));
  const records = (digestOf: (i: number) => `sha256:${string}`) =>
    Array.from({ length: 150_000 }, (_, i) => {
      const app = `app-${Math.floor(i / 1500) % 50}`;
      const container = i % 2 === 0 ? "app" : "proxy";
      const entry = { name: `ghcr.io/acme/${app}-${container}`, digest: digestOf(i), status: "deployed" as const, deployment_name: `tenant-${i % 1500}-${app}-${container}`, version: `1.${i % 7}.${i % 11}` };
      return { key: recordKey(group, entry.deployment_name), group, entry };
    });
  console.log(`
state ConfigMap at 150,000 records (limit ${CONFIGMAP_MAX_BYTES} B):`);
  for (const [label, digestOfRecord] of [["5,000 distinct digests", (i: number) => shared[i % 5000]!], ["150,000 distinct digests", sha]] as const) {
    const started = performance.now();
    const encoded = encodeAcknowledgedState(records(digestOfRecord));
    const bytes = encoded.text.length + encoded.digests.length;
    console.log(`  ${label.padEnd(26)} ${(bytes / 1e3).toFixed(0)} KB (${(encoded.text.length / 1e3).toFixed(0)} KB text, ${(encoded.digests.length / 1e3).toFixed(0)} KB digests), encoded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${bytes <= CONFIGMAP_MAX_BYTES ? "fits" : "DOES NOT FIT"}`);
  }
}
