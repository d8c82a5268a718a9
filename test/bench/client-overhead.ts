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
  const response = await fetch(`${emulator.url}/orgs/acme/artifacts/metadata/storage-record`, {
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

async function run(label: string, send: () => Promise<void>, count: number): Promise<number> {
  let remaining = count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (remaining-- > 0) await send();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const rps = count / seconds;
  if (label) console.log(`${label.padEnd(12)} ${count} requests in ${seconds.toFixed(2)} s = ${rps.toFixed(0)} req/s`);
  return rps;
}

try {
  // Warm both paths (JIT on both sides, connection pools) before measuring.
  await run("", viaFetch, 2000);
  await run("", viaClient, 2000);
  // Alternate rounds (ABBA) so drift in the emulator, such as its growing store, hits both alike.
  const ROUNDS = 10;
  const perRound = TOTAL / ROUNDS;
  let fetchSeconds = 0;
  let clientSeconds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [viaFetch, viaClient] : [viaClient, viaFetch];
    for (const send of order) {
      const seconds = perRound / (await run("", send, perRound));
      if (send === viaFetch) fetchSeconds += seconds;
      else clientSeconds += seconds;
    }
  }
  const fetchRps = TOTAL / fetchSeconds;
  const clientRps = TOTAL / clientSeconds;
  const ratio = clientRps / fetchRps;
  console.log(`client-overhead: ${TOTAL} storage-record creates each way, concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds`);
  console.log(`  raw fetch : ${fetchRps.toFixed(0)} req/s (${fetchSeconds.toFixed(2)} s)`);
  console.log(`  client    : ${clientRps.toFixed(0)} req/s (${clientSeconds.toFixed(2)} s)`);
  console.log(`  ratio     : client at ${(ratio * 100).toFixed(1)}% of raw fetch (target >= 85%) ${ratio >= 0.85 ? "PASS" : "MISS"}`);
} finally {
  await emulator.stop();
}
