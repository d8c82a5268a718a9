// The controller at scale, against issue #19's targets. Processes besides this one: the cluster (the fake cluster,
// hosts/fake-cluster-host.ts, or a real control plane's), the emulator (hosts/emulator-host.ts; both driven over IPC)
// and the controller (`node packages/controller/dist/bundle/controller.js`, the one file the image runs; state
// ConfigMap on, the write budget at its defaults), so each peak RSS is its own.
//
//   pnpm build && tsx test/bench/controller-sync.ts [--pods 10000] [--cluster fake|real|both] [--flush-window 200ms
//       --flush-max-wait 1s] [--phases cold,single,roll,steady,restart] [--controller-heap 128] [--emulator-options '{...}']
//       [--window-sweep] [--real-build controllers|bulk]
//
// --cluster real runs the same scenario against a real control plane (hosts/real-cluster.ts: etcd, kube-apiserver,
// the controller manager, the scheduler and KWOK's nodes, from `pnpm cluster:tools`) in place of the fake cluster, and
// adds the API server's and etcd's peak RSS; --cluster both runs the fake, then the real, and prints their figures
// side by side with the ratio (real / fake). --real-build bulk builds the real cluster's objects in bulk
// (hosts/real-cluster.ts: the Deployment and ReplicaSet controllers off meanwhile), for 150,000 pods on a small machine.
//
// Phases: the cold sync; single changes (one workload rolled at a time); a rolling update of 10% of the workloads;
// the steady state's calls an hour (on a virtual clock: the controller's own flush loop and reconciler, an hour of
// 10-minute resyncs); a restart after a third of the workloads were deleted while the controller was down (the state's
// size at 150,000 records: test/bench/state-sharding.ts). Each figure is printed beside its target, the floor the budget
// sets, and what one request per container event would have needed. Asserts nothing. BENCH_CHILD_LOG=<file> keeps
// the controller's log (BENCH_CHILD_LOG_LEVEL=debug for each round's summary).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { budgetFloorMs, DEFAULT_WRITE_BUDGET } from "../../packages/controller/src/flush/write-budget.js";
import { imageEnv } from "../kit/controller-image.js";
import { probeApiServer } from "./hosts/api-probe.js";
import { type BenchCluster, startFakeBenchCluster } from "./hosts/bench-cluster.js";
import { startBenchController } from "./hosts/bench-controller.js";
import { loadavg, mb, pct, s } from "./hosts/format.js";
import { cpuSeconds, peakRss, startHost } from "./hosts/ipc.js";
import { controllerFlushSettings, freshnessFloorCalls } from "./hosts/freshness-floor.js";
import { PodStopwatch } from "./hosts/pod-stopwatch.js";
import { startRealBenchCluster } from "./hosts/real-cluster.js";
import { benchWorkloads, type Spec } from "./hosts/workloads.js";
import { answeredPhases, phaseLine, phaseMeans, roundPhases, writeAheadCost } from "./hosts/round-metrics.js";
import { steadyStateCallsPerHour } from "./hosts/steady-state.js";
import { printWindowSweep, type Trace } from "./hosts/window-replay.js";

const { values: flags } = parseArgs({
  options: {
    pods: { type: "string", default: "10000" },
    cluster: { type: "string", default: "fake" },
    "flush-window": { type: "string" },
    "flush-max-wait": { type: "string" },
    phases: { type: "string", default: "cold,single,roll,steady,restart" },
    "controller-heap": { type: "string" },
    "emulator-options": { type: "string", default: "{}" },
    "window-sweep": { type: "boolean", default: false },
    "real-build": { type: "string", default: "controllers" },
  },
});
const REAL_BUILD = flags["real-build"] as "controllers" | "bulk";
if (REAL_BUILD !== "controllers" && REAL_BUILD !== "bulk") throw new Error(`--real-build: controllers or bulk, not ${flags["real-build"]}`);
const CLUSTERS = flags.cluster === "both" ? ["fake", "real"] : [flags.cluster!];
if (!CLUSTERS.every((kind) => kind === "fake" || kind === "real")) throw new Error(`--cluster: fake, real or both, not ${flags.cluster}`);
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
const BUDGET = DEFAULT_WRITE_BUDGET;
// A heap cap that scales with the cluster (384 MB at 150,000 pods: the chart's cap for a 768Mi limit); the chart's
// default is half its 512Mi limit (256), so a deployment at 10,000 pods has more room than this bench gives it.
const heapMb = Number(flags["controller-heap"] ?? Math.max(128, Math.round((PODS / 150_000) * 384)));
const here = dirname(fileURLToPath(import.meta.url));
const emulatorOptions = JSON.parse(flags["emulator-options"]!) as Record<string, unknown>;

