// The controller at scale, against issue #19's targets. Three processes besides this one: the fake cluster and the
// emulator (hosts/*.ts, driven over IPC) and the controller (`node packages/controller/dist/main.js`, state
// ConfigMap on, the write budget at its defaults), so each peak RSS is its own.
//
//   pnpm build && tsx test/bench/controller-sync.ts [--pods 10000] [--flush-window 200ms --flush-max-wait 1s]
//       [--phases cold,single,roll,steady,restart] [--controller-heap 128] [--emulator-options '{...}'] [--window-sweep]
//
// Phases: the cold sync; single changes (one workload rolled at a time); a rolling update of 10% of the workloads;
// the steady state's calls an hour (on a virtual clock: the controller's own flush loop and reconciler, an hour of
// 10-minute resyncs); a restart after a third of the workloads were deleted while the controller was down (the state's
// size at 150,000 records: test/bench/state-sharding.ts). Each figure is printed beside its target, the floor the budget
// sets, and what one request per container event would have needed. Asserts nothing. BENCH_CHILD_LOG=<file> keeps
// the controller's log (BENCH_CHILD_LOG_LEVEL=debug for each round's summary).
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { budgetFloorMs, DEFAULT_WRITE_BUDGET } from "../../packages/controller/src/write-budget.js";
import { cpuSeconds, peakRss, startHost } from "./hosts/ipc.js";
import { PodStopwatch } from "./hosts/pod-stopwatch.js";
import { steadyStateCallsPerHour } from "./hosts/steady-state.js";
import { replayWindow } from "./hosts/window-replay.js";

const { values: flags } = parseArgs({
  options: {
    pods: { type: "string", default: "10000" },
    "flush-window": { type: "string" },
    "flush-max-wait": { type: "string" },
    phases: { type: "string", default: "cold,single,roll,steady,restart" },
    "controller-heap": { type: "string" },
    "emulator-options": { type: "string", default: "{}" },
    "window-sweep": { type: "boolean", default: false },
  },
});
const PODS = Number(flags.pods);
const phases = new Set(flags.phases!.split(","));
const WORKLOADS = Math.round((PODS * 3) / 10);
const NAMESPACES = Math.max(30, Math.round(WORKLOADS / 100));
const SINGLE_CHANGES = 20;
const ROLLED = Math.round(WORKLOADS / 10);
const DELETED = Math.round(WORKLOADS / 3);
const STATE_NAMESPACE = "shiplog";
const STATE_CONFIGMAP = "shiplog-controller-state";
const CLUSTER = "bench";
const REPOSITORIES = ["web", "api", "infra"];
const BUDGET = DEFAULT_WRITE_BUDGET;
const heapMb = Number(flags["controller-heap"] ?? Math.max(128, Math.round((PODS / 150_000) * 384)));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const here = dirname(fileURLToPath(import.meta.url));
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

console.log(
  `controller-sync: ${PODS} pods asked, ${WORKLOADS} Deployments (3-4 replicas, 1-3 containers) in ${NAMESPACES} namespaces; ` +
    `load average ${loadavg()}`,
);

// ---- the fake cluster and the emulator, each in its own process -------------------------------------------------
const clusterHost = await startHost(join(here, "hosts/fake-cluster-host.ts"), ["--max-old-space-size=8192"]);
const { url: clusterUrl, kubeconfig } = await clusterHost.call<{ url: string; kubeconfig: string }>("start", {
  nodes: ["node-1", "node-2", "node-3", "node-4"],
  namespaces: [STATE_NAMESPACE],
});
const emulatorOptions = JSON.parse(flags["emulator-options"]!) as Record<string, unknown>;
const emulatorHost = await startHost(join(here, "hosts/emulator-host.ts"));
const { url: apiUrl, token } = await emulatorHost.call<{ url: string; token: string }>("start", {
  cluster: CLUSTER,
  extra: emulatorOptions,
});
console.log(`emulator options: ${JSON.stringify(emulatorOptions)} (the service's secondary limits are on, the emulator's default)`);

