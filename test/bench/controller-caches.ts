// The controller's data side at 10,000 and 150,000 pods (3 pods per Deployment, 1 to 3 containers): its informer
// caches filled over HTTP from a synthetic API server (`synthetic-kube-api.ts`, its own process: the fake cluster
// cannot hold 150,000 pods yet) and its desired-state tracker fed by their events. Each size runs in a fresh probe
// process (`--expose-gc`), so its heap is its own. Prints side by side: heap bytes per pod, time to list and build
// the desired state, time and CPU for 1,000 pod changes with the incremental tracker vs a full computeDesiredState,
// and the diff time with and without `keys`. Asserts nothing, but says whether the tracker's state and the keyed
// diff equal the full computations. Times are medians of 3 rounds; on a loaded machine read the CPU figures.
//   npx tsx test/bench/controller-caches.ts [--pods 10000,150000] [--controller <a build's dist/internal.js>]
// `--controller` measures another build (an older commit's: before the internal subpath, its dist/index.js) the
// same way; what it lacks is left blank ("-").
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DesiredState } from "@shiplog/controller";

type Controller = typeof import("@shiplog/controller/internal");
const here = dirname(fileURLToPath(import.meta.url));
const CHANGES = 1000;
const ROUNDS = 3;
const MAPPING = {
  cluster: "bench",
  logicalEnvironment: "production",
  physicalEnvironment: "eu-west-1",
  deploymentNameTemplate: "{namespace}-{workload}-{container}",
};

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

/** Figures of one round of CHANGES pod changes. */
interface Round {
  applyCpuMs: number;
  trackerMs?: number;
  trackerCpuMs?: number;
  changedKeys?: number;
  equal?: boolean;
  fullMs: number;
  fullCpuMs: number;
  diffAllMs: number;
  diffKeysMs?: number;
  diffEqual?: boolean;
}

interface ProbeResult {
  pods: number;
  records: number;
  cacheBytesPerPod: number;
  stateBytesPerPod: number;
  syncMs: number;
  syncCpuMs: number;
  firstStateMs?: number;
  firstStateCpuMs?: number;
  fullComputeMs: number;
  rounds: Round[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const timed = <T>(run: () => T): { value: T; ms: number; cpuMs: number } => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started, cpuMs: cpuMs(cpu) };
};

function sameState(mod: Controller, a: DesiredState, b: DesiredState): boolean {
  if (a.records.size !== b.records.size || a.held.size !== b.held.size) return false;
  for (const [key, record] of a.records) {
    const other = b.records.get(key);
    if (!other || mod.entryFingerprint(other.entry) !== mod.entryFingerprint(record.entry)) return false;
  }
  return [...a.held].every((key) => b.held.has(key));
}

