// The emulator at the largest cluster Kubernetes supports: 150,000 deployment records posted as 150 cluster calls
// of 1,000 (what the controller's cold sync sends), to the standalone emulator in its own process, twice side by
// side: one emulator with the service's secondary limits on (the default) and one with them off, each call sent to
// both in turn so both see the same machine load. Then the same 150 calls again (the records exist: updates, half
// decommissioned), and the records read back through the admin API (counts, then every record in pages).
// With the limits on, the 81st write in a minute is refused as the service refuses it; the benchmark then moves
// that emulator's clock by the retry-after it was given (admin API) instead of waiting a real minute.
// Prints figures, ratios and targets; asserts nothing. `--records 150000` (default) sets the size.
// One command: `node --expose-gc --import tsx test/bench/emulator-scale.ts` (without --expose-gc the heap figure of
// the request log is approximate). About 1 minute and 2 x 300 MB at 150,000 records on a 2-core machine.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { RequestLog } from "@shiplog/emulator/internal";
import { startEmulatorProcess, type EmulatorProcess } from "./emulator-process.js";

const { values } = parseArgs({ options: { records: { type: "string", default: "150000" } } });
const RECORDS = Number(values.records);
const PER_CALL = 1000;
const CALLS = Math.ceil(RECORDS / PER_CALL);
const SAMPLE = 10; // calls per sample: the first 10 (up to 10,000 records) and the last 10
const TARGET_CALL_MS = 500; // a 1,000-record call, at 150,000 records
const TARGET_RSS_MB = 1024;

interface Side {
  label: string;
  emulator: EmulatorProcess;
  admin: string;
  times: number[];
  refusals: number;
}

async function start(label: string, args: string[]): Promise<Side> {
  const emulator = await startEmulatorProcess(["--admin", ...args]);
  return { label, emulator, admin: emulator.adminUrl!, times: [], refusals: 0 };
}
const limited = await start("limits on ", []);
const unlimited = await start("limits off", ["--no-secondary-limits"]);
const sides = [limited, unlimited];
// The emulators go with this process, however it ends.
process.once("exit", () => {
  for (const side of sides) side.emulator.child.kill();
});

