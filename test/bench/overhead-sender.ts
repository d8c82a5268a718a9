// One sending path of client-overhead.ts, alone in its own process so no other path shares its JIT, heap or pool.
// Started with an IPC channel: each `{ count }` message sends that many storage-record creates at concurrency 16
// and answers `{ seconds, cpuMicros }`.
import { ShiplogClient } from "@shiplog/client";
import { request } from "undici";

export type SenderPath = "fetch" | "fetch-timeout" | "undici" | "client";

export interface RoundRequest {
  count: number;
}

export interface RoundResult {
  seconds: number;
  /** This process's user + system CPU during the round. */
  cpuMicros: number;
}

const CONCURRENCY = 16;
const [path, url, token, firstSequence] = process.argv.slice(2) as [SenderPath, string, string, string];
const client = new ShiplogClient({ baseUrl: url, token });
const storageRecordUrl = `${url}/orgs/acme/artifacts/metadata/storage-record`;
// Each sender numbers its digests from its own offset, so every create in the run is a new record.
let sequence = Number(firstSequence);

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

const headers = {
  accept: "application/vnd.service+json",
  "x-service-api-version": "2026-03-10",
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
};

async function rawFetch(signal?: AbortSignal): Promise<void> {
  const response = await fetch(storageRecordUrl, { signal, method: "POST", headers, body: JSON.stringify(body()) });
  if (response.status !== 200) throw new Error(`raw fetch got ${response.status}`);
  await response.json();
}

/** The engine the client sends through, called bare: what the client adds on top of it is the difference. */
async function rawUndici(): Promise<void> {
  const response = await request(storageRecordUrl, { method: "POST", headers, body: JSON.stringify(body()) });
  if (response.statusCode !== 200) throw new Error(`raw undici got ${response.statusCode}`);
  await response.body.json();
}

const senders: Record<SenderPath, () => Promise<unknown>> = {
  fetch: () => rawFetch(),
  // The per-request timeout any production caller needs (the client has one too).
  "fetch-timeout": () => rawFetch(AbortSignal.timeout(30_000)),
  undici: rawUndici,
  client: () => client.artifacts.createStorageRecord({ org: "acme", ...body() }),
};
const send = senders[path];
if (!send) throw new Error(`unknown sender path ${path}`);

async function round({ count }: RoundRequest): Promise<RoundResult> {
  let remaining = count;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (remaining-- > 0) await send();
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { seconds: (performance.now() - started) / 1000, cpuMicros: cpu.user + cpu.system };
}

process.on("message", (message: RoundRequest) => {
  round(message).then(
    (result) => process.send!(result),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
process.on("disconnect", () => process.exit(0));