// The controller's node flags: the heap cap; BENCH_CHILD_NODE_FLAGS adds node flags (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof" to profile it). The chart's NODE_OPTIONS (charts/shiplog-controller/templates/_helpers.tpl):
// the heap cap, and 8 MB semi-spaces.
const nodeFlags = [
  `--max-old-space-size=${heapMb}`,
  "--max-semi-space-size=8",
  ...(process.env.BENCH_CHILD_NODE_FLAGS ?? "").split(" ").filter(Boolean),
];
// The image's environment (its Dockerfile's ENV); BENCH_CHILD_ENV adds variables (JSON, e.g. '{"MALLOC_ARENA_MAX":"2"}').
const childEnv = {
  ...imageEnv(),
  ...(JSON.parse(process.env.BENCH_CHILD_ENV ?? "{}") as Record<string, string>),
  ...(flags["flush-window"] ? { SHIPLOG_FLUSH_WINDOW: flags["flush-window"] } : {}),
  ...(flags["flush-max-wait"] ? { SHIPLOG_FLUSH_MAX_WAIT: flags["flush-max-wait"] } : {}),
};
const calls = (records: number) => Math.ceil(records / 1000);
/** The issue's floor: calls paced evenly at the per-minute limit (the budget itself lets a burst go at once). */
const pacedFloorMs = (n: number) => (Math.max(0, n - 1) * 60_000) / BUDGET.perMinute;
const floors = (n: number) =>
  `budget floor ${s(budgetFloorMs(BUDGET, n))} for ${n} calls (paced evenly, the issue's floor: ${s(pacedFloorMs(n))})`;
const eventsNeeded = (events: number) =>
  `${events} requests, ${(events / BUDGET.perMinute / 60).toFixed(1)} h at ${BUDGET.perMinute} a minute`;
const row = (measure: string, figure: string, target: string, floor = "") =>
  console.log(`  ${measure.padEnd(44)} ${figure.padEnd(16)} target ${target}${floor ? `; ${floor}` : ""}`);
const large = PODS > 20_000;

/** A run's figures, by measure, for the side-by-side table: the number compared and how it prints. */
type Figures = Map<string, { value: number; text: string }>;

