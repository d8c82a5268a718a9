// The fake cluster at scale, as its own process (`shiplog-fake-cluster`): with a pod watch open (as a controller's
// informer would be), its admin endpoint builds N pods (Deployments of 3 replicas, 1-3 containers) through the
// scripting API's bulk path; then this process measures over HTTP a full pod list unpaged and paged by 500 (as
// client-go pages), and a watch replaying the kept history; the admin endpoint reports the fake cluster's live heap
// (after a full GC) and peak RSS. Prints figures; asserts nothing.
//
//   pnpm exec tsx test/bench/fake-cluster-scale.ts [--pods 10000[,150000]] [--baseline DIR]
//
// --baseline DIR: also run, first and at the same sizes, the fake cluster of another checkout (DIR is its
// packages/fake-cluster, built), with the same fleet and admin endpoint from this checkout around it, and print
// before/after ratios. For example, to compare with main:
//   git worktree add /tmp/fc-base main && (cd /tmp/fc-base && pnpm install --frozen-lockfile && npx tsc -b packages/fake-cluster)
//   pnpm exec tsx test/bench/fake-cluster-scale.ts --pods 10000 --baseline /tmp/fc-base/packages/fake-cluster
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const fakeCluster = join(here, "..", "..", "packages", "fake-cluster");
const NODES = "node-1,node-2,node-3,node-4";
// Both fake clusters run with the heap growth the CLI sets by default (stated here so the baseline gets it too), and
// with gc exposed so that the admin endpoint can measure the live heap after a full collection.
const NODE_FLAGS = ["--expose-gc", "--heap-growing-percent=50"];

const { values } = parseArgs({
  options: { pods: { type: "string", default: "10000" }, baseline: { type: "string" }, host: { type: "string" } },
});

/** POSTs a JSON body to the admin endpoint and reads the JSON answer, with no time limit (a build takes minutes). */
function post<T>(url: string, body: unknown): Promise<{ status: number; body: T }> {
  return new Promise((resolvePost, reject) => {
    const request = http.request(url, { method: "POST", headers: { "content-type": "application/json" } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolvePost({ status: response.statusCode ?? 0, body: JSON.parse(text) as T }));
    });
    request.on("error", reject).end(JSON.stringify(body));
  });
}

interface Status {
  resourceVersion: string;
  pods: number;
  memory: { rss: number; peakRss?: number; heapUsed: number };
}

interface Figures {
  pods: number;
  buildS: number;
  buildCpuS: number;
  podsPerS: number;
  liveHeapMb: number;
  bytesPerPod: number;
  unpagedS: number;
  unpagedMb: number;
  pagedS: number;
  pages: number;
  replayEvents: number;
  replayMb: number;
  replayS: number;
  peakRssMb: number;
}

const mb = (bytes: number) => bytes / 1e6;
const seconds = (ms: number) => ms / 1000;

/** CPU seconds a process has used (Linux /proc: utime + stime in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function status(admin: string, gc = false): Promise<Status> {
  return (await (await fetch(`${admin}/status${gc ? "?gc=true" : ""}`)).json()) as Status;
}

// Once in each pod (its metadata's): a list's items carry no kind, as the API server writes them.
const ITEM = Buffer.from('"creationTimestamp":"');

/** Reads a response body to its end as bytes (no decoding: the figure is the server's), counting the pods in it. */
async function drain(response: Response): Promise<{ bytes: number; items: number; head: string }> {
  let bytes = 0;
  let items = 0;
  let carry = Buffer.alloc(0);
  let head = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    const data = Buffer.concat([carry, chunk]);
    if (head === "") head = data.subarray(0, 4096).toString("latin1");
    for (let i = data.indexOf(ITEM); i >= 0; i = data.indexOf(ITEM, i + 1)) items++;
    carry = data.subarray(Math.max(0, data.length - ITEM.length + 1));
  }
  return { bytes, items, head };
}

/** Every pod, one page of 500 after another (as a client-go pager asks), reading each page's continue token. */
async function pagedList(url: string): Promise<{ items: number; pages: number }> {
  let items = 0;
  let pages = 0;
  let token: string | undefined;
  do {
    const page = await drain(await fetch(`${url}/api/v1/pods?limit=500${token ? `&continue=${token}` : ""}`));
    const metadata = JSON.parse(`${page.head.slice(0, page.head.indexOf(',"items":['))}}`) as { metadata: { continue?: string } };
    items += page.items;
    pages++;
    token = metadata.metadata.continue;
  } while (token);
  return { items, pages };
}

const REPLAYED = [
  ["pods", "/api/v1/pods"],
  ["replicasets", "/apis/apps/v1/replicasets"],
  ["deployments", "/apis/apps/v1/deployments"],
] as const;