interface Spec {
  namespace: string;
  name: string;
  replicas: number;
  annotations: Record<string, string>;
  containers: { name: string; image: string }[];
}
const specs: Spec[] = Array.from({ length: WORKLOADS }, (_, i) => ({
  namespace: `team-${i % NAMESPACES}`,
  name: `svc-${i}`,
  replicas: i % 3 === 0 ? 4 : 3,
  annotations: { "shiplog.dev/repository": REPOSITORIES[i % 3]! },
  containers: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ name: `c${j}`, image: `ghcr.io/acme/svc-${i}-c${j}:1.0` })),
}));
let t0 = performance.now();
let pods = 0;
let containerInstances = 0;
for (let i = 0; i < specs.length; i += 5000) {
  const built = await clusterHost.call<{ pods: number; containers: number }>("createDeployments", specs.slice(i, i + 5000));
  ({ pods, containers: containerInstances } = built);
}
const recordsTotal = specs.reduce((n, spec) => n + spec.containers.length, 0);
console.log(
  `fake cluster: ${pods} pods, ${containerInstances} running containers, ${recordsTotal} deployment names ` +
    `(built in ${s(performance.now() - t0)})`,
);

/** What the cluster runs: deployment name -> digest, from the bench's own specs (live workloads only). */
const deleted = new Set<string>();
async function expected(): Promise<[string, string][]> {
  const live = specs.filter((spec) => !deleted.has(spec.name));
  const containers = live.flatMap((spec) =>
    spec.containers.map((c) => ({ key: `${spec.namespace}-${spec.name}-${c.name}`, image: c.image })),
  );
  const digests = await clusterHost.call<string[]>(
    "digestsOf",
    containers.map((c) => c.image),
  );
  return containers.map((c, i) => [c.key, digests[i]!]);
}
async function converge(deadlineMs: number): Promise<boolean> {
  await emulatorHost.call("expect", await expected());
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if ((await emulatorHost.call<{ total: number }>("mismatches")).total === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

// ---- the controller process ----------------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "shiplog-bench-"));
writeFileSync(join(dir, "kubeconfig"), kubeconfig);
const childLog = process.env.BENCH_CHILD_LOG;
// BENCH_CHILD_NODE_FLAGS adds node flags to the controller (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it).
const nodeFlags = [`--max-old-space-size=${heapMb}`, ...(process.env.BENCH_CHILD_NODE_FLAGS ?? "").split(" ").filter(Boolean)];
const flushEnv = {
  ...(flags["flush-window"] ? { SHIPLOG_FLUSH_WINDOW: flags["flush-window"] } : {}),
  ...(flags["flush-max-wait"] ? { SHIPLOG_FLUSH_MAX_WAIT: flags["flush-max-wait"] } : {}),
};
console.log(
  `controller: node ${nodeFlags.join(" ")} packages/controller/dist/main.js ${JSON.stringify(flushEnv)} ` +
    "(the chart's heap cap; defaults otherwise)",
);

interface Controller {
  child: ChildProcess;
  spawnedAt: number;
  metricsUrl?: string;
  firstRoundAt?: number;
  warnings: number;
}
function startController(podName: string): Controller {
  const child = spawn(process.execPath, [...nodeFlags, join(root, "packages/controller/dist/main.js")], {
    env: {
      ...process.env,
      SHIPLOG_API_URL: apiUrl,
      SHIPLOG_TOKEN: token,
      SHIPLOG_ORG: "acme",
      SHIPLOG_CLUSTER: CLUSTER,
      SHIPLOG_LOGICAL_ENVIRONMENT: "production",
      SHIPLOG_HTTP_HOST: "127.0.0.1",
      SHIPLOG_HTTP_PORT: "0",
      SHIPLOG_LOG_LEVEL: process.env.BENCH_CHILD_LOG_LEVEL ?? "info",
      SHIPLOG_STATE_CONFIGMAP: STATE_CONFIGMAP,
      POD_NAMESPACE: STATE_NAMESPACE,
      POD_NAME: podName,
      KUBECONFIG: join(dir, "kubeconfig"),
      ...flushEnv,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const c: Controller = { child, spawnedAt: Date.now(), warnings: 0 };
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (childLog) appendFileSync(childLog, `${line}\n`);
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string; level?: number; time?: number };
      if (entry.msg === "health and metrics server listening") c.metricsUrl = `${entry.url}/metrics`;
      if (entry.msg === "first round: desired state computed") c.firstRoundAt ??= entry.time;
      if ((entry.level ?? 0) >= 40) c.warnings++;
    } catch {
      // not a log line
    }
  });
  return c;
}
/** A metric of the running controller, summed over its label sets (optionally those containing `labels`). */
async function metric(c: Controller, name: string, labels = ""): Promise<number> {
  if (!c.metricsUrl) return 0;
  const text = await (await fetch(c.metricsUrl)).text();
  return [...text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, "gm"))]
    .filter((m) => (m[1] ?? "").includes(labels))
    .reduce((n, m) => n + Number(m[2]), 0);
}
async function writeAheadCost(c: Controller): Promise<string> {
  const writes = await metric(c, "shiplog_controller_state_writes_total");
  const rounds = await metric(c, "shiplog_controller_flush_duration_seconds_count");
  const bytes = await metric(c, "shiplog_controller_state_bytes");
  const perRound = (writes / Math.max(1, rounds)).toFixed(2);
  return (
    `${writes} state writes in ${rounds} rounds (${perRound} per round: intent, then answer, for a round that sends a new or ` +
    `changed record), last ${(bytes / 1e3).toFixed(0)} KB`
  );
}
/** Seconds spent in each phase of the rounds so far, and the rounds counted (from the controller's histogram). */
async function roundPhases(c: Controller): Promise<Record<string, { sum: number; count: number }>> {
  const out: Record<string, { sum: number; count: number }> = {};
  for (const phase of ["plan", "intent_write", "calls", "answer_write"]) {
    const label = `phase="${phase}"`;
    out[phase] = {
      sum: await metric(c, "shiplog_controller_round_phase_seconds_sum", label),
      count: await metric(c, "shiplog_controller_round_phase_seconds_count", label),
    };
  }
  return out;
}
/** The mean seconds per round of each phase between two readings. */
function phaseMeans(
  before: Record<string, { sum: number; count: number }>,
  after: Record<string, { sum: number; count: number }>,
): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).map((phase) => {
      const n = after[phase]!.count - (before[phase]?.count ?? 0);
      return [phase, n ? (after[phase]!.sum - (before[phase]?.sum ?? 0)) / n : 0];
    }),
  );
}
/** Where a round's time goes, as one line. */
function phaseLine(before: Record<string, { sum: number; count: number }>, after: Record<string, { sum: number; count: number }>): string {
  return Object.entries(phaseMeans(before, after))
    .map(([phase, mean]) => `${phase.replace("_", " ")} ${s(mean * 1000)}`)
    .join(", ");
}
const calls = (records: number) => Math.ceil(records / 1000);
const eventsNeeded = (events: number) =>
  `${events} requests, ${(events / BUDGET.perMinute / 60).toFixed(1)} h at ${BUDGET.perMinute} a minute`;
