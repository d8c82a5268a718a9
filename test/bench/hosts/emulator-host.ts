// The emulator in its own process, for test/bench/controller-sync.ts. Besides serving the API, it notes when each
// record the benchmark watches lands (the moment the service stores it, in milliseconds: the records' own
// updated_at has one-second resolution), counts writes per record, and compares its records with what the cluster
// runs without sending every record over IPC.
import { startEmulator, type Emulator, type EmulatorOptions } from "@shiplog/emulator";
import { serve } from "./ipc.js";

const ORG = "acme";
const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
let emulator: Emulator | undefined;
let cluster = "";
/** Deployment name -> the digest whose landing is timed, and when it landed. */
let watched = new Map<string, { digest: string; at?: number }>();
/** Writes per deployment name since the last mark. */
let writes = new Map<string, number>();
let expected = new Map<string, string>();

const ready = (): Emulator => {
  if (!emulator) throw new Error("not started");
  return emulator;
};

serve({
  async start(options: { cluster: string; extra: Partial<EmulatorOptions> }) {
    cluster = options.cluster;
    emulator = await startEmulator({ port: 0, rateLimit: 1_000_000, ...options.extra });
    // Every stored write, as it happens (the store's one entry point for deployment records).
    const store = emulator.state.artifacts;
    const upsert = store.upsertDeployment.bind(store);
    store.upsertDeployment = (write) => {
      const stored = upsert(write);
      const name = write.deployment_name;
      writes.set(name, (writes.get(name) ?? 0) + 1);
      const w = watched.get(name);
      if (w && w.at === undefined && write.digest === w.digest && write.status === "deployed") w.at = Date.now();
      return stored;
    };
    return { url: emulator.url, token: emulator.tokens.admin! };
  },
  watch(list: [string, string][]) {
    watched = new Map(list.map(([name, digest]) => [name, { digest }]));
  },
  landed: () => [...watched].flatMap(([name, w]) => (w.at === undefined ? [] : [[name, w.at] as const])),
  expect(list: [string, string][]) {
    expected = new Map(list);
  },
  /** How far the service's deployed records are from what the cluster runs. */
  mismatches() {
    let wrong = 0;
    let extra = 0;
    const seen = new Set<string>();
    for (const r of ready().state.artifacts.deploymentRecords({ org: ORG, cluster })) {
      if (r.status !== "deployed") continue;
      seen.add(r.deployment_name);
      const want = expected.get(r.deployment_name);
      if (want === undefined) extra++;
      else if (want !== r.digest) wrong++;
    }
    let missing = 0;
    for (const name of expected.keys()) if (!seen.has(name)) missing++;
    return { missing, wrong, extra, total: missing + wrong + extra };
  },
  clusterRequests: () => ready().requests.count({ method: "POST", route: CLUSTER_ROUTE }),
  /** Requests the service's secondary limits refused, per limit (the controller's budget should keep it at 0). */
  secondaryRefusals: () => ready().secondaryLimits.counts().refused,
  clearRequests: () => ready().requests.clear(),
  markWrites() {
    writes = new Map();
  },
  /** Writes since the mark to records other than `except`, and how many of `except` are decommissioned. */
  writesSinceMark(except: string[]) {
    const skip = new Set(except);
    let others = 0;
    for (const [name, n] of writes) if (!skip.has(name)) others += n;
    const decommissioned = ready()
      .state.artifacts.deploymentRecords({ org: ORG, cluster })
      .filter((r) => skip.has(r.deployment_name) && r.status === "decommissioned").length;
    return { others, decommissioned };
  },
});

process.once("SIGTERM", () => void (emulator?.stop() ?? Promise.resolve()).then(() => process.exit(0)));
