// 10,000 storage-record creates at concurrency 16, through the client and through raw fetch, in one run.
// Each path sends from its own process: in one shared process, whichever path ran first was measured faster
// (an identical copy of raw fetch came out at 87% of the original), which is the benchmark, not the client.
// A second raw-fetch process is the control: its ratio to the first is this measurement's noise. Bare undici
// requests, the engine the client sends through, show what the client itself adds.
import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulatorProcess } from "./emulator-process.js";
import type { RoundRequest, RoundResult, SenderPath } from "./overhead-sender.js";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 10_000);
const WARMUP = Math.min(2000, TOTAL);
// Many short rounds, so a slow spell of the machine or a pause in the emulator falls on every path alike;
// five paths and forty rounds: each path takes each place in the order eight times.
const ROUNDS = 40;
const here = dirname(fileURLToPath(import.meta.url));

interface Sender {
  label: string;
  child: ChildProcess;
  /** Requests per second of each round. */
  rates: number[];
  cpuMicros: number;
}

function startSender(label: string, path: SenderPath, url: string, token: string, firstSequence: number): Sender {
  const child = fork(join(here, "overhead-sender.ts"), [path, url, token, String(firstSequence)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return { label, child, rates: [], cpuMicros: 0 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round(sender: Sender, count: number): Promise<RoundResult> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${sender.label} sender exited (${code})`));
    sender.child.once("exit", onExit);
    sender.child.once("message", (result) => {
      sender.child.off("exit", onExit);
      resolve(result as RoundResult);
    });
    sender.child.send({ count } satisfies RoundRequest);
  });
}

// 10,000 creates at concurrency 16 per path, on purpose: far over the service's 80 writes a minute.
const emulator = await startEmulatorProcess(["--rate-limit", "1000000", "--no-secondary-limits"]);
const token = emulator.tokens.installation!;
const senders = [
  startSender("raw fetch", "fetch", emulator.url, token, 0),
  startSender("raw fetch (control)", "fetch", emulator.url, token, 1e9),
  startSender("raw fetch + timeout", "fetch-timeout", emulator.url, token, 2e9),
  startSender("raw undici request", "undici", emulator.url, token, 3e9),
  startSender("client", "client", emulator.url, token, 4e9),
];
const [rawFetch, control, rawWithTimeout, rawUndici, client] = senders as [Sender, Sender, Sender, Sender, Sender];

try {
  // Warm every path (JIT, connection pool) before measuring.
  for (const sender of senders) await round(sender, WARMUP);
  const perRound = Math.ceil(TOTAL / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order each round so drift in the emulator (its growing store) hits every path alike.
    for (let k = 0; k < senders.length; k++) {
      const sender = senders[(r + k) % senders.length]!;
      const result = await round(sender, perRound);
      sender.rates.push(perRound / result.seconds);
      sender.cpuMicros += result.cpuMicros;
    }
  }
  const measured = perRound * ROUNDS;
  // The median round: a round that a pause elsewhere on the machine slowed does not move it.
  const rps = (sender: Sender) => median(sender.rates);
  const percentOf = (sender: Sender, base: Sender) => `${((rps(sender) / rps(base)) * 100).toFixed(1)}%`;
  console.log(
    `client-overhead: ${measured} storage-record creates per path, concurrency 16, ${ROUNDS} rotating rounds, one process per path, node ${process.version}\n` +
      "  req/s is the median round's rate",
  );
  for (const sender of senders) {
    const cpu = (sender.cpuMicros / measured).toFixed(0);
    console.log(
      `  ${sender.label.padEnd(20)}: ${rps(sender).toFixed(0).padStart(5)} req/s, ${cpu.padStart(3)} µs of its process's CPU per request`,
    );
  }
  const ratio = rps(client) / rps(rawFetch);
  const line = (label: string, value: string) => console.log(`  ${label.padEnd(32)}: ${value}`);
  line("raw fetch control vs raw fetch", `${percentOf(control, rawFetch)} (the noise of this measurement)`);
  line(
    "client vs bare undici request",
    `${percentOf(client, rawUndici)} (the client's own work on the same engine: timeout, validation, errors)`,
  );
  line("client vs raw fetch + timeout", percentOf(client, rawWithTimeout));
  line("client vs bare raw fetch", `${(ratio * 100).toFixed(1)}% (target >= 85%) ${ratio >= 0.85 ? "PASS" : "MISS"}`);
} finally {
  try {
    for (const sender of senders) if (sender.child.connected) sender.child.disconnect();
  } finally {
    await emulator.stop();
  }
}
