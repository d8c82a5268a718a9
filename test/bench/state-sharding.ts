// The sharded state store (ConfigMapAcknowledgedStore) at cluster scale, against the fake cluster as its own process:
// - cold sync: 150,000 records, each with its own digest, acknowledged in rounds of 1,000 (an intent write before
//   the round's call, an answer write after it), beside what one ConfigMap rewritten whole at every write would send;
// - what is stored at the end: shards, ConfigMaps, the largest one against Kubernetes' 1 MiB;
// - a new leader's load of that state;
// - steady state: rounds of 100 changed records, bytes per write and per changed record, compactions included.
// Prints figures; asserts nothing. `--records N` (default 150000), `--round N` (default 1000).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import type { AcknowledgedRecord } from "@shiplog/controller";
import { ConfigMapAcknowledgedStore, encodeAcknowledgedState, recordKey, type StateWriteInfo } from "@shiplog/controller/internal";
import { createHash } from "node:crypto";
import { pino } from "pino";

const { values } = parseArgs({ options: { records: { type: "string", default: "150000" }, round: { type: "string", default: "1000" } } });
const RECORDS = Number(values.records);
const ROUND = Number(values.round);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const dir = mkdtempSync(join(tmpdir(), "shiplog-state-bench-"));
const kubeconfigPath = join(dir, "kubeconfig");
const child = spawn(
  process.execPath,
  [resolve(repoRoot, "packages/fake-cluster/dist/cli.js"), "--port", "0", "--kubeconfig-out", kubeconfigPath],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise<void>((ready, fail) => {
  child.once("exit", (code) => fail(new Error(`fake cluster exited early (${code})`)));
  child.stdout!.on("data", (chunk: Buffer) => {
    if (chunk.toString().includes('"url"')) ready();
  });
});
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const core = kubeConfig.makeApiClient(CoreV1Api);
await core.createNamespace({ body: { metadata: { name: "shiplog" } } });

const group = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const digest = (seed: string) => `sha256:${createHash("sha256").update(seed).digest("hex")}` as const;
const record = (i: number, seed: string): AcknowledgedRecord => {
  // 1,500 tenant namespaces × 50 apps × 2 containers: distinct names up to 150,000 records.
  const deploymentName = `tenant-${i % 1500}-app-${Math.floor(i / 1500) % 50}-c${Math.floor(i / 75_000)}`;
  return {
    key: recordKey(group, deploymentName),
    group,
    entry: {
      name: `ghcr.io/acme/app-${i % 50}`,
      digest: digest(`${seed}${i}`),
      version: `1.${i % 7}.${i % 11}`,
      status: "deployed",
      deployment_name: deploymentName,
      github_repository: "web",
      tags: { team: `team-${i % 30}` },
    },
  };
};
const store = (writer: string) =>
  new ConfigMapAcknowledgedStore({
    kubeConfig,
    namespace: "shiplog",
    name: "shiplog-state",
    org: "acme",
    cluster: "prod",
    apiUrl: "https://api.github.com",
    writer,
    requestTimeoutMs: 30_000,
    logger: pino({ level: "silent" }),
  });

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const kb = (bytes: number) => `${(bytes / 1e3).toFixed(1)} KB`;
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
interface Tally {
  writes: number;
  calls: number;
  compactions: number;
  written: number;
  maxWritten: number;
  /** What one ConfigMap holding the whole state would have sent: the state's size, at every write. */
  wholeState: number;
  appendMs: number[];
  compactionMs: number[];
  appendBytes: number[];
}
const tally = (): Tally => ({
  writes: 0,
  calls: 0,
  compactions: 0,
  written: 0,
  maxWritten: 0,
  wholeState: 0,
  appendMs: [],
  compactionMs: [],
  appendBytes: [],
});
async function timedWrite(s: ConfigMapAcknowledgedStore, t: Tally): Promise<StateWriteInfo> {
  const started = performance.now();
  const info = (await s.write())!;
  const ms = performance.now() - started;
  t.writes += 1;
  t.calls += info.calls;
  t.compactions += info.compactions;
  t.written += info.written;
  t.maxWritten = Math.max(t.maxWritten, info.written);
  t.wholeState += info.bytes;
  if (info.compactions > 0) t.compactionMs.push(ms);
  else {
    t.appendMs.push(ms);
    t.appendBytes.push(info.written);
  }
  return info;
}

// Cold sync.
const leader = store("bench-leader");
await leader.load();
const cold = tally();
let info: StateWriteInfo | undefined;
const coldStart = performance.now();
for (let start = 0; start < RECORDS; start += ROUND) {
  const batch = Array.from({ length: Math.min(ROUND, RECORDS - start) }, (_, i) => record(start + i, "v1"));
  leader.intend(batch);
  await timedWrite(leader, cold);
  leader.acknowledge(batch);
  info = await timedWrite(leader, cold);
}
const coldMs = performance.now() - coldStart;
const rounds = Math.ceil(RECORDS / ROUND);
console.log(
  `cold sync: ${RECORDS} records with distinct digests in ${rounds} rounds of ${ROUND} (an intent write and an answer write each)`,
);
console.log(
  `  sharded store:           ${cold.writes} writes, ${cold.calls} ConfigMap calls, ${cold.compactions} compactions, ` +
    `${mb(cold.written)} sent (${kb(cold.written / rounds)} a round, largest write ${mb(cold.maxWritten)})`,
);
console.log(
  `  one ConfigMap rewritten: ${mb(cold.wholeState)} would be sent (${mb(cold.wholeState / rounds)} a round), ` +
    `ratio ${(cold.wholeState / cold.written).toFixed(1)}x; and past ~28,000 such records it no longer fits 1 MiB`,
);
console.log(
  `  time: ${(coldMs / 1000).toFixed(1)} s in all; an append write ${median(cold.appendMs).toFixed(0)} ms (median), ` +
    `a write with a compaction ${median(cold.compactionMs).toFixed(0)} ms (median), ${cold.compactionMs.length} of them`,
);

// What is stored.
const maps = (await core.listNamespacedConfigMap({ namespace: "shiplog", labelSelector: "app.kubernetes.io/component=acknowledged-state" }))
  .items;
const sizeOf = (c: (typeof maps)[number]) =>
  Object.values(c.data ?? {}).reduce((n, v) => n + Buffer.byteLength(v), 0) +
  Object.values(c.binaryData ?? {}).reduce((n, v) => n + Buffer.byteLength(v, "base64"), 0);
const largest = Math.max(...maps.map(sizeOf));
console.log(
  `stored: ${info!.shards} shard(s) in use, ${maps.length} ConfigMaps (head + ${maps.length - 1} shard slots), ` +
    `${mb(info!.bytes)} current state; largest ConfigMap ${kb(largest)} of the ${kb(1024 * 1024)} limit`,
);

// A new leader's load.
const loadStart = performance.now();
const successor = store("bench-successor");
await successor.load();
console.log(`load by a new leader: ${successor.all().size} records in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

// Steady state: rounds of 100 changed records.
const steady = tally();
const STEADY_ROUNDS = 100;
for (let r = 0; r < STEADY_ROUNDS; r++) {
  const changed = Array.from({ length: 100 }, (_, i) => record((r * 997 + i * 1_499) % RECORDS, `v2-${r}`));
  successor.intend(changed);
  await timedWrite(successor, steady);
  successor.acknowledge(changed);
  await timedWrite(successor, steady);
}
console.log(`steady state: ${STEADY_ROUNDS} rounds of 100 changed records (${steady.writes} writes)`);
console.log(
  `  sharded store:           ${mb(steady.written)} sent, median append ${kb(median(steady.appendBytes))} ` +
    `in ${median(steady.appendMs).toFixed(0)} ms, ${steady.compactions} compactions; ` +
    `${(steady.written / (STEADY_ROUNDS * 100)).toFixed(0)} B per changed record`,
);
console.log(`  one ConfigMap rewritten: ${mb(steady.wholeState)} would be sent, ratio ${(steady.wholeState / steady.written).toFixed(1)}x`);

// The CPU of a whole-state write, beside an append: what a write proportional to the state would cost.
const encodeStart = performance.now();
encodeAcknowledgedState(successor.all().values());
console.log(
  `encoding the whole state once: ${(performance.now() - encodeStart).toFixed(0)} ms (an append of a round encodes only its entries)`,
);
console.log(`bench process peak RSS: ${mb(process.resourceUsage().maxRSS * 1024)}`);
child.kill("SIGTERM");