const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const rows: [string, string, string, string][] = [];
const row = (measure: string, figure: string, target: string, floor = "") => {
  rows.push([measure, figure, target, floor]);
  console.log(`  ${measure.padEnd(44)} ${figure.padEnd(16)} target ${target}${floor ? `; ${floor}` : ""}`);
};
const large = PODS > 20_000;

const stopwatch = new PodStopwatch(clusterUrl);
const traces: { name: string; events: number[]; changes: number[]; roundMs: number }[] = [];
let controller = startController("controller-1");
let controllerPeak = 0;
const trackPeak = async () => (controllerPeak = Math.max(controllerPeak, await peakRss(controller.child.pid)));

// ---- cold sync -----------------------------------------------------------------------------------------------------
if (phases.has("cold")) {
  const ok = await converge(30 * 60_000);
  const coldMs = Date.now() - controller.spawnedAt;
  const requests = await emulatorHost.call<number>("clusterRequests");
  const posted = await metric(controller, "shiplog_controller_records_accepted_total");
  await trackPeak();
  console.log(`\ncold sync${ok ? "" : " (DID NOT CONVERGE)"}:`);
  row("records per request", (posted / Math.max(1, requests)).toFixed(0), ">= 999", `${requests} requests for ${posted} records`);
  row(
    "process start to converged",
    s(coldMs),
    large ? `within 10% of the floor (${s(budgetFloorMs(BUDGET, calls(recordsTotal)) * 1.1)})` : "<= 10 s",
    `budget floor ${s(budgetFloorMs(BUDGET, calls(recordsTotal)))} for ${calls(recordsTotal)} calls; ` +
      `one request per container event: ${eventsNeeded(containerInstances)}`,
  );
  row(
    "caches synced and desired state computed",
    controller.firstRoundAt ? s(controller.firstRoundAt - controller.spawnedAt) : "?",
    large ? "<= 30 s" : "report",
    "process start to the first round's diff",
  );
  console.log(`  write-ahead: ${await writeAheadCost(controller)}`);
  console.log(`  a round's time, mean: ${phaseLine({}, await roundPhases(controller))}`);
}
await converge(30 * 60_000);