async function probe(url: string, pods: number, modulePath: string | undefined): Promise<ProbeResult> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const mod = (await import(modulePath ? pathToFileURL(modulePath).href : "@shiplog/controller/internal")) as Controller;
  const { KubeConfig } = await import("@kubernetes/client-node");
  const { pino } = await import("pino");
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "bench", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const Tracker = (mod as Partial<Controller>).DesiredStateTracker;
  let podEvents = 0;
  let tracker: InstanceType<Controller["DesiredStateTracker"]> | undefined;
  const heap0 = heap();
  const syncCpu = process.cpuUsage();
  const started = performance.now();
  const informers = new mod.ClusterInformers({
    kubeConfig,
    namespaces: [],
    watchTimeoutSeconds: 600,
    watchIdleTimeoutMs: 630_000,
    requestTimeoutMs: 60_000,
    logger: pino({ level: "silent" }),
    onChange: (kind, namespace?: string, name?: string) => {
      if (kind === "Pod") podEvents++;
      tracker?.objectChanged(kind, namespace!, name!);
    },
  });
  if (Tracker) tracker = new Tracker(informers, MAPPING);
  informers.start();
  await informers.waitForSync();
  const syncMs = performance.now() - started;
  const syncCpuMs = cpuMs(syncCpu);
  const heapCaches = heap();
  const first = tracker ? timed(() => tracker!.state()) : undefined;
  tracker?.changedKeys();
  // The previous controller kept a memo of every pod's records beside its caches: measure it as it ran.
  const Memo = (mod as { PodRecordsMemo?: new () => unknown }).PodRecordsMemo;
  const options = { ...MAPPING, ...(Memo ? { memo: new Memo() as never } : {}) };
  const cold = timed(() => mod.computeDesiredState(informers, options));
  // Kept: the tracker's state, or (the previous controller) the full computation's with its memo.
  const state = first?.value ?? cold.value;
  cold.value = undefined as never;
  const heapState = heap();
  // What the service holds once converged: every desired record, acknowledged.
  const acknowledged = new Map([...state.records].map(([key, r]) => [key, { key, group: r.group, entry: r.entry }]));
  const records = state.records.size;

  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = podEvents;
    const applyCpu = process.cpuUsage();
    await fetch(`${url}/admin/change?count=${CHANGES}`, { method: "POST" });
    while (podEvents < before + CHANGES) await new Promise((resolve) => setTimeout(resolve, 5));
    const applyCpuMs = cpuMs(applyCpu);
    const incremental = tracker ? timed(() => ({ state: tracker!.state(), changed: tracker!.changedKeys() })) : undefined;
    const full = timed(() => mod.computeDesiredState(informers, options));
    const diffAll = timed(() => mod.diffRecords(full.value, acknowledged));
    const changed = incremental?.value.changed;
    const keys = changed && changed !== "all" ? changed : undefined;
    const keyed = keys ? timed(() => mod.diffRecords(incremental!.value.state, acknowledged, { keys })) : undefined;
    const text = (list: typeof diffAll.value) =>
      list
        .map((p) => `${p.key} ${mod.entryFingerprint(p.entry)}`)
        .sort()
        .join("\n");
    rounds.push({
      applyCpuMs,
      fullMs: full.ms,
      fullCpuMs: full.cpuMs,
      diffAllMs: diffAll.ms,
      ...(incremental
        ? {
            trackerMs: incremental.ms,
            trackerCpuMs: incremental.cpuMs,
            changedKeys: changed === "all" ? -1 : changed!.size,
            equal: sameState(mod, incremental.value.state, full.value),
          }
        : {}),
      ...(keyed ? { diffKeysMs: keyed.ms, diffEqual: text(keyed.value) === text(diffAll.value) } : {}),
    });
    for (const p of diffAll.value) acknowledged.set(p.key, { key: p.key, group: p.group, entry: p.entry });
  }
  await informers.stop();
  return {
    pods,
    records,
    cacheBytesPerPod: (heapCaches - heap0) / pods,
    stateBytesPerPod: (heapState - heap0) / pods,
    syncMs,
    syncCpuMs,
    ...(first ? { firstStateMs: first.ms, firstStateCpuMs: first.cpuMs } : {}),
    fullComputeMs: cold.ms,
    rounds,
  };
}

function child(args: string[], onLine: (line: string) => void): { kill(): void; done: Promise<number> } {
  const process_ = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  createInterface({ input: process_.stdout }).on("line", onLine);
  return { kill: () => process_.kill("SIGTERM"), done: new Promise((resolve) => process_.on("close", (code) => resolve(code ?? 1))) };
}

async function measure(pods: number, modulePath: string | undefined): Promise<ProbeResult> {
  let known!: (url: string) => void;
  const url = new Promise<string>((resolve) => (known = resolve));
  const serverArgs = ["--import", "tsx", join(here, "synthetic-kube-api.ts"), "--pods", String(pods)];
  const server = child(serverArgs, (line) => known(JSON.parse(line).url));
  let result: ProbeResult | undefined;
  const args = ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--probe", await url, "--pods", String(pods)];
  if (modulePath) args.push("--controller", modulePath);
  const probed = child(args, (line) => {
    if (line.startsWith("{")) result = JSON.parse(line) as ProbeResult;
    else console.log(line);
  });
  const code = await probed.done;
  server.kill();
  await server.done;
  if (code !== 0 || !result) throw new Error(`probe at ${pods} pods failed (exit ${code})`);
  return result;
}