/** The whole scenario against one cluster ("fake" or "real"); prints each figure as it comes, returns them. */
async function benchmark(kind: string): Promise<Figures> {
  const figures: Figures = new Map();
  const note = (measure: string, value: number, text: string) => figures.set(measure, { value, text });
  note("load average at the start", Number.NaN, loadavg());
  console.log(
    `\n==== ${kind} cluster ====\ncontroller-sync: ${PODS} pods asked, ${WORKLOADS} Deployments (3-4 replicas, 1-3 containers) in ` +
      `${NAMESPACES} namespaces; load average ${loadavg()}`,
  );

  // ---- the cluster (the fake in its own process, or a real control plane) and the emulator in its own process -----
  let t0 = performance.now();
  const cluster: BenchCluster =
    kind === "real"
      ? await startRealBenchCluster(PODS, [STATE_NAMESPACE], (step) => console.log(`  control plane: ${step}`), REAL_BUILD)
      : await startFakeBenchCluster(PODS, [STATE_NAMESPACE]);
  if (kind === "real") console.log(`control plane up in ${s(performance.now() - t0)}`);
  const emulatorHost = await startHost(join(here, "hosts/emulator-host.ts"));
  const { url: apiUrl, token } = await emulatorHost.call<{ url: string; token: string }>("start", {
    cluster: CLUSTER,
    extra: emulatorOptions,
  });
  console.log(`emulator options: ${JSON.stringify(emulatorOptions)} (the service's secondary limits are on, the emulator's default)`);

  const specs = benchWorkloads(WORKLOADS, NAMESPACES);
  t0 = performance.now();
  const { pods, containers: containerInstances } = await cluster.createDeployments(specs);
  const recordsTotal = specs.reduce((n, spec) => n + spec.containers.length, 0);
  note("cluster built (all pods running)", performance.now() - t0, s(performance.now() - t0));
  console.log(
    `${kind} cluster: ${pods} pods, ${containerInstances} running containers, ${recordsTotal} deployment names ` +
      `(built in ${s(performance.now() - t0)}; load average ${loadavg()})`,
  );

  /** What the cluster runs: deployment name -> digest, from the bench's own specs (live workloads only). */
  const deleted = new Set<string>();
  async function expected(): Promise<[string, string][]> {
    const live = specs.filter((spec) => !deleted.has(spec.name));
    const containers = live.flatMap((spec) =>
      spec.containers.map((c) => ({ key: `${spec.namespace}-${spec.name}-${c.name}`, image: c.image })),
    );
    const digests = await cluster.digestsOf(containers.map((c) => c.image));
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

  // ---- the controller process ------------------------------------------------------------------------------------
  console.log(
    `controller: node ${nodeFlags.join(" ")} packages/controller/dist/bundle/controller.js ${JSON.stringify(childEnv)} ` +
      "(the image's environment; heap cap scaled to the cluster, --controller-heap to change; defaults otherwise)",
  );
  const startController = (podName: string) =>
    startBenchController({
      kubeconfig: cluster.kubeconfig,
      apiUrl,
      token,
      cluster: CLUSTER,
      stateNamespace: STATE_NAMESPACE,
      stateConfigMap: STATE_CONFIGMAP,
      podName,
      nodeFlags,
      env: childEnv,
    });

  const stopwatch = new PodStopwatch(cluster.get);
  const traces: Trace[] = [];
  let controller = startController("controller-1");
  let controllerPeak = 0;
  const trackPeak = async () => (controllerPeak = Math.max(controllerPeak, await peakRss(controller.pid)));

  // ---- cold sync ---------------------------------------------------------------------------------------------------
  if (phases.has("cold")) {
    const ok = await converge(30 * 60_000);
    const coldMs = Date.now() - controller.spawnedAt;
    const requests = await emulatorHost.call<number>("clusterRequests");
    const posted = await controller.metric("shiplog_controller_records_accepted_total");
    await trackPeak();
    console.log(`\ncold sync${ok ? "" : " (DID NOT CONVERGE)"}:`);
    row("records per request", (posted / Math.max(1, requests)).toFixed(0), ">= 999", `${requests} requests for ${posted} records`);
    note("cold sync: requests", requests, `${requests} for ${posted} records`);
    const coldCalls = calls(recordsTotal);
    row(
      "process start to converged",
      s(coldMs),
      large
        ? `within 10% of the floor (${s(budgetFloorMs(BUDGET, coldCalls) * 1.1)}; of the paced floor ${s(pacedFloorMs(coldCalls) * 1.1)})`
        : "<= 10 s",
      `${floors(coldCalls)}; one request per container event: ${eventsNeeded(containerInstances)}`,
    );
    note("cold sync: process start to converged", coldMs, `${s(coldMs)}${ok ? "" : " (DID NOT CONVERGE)"}`);
    const syncedMs = controller.syncedAt ? controller.syncedAt - controller.spawnedAt : Number.NaN;
    row(
      "caches synced and desired state computed",
      controller.syncedAt ? s(syncedMs) : "?",
      large ? "<= 30 s" : "report",
      "process start to every cache listed and the desired state computed" +
        (controller.firstPartialRoundAt
          ? `; posting began while the pods were listing, ${s(controller.firstPartialRoundAt - controller.spawnedAt)} after start`
          : ""),
    );
    note("caches synced and desired state computed", syncedMs, controller.syncedAt ? s(syncedMs) : "?");
    console.log(`  write-ahead: ${await writeAheadCost(controller.metric)}`);
    console.log(`  a round's time, mean: ${phaseLine({}, await roundPhases(controller.metric))}`);
  }
  await converge(30 * 60_000);

  // ---- single changes ----------------------------------------------------------------------------------------------
  /** Rolls `changed` workloads to `tag`; returns the records' Running -> landed latencies and the requests made. */
  async function roll(changed: Spec[], tag: string, oneAtATime: boolean) {
    const images = changed.flatMap((spec) =>
      spec.containers.map((c) => ({ key: `${spec.namespace}-${spec.name}-${c.name}`, image: c.image.replace(/:[^:]+$/, `:${tag}`) })),
    );
    const digests = await cluster.digestsOf(images.map((i) => i.image));
    const wanted = new Map(images.map((i, n) => [i.key, digests[n]!]));
    await emulatorHost.call("watch", [...wanted]);
    await stopwatch.watch(wanted, await cluster.resourceVersion());
    await emulatorHost.call("clearRequests");
    const cpuBefore = await cpuSeconds(controller.pid);
    const phasesBefore = await roundPhases(controller.metric);
    const probe = probeApiServer(cluster.get, `/api/v1/namespaces/${STATE_NAMESPACE}/configmaps/${STATE_CONFIGMAP}`);
    const started = Date.now();
    const change = (spec: Spec) => ({
      namespace: spec.namespace,
      name: spec.name,
      images: Object.fromEntries(spec.containers.map((c) => [c.name, c.image])),
    });
    for (const spec of changed) {
      for (const c of spec.containers) c.image = c.image.replace(/:[^:]+$/, `:${tag}`);
      if (oneAtATime) {
        await cluster.setImages([change(spec)]);
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
    }
    if (!oneAtATime) await cluster.setImages(changed.map(change));
    const ok = await converge(30 * 60_000);
    const convergeMs = Date.now() - started;
    const apiServer = await probe.stop();
    const cpu = (await cpuSeconds(controller.pid)) - cpuBefore;
    const requests = await emulatorHost.call<number>("clusterRequests");
    const phasesAfter = await answeredPhases(controller.metric, phasesBefore);
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
    note("single change: pod Running -> record, p99", pct(r.latencies, 99), s(pct(r.latencies, 99)));
    note("single change: p50", pct(r.latencies, 50), s(pct(r.latencies, 50)));
    note("single changes: requests", r.requests, `${r.requests} for ${r.latencies.length} records`);
    console.log(`  a round's time, mean: ${r.phases}`);
  }

  // ---- rolling update of 10% of the workloads ----------------------------------------------------------------------
  if (phases.has("roll")) {
    const r = await roll(specs.slice(0, ROLLED), "2.0", false);
    traces.push({ name: "rolling update", ...r.trace });
    await trackPeak();
    console.log(
      `\nrolling update of ${ROLLED} workloads (10%)${r.ok ? "" : " (DID NOT CONVERGE)"}: ${r.records} records, ` +
        `converged ${s(r.convergeMs)} after the first setImage`,
    );
    // Issue #19's target (ceil(records / 1000) + 2) on the fewest calls that keep every record within the flush's
    // maximum wait as the records arrived (hosts/freshness-floor.ts): the same for a burst, more when the cluster
    // rolls pod by pod.
    const flush = controllerFlushSettings(childEnv);
    const spreadMs = r.trace.changes.length > 0 ? r.trace.changes.at(-1)! - r.trace.changes[0]! : 0;
    const floor = freshnessFloorCalls(r.trace.changes, flush.maxWaitMs, flush.batch);
    row(
      "requests",
      String(r.requests),
      `<= ${floor + 2}`,
      `records became sendable over ${s(spreadMs)}: at least ${floor} calls to keep each within the ${s(flush.maxWaitMs)} ` +
        `max wait (${calls(r.records)} for one burst); one request per container event: ${eventsNeeded(r.containerEvents)}`,
    );
    note("rollout: records became sendable over", spreadMs, s(spreadMs));
    note("rollout: freshness floor (calls)", floor, String(floor));
    row(
      "pod Running -> record, p99",
      s(pct(r.latencies, 99)),
      large ? "<= 5 s" : "<= 2 s",
      `p50 ${s(pct(r.latencies, 50))} over ${r.latencies.length} records; ` + floors(calls(r.records)),
    );
    console.log(`  a round's time, mean: ${r.phases}`);
    console.log(`  the ${kind} cluster's answer to a ConfigMap read meanwhile: ${r.apiServer}`);
    const cpuPerThousand = (r.cpu / Math.max(1, r.podEvents)) * 1000;
    row(
      "controller CPU per 1,000 pod changes",
      `${cpuPerThousand.toFixed(2)} s`,
      "report",
      `${r.cpu.toFixed(1)} s CPU for ${r.podEvents} pod watch events`,
    );
    note("rollout: first change to converged", r.convergeMs, `${s(r.convergeMs)}${r.ok ? "" : " (DID NOT CONVERGE)"}`);
    note("rollout: requests", r.requests, `${r.requests} for ${r.records} records`);
    note("rollout: pod Running -> record, p99", pct(r.latencies, 99), s(pct(r.latencies, 99)));
    note("rollout: pod watch events", r.podEvents, String(r.podEvents));
    note("rollout: controller CPU", r.cpu, `${r.cpu.toFixed(1)} s`);
    note("rollout: controller CPU per 1,000 pod events", cpuPerThousand, `${cpuPerThousand.toFixed(2)} s`);
  }

  // ---- the coalescing window, replayed on the recorded traces ------------------------------------------------------
  // The phases above, replayed through the controller's schedule for other windows: the machine's noise (its load,
  // the fake cluster's pauses) stays out, the window's own effect on calls and on a record's wait shows.
  // A round's time is taken as measured, and as 300 ms (a round at 10,000 pods on a quiet machine), so the window's
  // share of the wait shows apart from a loaded machine's. BENCH_TRACES=<file> keeps the traces as JSON.
  if (process.env.BENCH_TRACES) writeFileSync(process.env.BENCH_TRACES, JSON.stringify(traces));
  if (flags["window-sweep"]) printWindowSweep(traces);

  // ---- steady state --------------------------------------------------------------------------------------------------
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
    note("steady state: calls an hour (virtual clock)", steady.calls, String(steady.calls));
  }
  await trackPeak();
  const clusterPeaks = await cluster.peakMemory();
  console.log(`\nprocesses:`);
  row(
    "controller peak RSS",
    mb(controllerPeak),
    large ? "<= 512 MB" : "<= 200 MB",
    `heap cap ${heapMb} MB; ${controller.warnings()} warnings logged`,
  );
  note("controller peak RSS", controllerPeak, mb(controllerPeak));
  for (const [name, bytes] of Object.entries(clusterPeaks)) {
    row(`${name} peak RSS`, mb(bytes), kind === "fake" ? (large ? "<= 3 GB" : "report") : "report");
    note(`${name} peak RSS`, bytes, mb(bytes));
  }
  const emulatorPeak = await peakRss(emulatorHost.child.pid);
  console.log(`  emulator peak RSS ${mb(emulatorPeak)}; load average ${loadavg()}`);
  note("emulator peak RSS", emulatorPeak, mb(emulatorPeak));
  console.log(`  the emulator's secondary limits refused: ${JSON.stringify(await emulatorHost.call("secondaryRefusals"))}`);

  // ---- restart after deletions ---------------------------------------------------------------------------------------
  if (phases.has("restart")) {
    const stopStarted = Date.now();
    await controller.stop();
    const stopMs = Date.now() - stopStarted;
    const state = await cluster.configMap(STATE_NAMESPACE, STATE_CONFIGMAP);
    const gone = specs.slice(WORKLOADS - DELETED);
    for (const spec of gone) deleted.add(spec.name);
    t0 = performance.now();
    await cluster.deleteDeployments(gone.map((spec) => ({ namespace: spec.namespace, name: spec.name })));
    const goneNames = gone.flatMap((spec) => spec.containers.map((c) => `${spec.namespace}-${spec.name}-${c.name}`));
    console.log(`\nrestart after ${DELETED} deletions while the controller was down:`);
    console.log(
      `  stop (SIGTERM) ${s(stopMs)}; state head ConfigMap ${state?.data.records ?? "?"} records, ` +
        `${((state?.bytes ?? 0) / 1e3).toFixed(0)} KB; deletions took ${s(performance.now() - t0)} in the ${kind} cluster ` +
        "(until their pods were gone)",
    );
    await emulatorHost.call("markWrites");
    await emulatorHost.call("clearRequests");
    controller = startController("controller-2");
    const ok = await converge(30 * 60_000);
    const restartMs = Date.now() - controller.spawnedAt;
    await answeredPhases(controller.metric, {});
    const writes = await emulatorHost.call<{ others: number; decommissioned: number }>("writesSinceMark", goneNames);
    const requests = await emulatorHost.call<number>("clusterRequests");
    row(
      "reconciled after restart",
      s(restartMs),
      "report",
      `${requests} requests; ${floors(calls(goneNames.length))}${ok ? "" : " (DID NOT CONVERGE)"}`,
    );
    row("records decommissioned", `${writes.decommissioned} of ${goneNames.length}`, "all");
    row("unchanged records posted again", String(writes.others), "0", `of ${recordsTotal - goneNames.length}`);
    note("restart after deletions: reconciled", restartMs, `${s(restartMs)}${ok ? "" : " (DID NOT CONVERGE)"}`);
    note("restart: requests", requests, String(requests));
    note("restart: records decommissioned", writes.decommissioned, `${writes.decommissioned} of ${goneNames.length}`);
    note("restart: unchanged records posted again", writes.others, String(writes.others));
    console.log(`  write-ahead: ${await writeAheadCost(controller.metric)}; controller peak RSS ${mb(await peakRss(controller.pid))}`);
  }
  await controller.stop();
  if (phases.has("restart")) {
    // The API server's and etcd's peaks include the deletions and the restart.
    for (const [name, bytes] of Object.entries(await cluster.peakMemory())) note(`${name} peak RSS`, bytes, mb(bytes));
  }
  stopwatch.stop();
  await emulatorHost.stop();
  await cluster.stop();
  console.log(`\nload average at the end: ${loadavg()}`);
  note("load average at the end", Number.NaN, loadavg());
  return figures;
}

/** The runs' figures side by side, with the ratio of the last to the first where both are numbers. */
function printSideBySide(runs: [string, Figures][]): void {
  const END = "load average at the end";
  const measures = [...new Set(runs.flatMap(([, figures]) => [...figures.keys()]))].filter((m) => m !== END).concat(END);
  const [first, last] = [runs[0]![1], runs.at(-1)![1]];
  console.log(`\n==== side by side, ${PODS} pods ====`);
  console.log(`  ${"measure".padEnd(48)} ${runs.map(([kind]) => kind.padEnd(24)).join(" ")} ${runs.at(-1)![0]} / ${runs[0]![0]}`);
  for (const measure of measures) {
    const cells = runs.map(([, figures]) => (figures.get(measure)?.text ?? "-").padEnd(24));
    const a = first.get(measure)?.value;
    const b = last.get(measure)?.value;
    const ratio = a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && a > 0 ? `${(b / a).toFixed(2)}×` : "";
    console.log(`  ${measure.padEnd(48)} ${cells.join(" ")} ${ratio}`);
  }
}

const runs: [string, Figures][] = [];
for (const kind of CLUSTERS) runs.push([kind, await benchmark(kind)]);
if (runs.length > 1) printSideBySide(runs);
process.exit(0);