// ---- single changes ------------------------------------------------------------------------------------------------
/**
 * Reads the state ConfigMap every 200 ms while a phase runs and times the fake cluster's answers: a state write waits
 * as long behind the fake cluster's own simulation (a real API server answers in milliseconds).
 */
function probeApiServer(): { stop(): Promise<string> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await fetch(`${clusterUrl}/api/v1/namespaces/${STATE_NAMESPACE}/configmaps/${STATE_CONFIGMAP}`)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
      times.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return `p50 ${s(pct(times, 50))}, max ${s(Math.max(...times))} over ${times.length} reads`;
    },
  };
}

/** Rolls `changed` workloads to `tag`; returns the records' Running -> landed latencies and the requests made. */
async function roll(changed: Spec[], tag: string, oneAtATime: boolean) {
  const images = changed.flatMap((spec) =>
    spec.containers.map((c) => ({ key: `${spec.namespace}-${spec.name}-${c.name}`, image: c.image.replace(/:[^:]+$/, `:${tag}`) })),
  );
  const digests = await clusterHost.call<string[]>(
    "digestsOf",
    images.map((i) => i.image),
  );
  const wanted = new Map(images.map((i, n) => [i.key, digests[n]!]));
  await emulatorHost.call("watch", [...wanted]);
  await stopwatch.watch(wanted, await clusterHost.call<string>("resourceVersion"));
  await emulatorHost.call("clearRequests");
  const cpuBefore = await cpuSeconds(controller.child.pid);
  const phasesBefore = await roundPhases(controller);
  const probe = probeApiServer();
  const started = Date.now();
  for (const spec of changed) {
    for (const c of spec.containers) c.image = c.image.replace(/:[^:]+$/, `:${tag}`);
    const change = {
      namespace: spec.namespace,
      name: spec.name,
      images: Object.fromEntries(spec.containers.map((c) => [c.name, c.image])),
    };
    if (oneAtATime) {
      await clusterHost.call("setImages", [change]);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  }
  if (!oneAtATime)
    await clusterHost.call(
      "setImages",
      changed.map((spec) => ({
        namespace: spec.namespace,
        name: spec.name,
        images: Object.fromEntries(spec.containers.map((c) => [c.name, c.image])),
      })),
    );
  const ok = await converge(30 * 60_000);
  const convergeMs = Date.now() - started;
  const apiServer = await probe.stop();
  const cpu = (await cpuSeconds(controller.child.pid)) - cpuBefore;
  const requests = await emulatorHost.call<number>("clusterRequests");
  // The records landed; the rounds that sent them finish (their answer writes) a little later.
  let phasesAfter = await roundPhases(controller);
  for (const end = Date.now() + 10_000; Date.now() < end; phasesAfter = await roundPhases(controller)) {
    const answered = phasesAfter.answer_write!.count - phasesBefore.answer_write!.count;
    if (answered >= phasesAfter.calls!.count - phasesBefore.calls!.count) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const phases = phaseLine(phasesBefore, phasesAfter);
  const means = phaseMeans(phasesBefore, phasesAfter);
  // A record waits for its round's plan, intent write and call; the answer write runs while the next round plans.
  const roundMs = ((means.plan ?? 0) + (means.intent_write ?? 0) + (means.calls ?? 0)) * 1000;
  const trace = { events: [...stopwatch.eventTimes], changes: [...stopwatch.firstRunning().values()].sort((a, b) => a - b), roundMs };
  const landed = new Map(await emulatorHost.call<[string, number][]>("landed"));
  const latencies = [...stopwatch.firstRunning()].flatMap(([name, at]) => (landed.has(name) ? [landed.get(name)! - at] : []));
  return {
    ok,
    convergeMs,
    cpu,
    requests,
    records: wanted.size,
    latencies,
    phases,
    trace,
    apiServer,
    podEvents: stopwatch.events,
    containerEvents: stopwatch.containerEvents,
  };
}

if (phases.has("single")) {
  const picked = Array.from({ length: SINGLE_CHANGES }, (_, k) => specs[Math.floor(WORKLOADS / 2) + k * 7]!);
  const r = await roll(picked, "1.1", true);
  traces.push({ name: "single changes", ...r.trace });
  await trackPeak();
  console.log(`\nsingle changes (${SINGLE_CHANGES} workloads rolled one at a time, 1.5 s apart)${r.ok ? "" : " (DID NOT CONVERGE)"}:`);
  row(
    "pod Running -> record, p99",
    s(pct(r.latencies, 99)),
    large ? "<= 1.5 s" : "<= 1 s",
    `p50 ${s(pct(r.latencies, 50))}, max ${s(Math.max(...r.latencies))} over ${r.latencies.length} records; ${r.requests} requests`,
  );
  console.log(`  a round's time, mean: ${r.phases}`);
}

// ---- rolling update of 10% of the workloads ------------------------------------------------------------------------
if (phases.has("roll")) {
  const r = await roll(specs.slice(0, ROLLED), "2.0", false);
  traces.push({ name: "rolling update", ...r.trace });
  await trackPeak();
  console.log(
    `\nrolling update of ${ROLLED} workloads (10%)${r.ok ? "" : " (DID NOT CONVERGE)"}: ${r.records} records, ` +
      `converged ${s(r.convergeMs)} after the first setImage`,
  );
  row("requests", String(r.requests), `<= ${calls(r.records) + 2}`, `one request per container event: ${eventsNeeded(r.containerEvents)}`);
  row(
    "pod Running -> record, p99",
    s(pct(r.latencies, 99)),
    large ? "<= 5 s" : "<= 2 s",
    `p50 ${s(pct(r.latencies, 50))} over ${r.latencies.length} records; ` +
      `budget floor for ${calls(r.records)} calls ${s(budgetFloorMs(BUDGET, calls(r.records)))}`,
  );
  console.log(`  a round's time, mean: ${r.phases}`);
  console.log(`  the fake cluster's answer to a ConfigMap read meanwhile: ${r.apiServer}`);
  row(
    "controller CPU per 1,000 pod changes",
    `${((r.cpu / Math.max(1, r.podEvents)) * 1000).toFixed(2)} s`,
    "report",
    `${r.cpu.toFixed(1)} s CPU for ${r.podEvents} pod watch events`,
  );
}

// ---- the coalescing window, replayed on the recorded traces -----------------------------------------------------------
// The phases above, replayed through the controller's schedule for other windows: the machine's noise (its load,
// the fake cluster's pauses) stays out, the window's own effect on calls and on a record's wait shows.
// A round's time is taken as measured, and as 300 ms (a round at 10,000 pods on a quiet machine), so the window's
// share of the wait shows apart from a loaded machine's. BENCH_TRACES=<file> keeps the traces as JSON.
if (process.env.BENCH_TRACES) writeFileSync(process.env.BENCH_TRACES, JSON.stringify(traces));
if (flags["window-sweep"]) {
  for (const trace of traces) {
    for (const roundMs of [trace.roundMs, 300]) {
      console.log(
        `\nwindow replay, ${trace.name}: ${trace.events.length} pod events, ${trace.changes.length} records, a round taking ${s(roundMs)}`,
      );
      console.log(`  ${"window".padEnd(8)} ${"max wait".padEnd(9)} ${"rounds".padEnd(7)} ${"calls".padEnd(6)} wait p50 / p99`);
      for (const windowMs of [0, 50, 100, 200, 500]) {
        for (const maxWaitMs of [500, 1000, 2000]) {
          if (maxWaitMs < windowMs) continue;
          const r = replayWindow(trace.events, trace.changes, windowMs, maxWaitMs, roundMs);
          console.log(
            `  ${`${windowMs}ms`.padEnd(8)} ${`${maxWaitMs}ms`.padEnd(9)} ${String(r.rounds).padEnd(7)} ` +
              `${String(r.calls).padEnd(6)} ${s(r.waitP50Ms)} / ${s(r.waitP99Ms)}`,
          );
        }
      }
    }
  }
}

// ---- steady state ----------------------------------------------------------------------------------------------------
if (phases.has("steady")) {
  const steady = await steadyStateCallsPerHour(recordsTotal, 600_000);
  console.log(
    `\nsteady state (virtual clock: the controller's flush loop and reconciler, ${recordsTotal} acknowledged records, ` +
      "10-minute resync, one hour):",
  );
  row(
    "calls an hour",
    String(steady.calls),
    large ? "<= 250" : "report",
    `${steady.resent} records resent (a full resend every 10 minutes would be ${6 * calls(recordsTotal)} calls)`,
  );
}
await trackPeak();
const fakeClusterPeak = await peakRss(clusterHost.child.pid);
console.log(`\nprocesses:`);
row(
  "controller peak RSS",
  mb(controllerPeak),
  large ? "<= 512 MB" : "<= 200 MB",
  `heap cap ${heapMb} MB; ${controller.warnings} warnings logged`,
);
row("fake cluster peak RSS", mb(fakeClusterPeak), large ? "<= 3 GB" : "report");
console.log(`  emulator peak RSS ${mb(await peakRss(emulatorHost.child.pid))}; load average ${loadavg()}`);
console.log(`  the emulator's secondary limits refused: ${JSON.stringify(await emulatorHost.call("secondaryRefusals"))}`);

// ---- restart after deletions -----------------------------------------------------------------------------------------
if (phases.has("restart")) {
  const stopStarted = Date.now();
  controller.child.kill("SIGTERM");
  await new Promise((resolve) => controller.child.once("exit", resolve));
  const stopMs = Date.now() - stopStarted;
  const state = await clusterHost.call<{ data: Record<string, string>; bytes: number } | undefined>(
    "configMap",
    STATE_NAMESPACE,
    STATE_CONFIGMAP,
  );
  const gone = specs.slice(WORKLOADS - DELETED);
  for (const spec of gone) deleted.add(spec.name);
  t0 = performance.now();
  await clusterHost.call(
    "deleteDeployments",
    gone.map((spec) => ({ namespace: spec.namespace, name: spec.name })),
  );
  const goneNames = gone.flatMap((spec) => spec.containers.map((c) => `${spec.namespace}-${spec.name}-${c.name}`));
  console.log(`\nrestart after ${DELETED} deletions while the controller was down:`);
  console.log(
    `  stop (SIGTERM) ${s(stopMs)}; state head ConfigMap ${state?.data.records ?? "?"} records, ` +
      `${((state?.bytes ?? 0) / 1e3).toFixed(0)} KB; deletions took ${s(performance.now() - t0)} in the fake cluster`,
  );
  await emulatorHost.call("markWrites");
  await emulatorHost.call("clearRequests");
  controller = startController("controller-2");
  const ok = await converge(30 * 60_000);
  const restartMs = Date.now() - controller.spawnedAt;
  const writes = await emulatorHost.call<{ others: number; decommissioned: number }>("writesSinceMark", goneNames);
  const requests = await emulatorHost.call<number>("clusterRequests");
  row(
    "reconciled after restart",
    s(restartMs),
    "report",
    `${requests} requests; budget floor ${s(budgetFloorMs(BUDGET, calls(goneNames.length)))}${ok ? "" : " (DID NOT CONVERGE)"}`,
  );
  row("records decommissioned", `${writes.decommissioned} of ${goneNames.length}`, "all");
  row("unchanged records posted again", String(writes.others), "0", `of ${recordsTotal - goneNames.length}`);
  console.log(`  write-ahead: ${await writeAheadCost(controller)}; controller peak RSS ${mb(await peakRss(controller.child.pid))}`);
  controller.child.kill("SIGTERM");
  await new Promise((resolve) => controller.child.once("exit", resolve));
} else {
  controller.child.kill("SIGTERM");
  await new Promise((resolve) => controller.child.once("exit", resolve));
}
stopwatch.stop();
await emulatorHost.stop();
await clusterHost.stop();

console.log(`\nload average at the end: ${loadavg()}`);
process.exit(0);