const fmt = (value: number | undefined, digits = 0) => (value === undefined ? "-" : value.toFixed(digits));
const pair = (a: number | undefined, b: number | undefined, digits = 0) =>
  a === undefined ? "-" : `${fmt(a, digits)} / ${fmt(b, digits)}`;
const mid = (r: ProbeResult, key: keyof Round) =>
  r.rounds[0]![key] === undefined ? undefined : median(r.rounds.map((x) => Number(x[key])));
const all = (r: ProbeResult, key: "equal" | "diffEqual") =>
  r.rounds[0]![key] === undefined ? "-" : r.rounds.every((x) => x[key]) ? "yes" : "NO";
const times = (x: number | undefined, y: number | undefined) => (x && y ? `${fmt(x / y, 1)}x` : "-");

function table(results: ProbeResult[]): void {
  const rows: [string, (r: ProbeResult) => string][] = [
    ["desired records", (r) => String(r.records)],
    ["heap bytes per pod: informer caches", (r) => fmt(r.cacheBytesPerPod)],
    ["heap bytes per pod: caches + desired state", (r) => fmt(r.stateBytesPerPod)],
    ["list until caches synced, wall / CPU (ms)", (r) => pair(r.syncMs, r.syncCpuMs)],
    ["first desired state (tracker), wall / CPU (ms)", (r) => pair(r.firstStateMs, r.firstStateCpuMs)],
    ["full computeDesiredState, first (ms)", (r) => fmt(r.fullComputeMs)],
    ["synced + desired state, wall (s)", (r) => fmt((r.syncMs + (r.firstStateMs ?? r.fullComputeMs)) / 1000, 1)],
    [`${CHANGES} pod changes: watch events in the caches, CPU (ms)`, (r) => fmt(mid(r, "applyCpuMs"))],
    [`${CHANGES} pod changes: tracker, wall / CPU (ms)`, (r) => pair(mid(r, "trackerMs"), mid(r, "trackerCpuMs"), 1)],
    [`${CHANGES} pod changes: full computeDesiredState, wall / CPU (ms)`, (r) => pair(mid(r, "fullMs"), mid(r, "fullCpuMs"), 1)],
    ["  full / tracker, CPU", (r) => times(mid(r, "fullCpuMs"), mid(r, "trackerCpuMs"))],
    ["  keys changed; tracker state equals the full one", (r) => `${fmt(mid(r, "changedKeys"))}; ${all(r, "equal")}`],
    ["diff, every key (ms)", (r) => fmt(mid(r, "diffAllMs"), 1)],
    ["diff, changed keys (ms)", (r) => fmt(mid(r, "diffKeysMs"), 1)],
    ["  every / changed; same entries", (r) => `${times(mid(r, "diffAllMs"), mid(r, "diffKeysMs"))}; ${all(r, "diffEqual")}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  console.log(`${"".padEnd(width)}${results.map((r) => `${r.pods.toLocaleString("en")} pods`.padStart(22)).join("")}`);
  for (const [label, cell] of rows) console.log(`${label.padEnd(width)}${results.map((r) => cell(r).padStart(22)).join("")}`);
  if (results.length !== 2) return;
  const [a, b] = results as [ProbeResult, ProbeResult];
  const grew = (key: keyof Round) => times(mid(b, key), mid(a, key));
  console.log(
    `\n${fmt(b.pods / a.pods)}x the pods (CPU): sync ${times(b.syncCpuMs, a.syncCpuMs)}, ` +
      `full computation ${grew("fullCpuMs")}, tracker ${grew("trackerCpuMs")}; keyed diff ${grew("diffKeysMs")} (wall)`,
  );
}

if (process.argv.includes("--probe")) {
  console.log(JSON.stringify(await probe(flag("--probe")!, Number(flag("--pods")), flag("--controller"))));
  process.exit(0);
} else {
  const sizes = (flag("--pods") ?? "10000,150000").split(",").map(Number);
  console.log(
    `controller caches and desired state; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const results: ProbeResult[] = [];
  for (const pods of sizes) {
    try {
      results.push(await measure(pods, flag("--controller")));
    } catch (error) {
      console.log(`${pods} pods: ${(error as Error).message}`);
    }
  }
  table(results);
  console.log(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}
