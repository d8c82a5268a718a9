// 10,000 storage-record creates at concurrency 16, through the client and through raw fetch, in one run.
import { ShiplogClient } from "@shiplog/client";
import { startEmulatorProcess } from "./emulator-process.js";

const TOTAL = Number(process.env["BENCH_REQUESTS"] ?? 10_000);
const CONCURRENCY = 16;

const emulator = await startEmulatorProcess(["--rate-limit", "1000000"]);
const token = emulator.tokens["installation"]!;
const client = new ShiplogClient({ baseUrl: emulator.url, token });
let sequence = 0;

function body() {
  const n = sequence++;
  return {
    name: `svc-${n % 100}`,
    version: "1.0.0",
    digest: `sha256:${n.toString(16).padStart(64, "0")}`,
    registry_url: "https://registry.example.com/",
    repository: "acme/svc",
    github_repository: "web",
  };
}

async function viaClient(): Promise<void> {
  await client.artifacts.createStorageRecord({ org: "acme", ...body() });
}

async function viaFetch(): Promise<void> {
  await rawFetch();
}

/** Raw fetch with the per-request timeout any production caller needs (the client has one too). */
async function viaFetchWithTimeout(): Promise<void> {
  await rawFetch(AbortSignal.timeout(30_000));
}

async function rawFetch(signal?: AbortSignal): Promise<void> {
  const response = await fetch(`${emulator.url}/orgs/acme/artifacts/metadata/storage-record`, {
    signal,
    method: "POST",
    headers: {
      accept: "application/vnd.service+json",
      "x-service-api-version": "2026-03-10",
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(body()),
  });
  if (response.status !== 200) throw new Error(`raw fetch got ${response.status}`);
  await response.json();
}

/** Client-side CPU time spent in each path, summed over the measured rounds. */
const cpuMicros = new Map<() => Promise<void>, number>();

async function run(label: string, send: () => Promise<void>, count: number): Promise<number> {
  let remaining = count;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (remaining-- > 0) await send();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (!label) cpuMicros.set(send, (cpuMicros.get(send) ?? 0) + cpu.user + cpu.system);
  const rps = count / seconds;
  if (label) console.log(`${label.padEnd(12)} ${count} requests in ${seconds.toFixed(2)} s = ${rps.toFixed(0)} req/s`);
  return rps;
}

try {
  // Warm both paths (JIT on both sides, connection pools) before measuring.
  await run("", viaFetch, 2000);
  await run("", viaClient, 2000);
  cpuMicros.clear();
  // Alternate rounds (ABBA) so drift in the emulator, such as its growing store, hits both alike.
  const ROUNDS = 10;
  const perRound = TOTAL / ROUNDS;
  const paths = [viaFetch, viaFetchWithTimeout, viaClient];
  const seconds = new Map<() => Promise<void>, number>(paths.map((p) => [p, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so drift in the emulator (its growing store) hits every path alike.
    for (let k = 0; k < paths.length; k++) {
      const send = paths[(round + k) % paths.length]!;
      seconds.set(send, seconds.get(send)! + perRound / (await run("", send, perRound)));
    }
  }
  const rps = (send: () => Promise<void>) => TOTAL / seconds.get(send)!;
  const cpu = (send: () => Promise<void>) => (cpuMicros.get(send) ?? 0) / TOTAL;
  const ratio = rps(viaClient) / rps(viaFetch);
  console.log(`client-overhead: ${TOTAL} storage-record creates each way, concurrency ${CONCURRENCY}, ${ROUNDS} rotating rounds, node ${process.version}`);
  for (const [label, send] of [["raw fetch", viaFetch], ["raw fetch + timeout", viaFetchWithTimeout], ["client", viaClient]] as const) {
    console.log(`  ${label.padEnd(20)}: ${rps(send).toFixed(0).padStart(5)} req/s, ${cpu(send).toFixed(0)} µs of this process's CPU per request`);
  }
  console.log(`  client vs raw fetch + timeout: ${((rps(viaClient) / rps(viaFetchWithTimeout)) * 100).toFixed(1)}%`);
  console.log(`  client vs bare raw fetch     : ${(ratio * 100).toFixed(1)}% (target >= 85%) ${ratio >= 0.85 ? "PASS" : "MISS"}`);
} finally {
  await emulator.stop();
}