/** Reads one watch until an object named `replay-marker...` arrives (or the stream ends), counting lines and bytes. */
async function readUntilMarker(response: Response): Promise<{ events: number; bytes: number; found: boolean; first: string }> {
  const decoder = new TextDecoder();
  let bytes = 0;
  let events = 0;
  let carry = "";
  let first = "";
  let found = false;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    const text = carry + decoder.decode(chunk, { stream: true });
    first ||= text.slice(0, 300);
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) events++;
    found = text.includes('"name":"replay-marker');
    if (found) break;
    carry = text.slice(-40);
  }
  await response.body?.cancel();
  return { events, bytes, found, first };
}

/**
 * Watches of pods, ReplicaSets and Deployments from the oldest resourceVersion the history keeps (found from the
 * 410 the server gives an older one), read until a Deployment created right after they opened shows up in each:
 * the whole kept history replayed (the last events of a build are mostly workload status), then that one.
 */
async function watchReplay(url: string, admin: string): Promise<{ events: number; bytes: number; ms: number }> {
  const probe = await (await fetch(`${url}/api/v1/pods?watch=true&resourceVersion=1`)).text();
  const oldest = /too old resource version: \d+ \((\d+)\)/.exec(probe)?.[1];
  const from = oldest === undefined ? 1 : Number(oldest) - 1;
  const t0 = performance.now();
  const responses = await Promise.all(REPLAYED.map(([, path]) => fetch(`${url}${path}?watch=true&resourceVersion=${from}`)));
  await post(`${admin}/script/createDeployment`, [{ namespace: "bench-replay", name: "replay-marker", image: "nginx:1.25", wait: false }]);
  const read = await Promise.all(responses.map(readUntilMarker));
  const ms = performance.now() - t0;
  read.forEach((r, i) => {
    if (!r.found) console.log(`  (the ${REPLAYED[i]![0]} replay from ${from} ended before the marker; it began: ${r.first})`);
  });
  return { events: read.reduce((n, r) => n + r.events, 0), bytes: read.reduce((n, r) => n + r.bytes, 0), ms };
}