/** Resident memory of an emulator process now and at its peak, MB (Linux /proc). */
function memory(side: Side): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${side.emulator.child.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const hex = (n: number) => n.toString(16).padStart(64, "0");
/** One cluster call's body: 1,000 containers of distinct workloads, each its own image digest (the worst case). */
function body(call: number, pass: number): string {
  const deployments = Array.from({ length: Math.min(PER_CALL, RECORDS - call * PER_CALL) }, (_, i) => {
    const n = call * PER_CALL + i;
    return {
      name: `ghcr.io/acme/svc-${n % 3000}`,
      version: "1.0",
      digest: `sha256:${hex(n)}`,
      deployment_name: `team-${n % 30}/svc-${n}/c0`,
      github_repository: ["web", "api", "infra"][n % 3],
      // The second pass decommissions every other record.
      status: pass === 1 && n % 2 === 0 ? "decommissioned" : "deployed",
    };
  });
  return JSON.stringify({ logical_environment: "production", physical_environment: "eu-west-1", deployments, return_records: false });
}

/** Sends one call; a secondary-limit refusal moves that emulator's clock by the wait it named and sends again. */
async function send(side: Side, payload: string): Promise<void> {
  for (;;) {
    const started = performance.now();
    const response = await fetch(`${side.emulator.url}/orgs/acme/artifacts/metadata/deployment-record/cluster/bench`, {
      method: "POST",
      headers: { authorization: `Bearer ${side.emulator.tokens.admin}`, "content-type": "application/json" },
      body: payload,
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status === 200) {
      side.times.push(elapsed);
      return;
    }
    const retryAfter = Number(response.headers.get("retry-after"));
    if (response.status !== 403 || !/secondary rate limit/.test(text) || !(retryAfter > 0)) {
      throw new Error(`${side.label}: answered ${response.status}: ${text.slice(0, 200)}`);
    }
    side.refusals++;
    await admin(side, "POST", "/clock", { advance_ms: retryAfter * 1000 });
  }
}

async function admin(side: Side, method: string, path: string, json?: unknown): Promise<{ value: unknown; bytes: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${side.admin}${path}`, {
    method,
    ...(json === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(json) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${side.label} admin ${path}: ${response.status} ${text}`);
  return { value: JSON.parse(text), bytes: text.length, ms: performance.now() - started };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
const mb = (value: number) => `${value.toFixed(0).padStart(5)} MB`;

console.log(
  `emulator scale: ${CALLS} cluster calls of ${PER_CALL} records (${RECORDS.toLocaleString("en")} records), 2 emulator processes`,
);
const baseline = new Map(sides.map((side) => [side, memory(side)]));
const at10k = new Map<Side, { rss: number; peak: number }>();
const passStarted = performance.now();
for (let call = 0; call < CALLS; call++) {
  const payload = body(call, 0);
  for (const side of call % 2 ? [unlimited, limited] : sides) await send(side, payload);
  if (call === Math.min(SAMPLE, CALLS) - 1) for (const side of sides) at10k.set(side, memory(side));
}
const firstPassMs = performance.now() - passStarted;
const atFull = new Map(sides.map((side) => [side, memory(side)]));
const created = new Map(sides.map((side) => [side, side.times.splice(0)]));
for (let call = 0; call < CALLS; call++) {
  const payload = body(call, 1);
  for (const side of call % 2 ? [unlimited, limited] : sides) await send(side, payload);
}
const updated = new Map(sides.map((side) => [side, side.times.splice(0)]));

console.log(
  `\nper call of ${PER_CALL} records (median / p95), each call sent to both emulators in turn; both passes took ${((performance.now() - passStarted) / 1000).toFixed(0)} s (first ${(firstPassMs / 1000).toFixed(0)} s)`,
);
for (const side of sides) {
  const times = created.get(side)!;
  const [early, late, again] = [times.slice(0, SAMPLE), times.slice(-SAMPLE), updated.get(side)!.slice(-SAMPLE)];
  console.log(
    `  ${side.label}  records 1-${SAMPLE}k: ${ms(percentile(early, 50))} / ${ms(percentile(early, 95))}` +
      `   last ${SAMPLE}k of ${RECORDS / 1000}k: ${ms(percentile(late, 50))} / ${ms(percentile(late, 95))}` +
      `   updates at ${RECORDS / 1000}k: ${ms(percentile(again, 50))} / ${ms(percentile(again, 95))}` +
      `   (late / early ${(percentile(late, 50) / percentile(early, 50)).toFixed(2)})`,
  );
}
const late = (side: Side) => percentile(created.get(side)!.slice(-SAMPLE), 50);
console.log(
  `  limits on / off, last ${SAMPLE} calls: ${(late(limited) / late(unlimited)).toFixed(2)}   (target: a call under ${TARGET_CALL_MS} ms at ${RECORDS / 1000}k)`,
);

console.log(`\nemulator memory (resident; peak in brackets)`);
for (const side of sides) {
  const [zero, ten, full] = [baseline.get(side)!, at10k.get(side)!, atFull.get(side)!];
  const perRecord = ((full.rss - zero.rss) * 1024 * 1024) / RECORDS;
  console.log(
    `  ${side.label}  empty ${mb(zero.rss)}   at ${SAMPLE}k ${mb(ten.rss)}   at ${RECORDS / 1000}k ${mb(full.rss)} (${mb(full.peak).trim()})` +
      `   ${perRecord.toFixed(0)} bytes a record   after updates ${mb(memory(side).rss)} (${mb(memory(side).peak).trim()})`,
  );
}
console.log(`  target: under ${TARGET_RSS_MB} MB at ${RECORDS / 1000}k`);

const limits = await admin(limited, "GET", "/secondary-limits");
const refused = (limits.value as { refused: Record<string, number> }).refused;
console.log(
  `\nsecondary limits (limits on): ${2 * CALLS} calls, ${limited.refusals} refused and resent after the named wait; counters ${JSON.stringify(refused)}`,
);
console.log(
  `  the write budget's floor for ${2 * CALLS} calls at 80 a minute: ${((2 * CALLS - 1) * 0.75).toFixed(0)} s of the service's time`,
);

console.log(`\nreading back (limits on emulator, admin API)`);
const counts = await admin(limited, "GET", "/deployment-records/counts?org=acme");
console.log(`  counts          ${ms(counts.ms)}   ${counts.bytes} bytes   ${JSON.stringify(counts.value)}`);
let after = 0;
let pages = 0;
let bytes = 0;
let read = 0;
const readStarted = performance.now();
for (;;) {
  const page = await admin(
    limited,
    "GET",
    `/deployment-records?org=acme&cluster=bench&limit=10000&after=${after}&fields=deployment_name,digest,status`,
  );
  const value = page.value as { records: unknown[]; next_after?: number };
  pages++;
  bytes += page.bytes;
  read += value.records.length;
  if (value.next_after === undefined) break;
  after = value.next_after;
}
console.log(
  `  every record    ${ms(performance.now() - readStarted)}   ${pages} pages of up to 10,000, ${(bytes / 1e6).toFixed(1)} MB, ${read} records (deployment_name, digest, status)`,
);

const logged = await admin(
  limited,
  "GET",
  `/requests?route=${encodeURIComponent("/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster")}`,
);
console.log(
  `  request log     ${ms(logged.ms)}   ${(logged.value as { requests: unknown[] }).requests.length} cluster calls logged, ${(logged.bytes / 1e3).toFixed(0)} KB`,
);
for (const side of sides) await side.emulator.stop();

// The request log is a ring of the newest 100,000 requests: its memory when full, measured here (a long run fills it).
const heap = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};
const ring = new RequestLog();
const heapBefore = heap();
const route = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
for (let i = 0; i < 150_000; i++) {
  const time = new Date(Date.now() + i).toISOString();
  ring.record({
    method: "POST",
    url: `/orgs/acme/artifacts/metadata/deployment-record/cluster/c${i}`,
    route,
    status: 200,
    tokenName: "admin",
    apiVersion: "2026-03-10",
    userAgent: `shiplog-controller/0.1.0 (${i})`,
    accept: "application/vnd.service+json",
    time,
  });
}
const ringBytes = heap() - heapBefore;
const counted = performance.now();
ring.count({ route });
console.log(
  `\nrequest log full (in this process${global.gc ? "" : "; run with node --expose-gc for exact heap figures"}): ${ring.count()} entries kept of 150,000, ` +
    `${(ringBytes / 1e6).toFixed(1)} MB, ${(ringBytes / ring.count()).toFixed(0)} bytes an entry; counted by route in ${ms(performance.now() - counted).trim()}`,
);