async function run(label: string, pods: number, baselineDir: string | undefined): Promise<Figures> {
  const args =
    baselineDir === undefined
      ? [...NODE_FLAGS, join(fakeCluster, "dist", "cli.js"), "--nodes", NODES]
      : [...NODE_FLAGS, "--import", "tsx", fileURLToPath(import.meta.url), "--host", baselineDir];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
  try {
    return await measure(label, pods, child.stdout!, exited);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/**
 * A pod watch read in the background (as an informer reads it) until cancelled. When the server ends it (a client
 * that falls behind the kept history is dropped, as by the API server) it is opened again, as a relist would.
 */
async function openPodWatch(url: string): Promise<{ bytes: () => number; reopened: () => number; cancel: () => Promise<void> }> {
  let bytes = 0;
  let reopened = -1;
  let cancelled = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const open = async () => {
    reopened++;
    reader = (await fetch(`${url}/api/v1/pods?watch=true&allowWatchBookmarks=true`)).body!.getReader();
    return reader;
  };
  const first = await open();
  void (async () => {
    let current = first;
    while (!cancelled) {
      const { done, value } = await current.read().catch(() => ({ done: true, value: undefined }));
      if (!done) bytes += value!.length;
      else if (!cancelled) current = await open();
    }
  })();
  const cancel = async () => {
    cancelled = true;
    await reader?.cancel().catch(() => undefined);
  };
  return { bytes: () => bytes, reopened: () => reopened, cancel };
}

async function measure(label: string, pods: number, stdout: NodeJS.ReadableStream, exited: Promise<unknown>): Promise<Figures> {
  const ready = createInterface({ input: stdout })
    [Symbol.asyncIterator]()
    .next()
    .then((r) => r.value as string);
  const line = await Promise.race([ready, exited.then(() => undefined)]);
  if (line === undefined) throw new Error(`${label}: the fake cluster exited before it was ready`);
  const { url, admin, pid } = JSON.parse(line) as { url: string; admin: string; pid: number };
  const watch = await openPodWatch(url);
  const cpu0 = cpuSeconds(pid);
  type Built = { workloads: number; pods: number; containers: number; buildMs: number; message?: string };
  const { status: code, body: built } = await post<Built>(`${admin}/fleet`, { workloads: Math.ceil(pods / 3) });
  if (code !== 200) throw new Error(`${label}: POST /fleet: ${built.message}`);
  const buildCpuS = cpuSeconds(pid) - cpu0;
  const live = await status(admin, true);
  let t = performance.now();
  const unpaged = await drain(await fetch(`${url}/api/v1/pods`));
  const unpagedS = seconds(performance.now() - t);
  t = performance.now();
  const paged = await pagedList(url);
  const pagedS = seconds(performance.now() - t);
  const replay = await watchReplay(url, admin);
  const end = await status(admin);
  const watchedMb = mb(watch.bytes());
  const reopened = watch.reopened();
  const watchNote = reopened === 0 ? ", open throughout" : `; it fell behind the kept history ${reopened} time(s), was ended, reopened`;
  await watch.cancel();
  if (unpaged.items !== built.pods || paged.items !== built.pods) {
    console.log(`  (${label}: listed ${unpaged.items} unpaged, ${paged.items} paged, of ${built.pods} pods)`);
  }
  const figures: Figures = {
    pods: built.pods,
    buildS: seconds(built.buildMs),
    buildCpuS,
    podsPerS: built.pods / seconds(built.buildMs),
    liveHeapMb: mb(live.memory.heapUsed),
    bytesPerPod: live.memory.heapUsed / built.pods,
    unpagedS,
    unpagedMb: mb(unpaged.bytes),
    pagedS,
    pages: paged.pages,
    replayEvents: replay.events,
    replayMb: mb(replay.bytes),
    replayS: seconds(replay.ms),
    peakRssMb: mb(end.memory.peakRss ?? end.memory.rss),
  };
  console.log(`\n${label}: ${built.workloads} Deployments -> ${built.pods} Running pods, ${built.containers} containers`);
  const rate = `${figures.podsPerS.toFixed(0)} pods/s`;
  console.log(`  build                 ${figures.buildS.toFixed(1)} s (${rate}), ${buildCpuS.toFixed(1)} CPU s in the fake cluster`);
  console.log(`                        a pod watch read ${watchedMb.toFixed(0)} MB meanwhile${watchNote}`);
  const perPod = `${(figures.bytesPerPod / 1024).toFixed(1)} KB a pod`;
  console.log(`  live heap             ${figures.liveHeapMb.toFixed(0)} MB after a full GC: ${perPod} (cluster and history, per pod)`);
  console.log(`  list, unpaged         ${unpagedS.toFixed(2)} s, ${figures.unpagedMb.toFixed(0)} MB (time to last byte)`);
  console.log(`  list, pages of 500    ${pagedS.toFixed(2)} s, ${paged.pages} pages (time to each page's last byte)`);
  const replayed = `${replay.events} events, ${figures.replayMb.toFixed(0)} MB`;
  console.log(`  watch replay          ${replayed} in ${figures.replayS.toFixed(2)} s (kept history: pods, ReplicaSets, Deployments)`);
  console.log(`  peak RSS              ${figures.peakRssMb.toFixed(0)} MB   (target at 150,000 pods: <= 3,000 MB)`);
  return figures;
}

function ratios(before: Figures, after: Figures): void {
  const rows: [string, number, number][] = [
    ["build time", before.buildS, after.buildS],
    ["build CPU", before.buildCpuS, after.buildCpuS],
    ["live heap per pod", before.bytesPerPod, after.bytesPerPod],
    ["list, unpaged", before.unpagedS, after.unpagedS],
    ["list, pages of 500", before.pagedS, after.pagedS],
    ["watch replay", before.replayS, after.replayS],
    ["peak RSS", before.peakRssMb, after.peakRssMb],
  ];
  console.log(`\nbefore / after at ${after.pods} pods (same run, same machine):`);
  for (const [name, b, a] of rows) {
    console.log(`  ${name.padEnd(20)} ${b.toFixed(2).padStart(10)} / ${a.toFixed(2).padStart(10)} = ${(b / a).toFixed(2)}x`);
  }
}

async function main(): Promise<void> {
  const sizes = values.pods!.split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new Error(`--pods: must be positive integers separated by commas, got "${values.pods}"`);
  }
  const baseline = values.baseline === undefined ? undefined : resolve(values.baseline);
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(`fake cluster at scale; node ${process.version}; load average ${load()}`);
  for (const pods of sizes) {
    const before = baseline === undefined ? undefined : await run(`before (${baseline})`, pods, baseline);
    const after = await run("after (this checkout)", pods, undefined);
    if (before) ratios(before, after);
  }
  console.log(`\nload average at the end: ${load()}`);
}

/** Host mode (a child of this bench): a fake cluster from another checkout, run as the CLI runs the current one. */
async function host(dir: string): Promise<void> {
  const { startFakeCluster } = (await import(pathToFileURL(join(dir, "dist", "index.js")).href)) as typeof import("@shiplog/fake-cluster");
  type AdminModule = typeof import("../../packages/fake-cluster/dist/admin-server.js");
  const { startAdminServer } = (await import(pathToFileURL(join(fakeCluster, "dist", "admin-server.js")).href)) as AdminModule;
  const cluster = await startFakeCluster({ nodes: NODES.split(",") });
  const admin = await startAdminServer(cluster, undefined);
  console.log(JSON.stringify({ url: cluster.url, admin: admin.url, pid: process.pid }));
  process.once("SIGTERM", () => process.exit(0));
}

if (values.host !== undefined) await host(values.host);
else await main();
