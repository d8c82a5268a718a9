// The ConfigMap store against the fake cluster's ConfigMap API (409 on create-when-exists and stale resourceVersion).
import { createHash } from "node:crypto";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { AcknowledgedStateTooLargeError, ConfigMapAcknowledgedStore, entryFingerprint, recordKey, type AcknowledgedRecord } from "@shiplog/controller";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const NAMESPACE = "shiplog";
const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
let cluster: FakeCluster;
let kubeConfig: KubeConfig;
let counter = 0;

beforeAll(async () => {
  cluster = await startFakeCluster({ nodes: ["node-1"] });
  await cluster.script.ensureNamespace(NAMESPACE);
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(cluster.kubeconfig);
});
afterAll(async () => {
  await cluster?.stop();
});

function store(name: string, options: { cluster?: string; apiUrl?: string; mayWrite?: () => boolean } = {}): ConfigMapAcknowledgedStore {
  return new ConfigMapAcknowledgedStore({
    kubeConfig,
    namespace: NAMESPACE,
    name,
    org: "acme",
    cluster: options.cluster ?? "prod",
    apiUrl: options.apiUrl ?? "https://api.github.com",
    writer: "pod-a",
    requestTimeoutMs: 2000,
    logger: pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" }),
    ...(options.mayWrite ? { mayWrite: options.mayWrite } : {}),
  });
}

function acked(deploymentName: string, seed = deploymentName, status: "deployed" | "decommissioned" = "deployed"): AcknowledgedRecord {
  return {
    key: recordKey(GROUP, deploymentName),
    group: GROUP,
    entry: {
      name: `ghcr.io/acme/${deploymentName}`,
      digest: `sha256:${createHash("sha256").update(seed).digest("hex")}`,
      version: "1.0",
      status,
      deployment_name: deploymentName,
      github_repository: "web",
      tags: { team: "shop" },
    },
  };
}

const configMap = (name: string) => cluster.store.get("configmaps", NAMESPACE, name) as { metadata: { resourceVersion: string }; data: Record<string, string>; binaryData: Record<string, string> } | undefined;
const prints = (s: ConfigMapAcknowledgedStore) => new Map([...s.all()].map(([k, r]) => [k, entryFingerprint(r.entry)]));
const nextName = () => `state-${++counter}`;

describe("ConfigMapAcknowledgedStore", () => {
  it("starts empty without a ConfigMap, creates it on the first write, and a new store reads the same records back", async () => {
    const name = nextName();
    const a = store(name);
    await a.load();
    expect(a.all().size).toBe(0);
    await a.persist();
    expect(configMap(name)).toBeUndefined();

    a.acknowledge([acked("shop-web-app"), acked("shop-api-app"), acked("shop-db-app")]);
    await a.persist();
    const written = configMap(name)!;
    expect(written.data).toMatchObject({ format: "shiplog-acknowledged v2", org: "acme", cluster: "prod", "api-url": "https://api.github.com", records: "3", "in-flight": "0", "written-by": "pod-a" });
    expect(Object.keys(written.binaryData).sort()).toEqual(["digests", "in-flight-digests", "in-flight.gz", "records.gz"]);
    expect(Buffer.from(written.binaryData.digests!, "base64").length).toBe(3 * 32);

    const b = store(name);
    await b.load();
    expect(prints(b)).toEqual(prints(a));

    // A decommission, once acknowledged, is forgotten: nothing more to do for that record.
    a.acknowledge([acked("shop-db-app", "shop-db-app", "decommissioned")]);
    await a.persist();
    const c = store(name);
    await c.load();
    expect([...c.all().values()].map((r) => r.entry.deployment_name).sort()).toEqual(["shop-api-app", "shop-web-app"]);
  });

  it("writes with the resourceVersion it read: a stale writer gets 409, reads again, merges its changes and retries", async () => {
    const name = nextName();
    const seed = store(name);
    seed.acknowledge([acked("base")]);
    await seed.persist();

    const a = store(name);
    const b = store(name);
    await Promise.all([a.load(), b.load()]);
    a.acknowledge([acked("from-a")]);
    await a.write();
    b.acknowledge([acked("from-b"), acked("base", "base-v2")]);
    const info = await b.write();
    expect(info?.conflicts).toBe(1);
    // a writes again from its now stale resourceVersion: its own change is kept, b's are not lost.
    a.acknowledge([acked("from-a", "from-a-v2")]);
    expect((await a.write())?.conflicts).toBe(1);

    const reader = store(name);
    await reader.load();
    expect(prints(reader)).toEqual(new Map([acked("base", "base-v2"), acked("from-a", "from-a-v2"), acked("from-b")].map((r) => [r.key, entryFingerprint(r.entry)])));
  });

  it("a create racing another create (409 AlreadyExists) reads the winner's state and merges", async () => {
    const name = nextName();
    const a = store(name);
    const b = store(name);
    await Promise.all([a.load(), b.load()]);
    a.acknowledge([acked("one")]);
    b.acknowledge([acked("two")]);
    await a.write();
    expect((await b.write())?.conflicts).toBe(1);
    const reader = store(name);
    await reader.load();
    expect([...reader.all().values()].map((r) => r.entry.deployment_name).sort()).toEqual(["one", "two"]);
  });

  it("ignores state written for another cluster or service (API URL), unreadable state, and writes over it", async () => {
    const name = nextName();
    const other = store(name, { cluster: "other" });
    other.acknowledge([acked("theirs")]);
    await other.persist();
    const mine = store(name);
    await mine.load();
    expect(mine.all().size).toBe(0);
    mine.acknowledge([acked("mine")]);
    await mine.persist();
    expect(configMap(name)!.data.cluster).toBe("prod");

    // The same organization and cluster on another service (a dry run against a test service, a migration).
    const elsewhere = store(name, { apiUrl: "https://service.example.test/api/v3" });
    await elsewhere.load();
    expect(elsewhere.all().size).toBe(0);
    // State without the service's URL (written before it was recorded) cannot be vouched for either.
    const api0 = kubeConfig.makeApiClient(CoreV1Api);
    const written = await api0.readNamespacedConfigMap({ name, namespace: NAMESPACE });
    const { "api-url": _dropped, ...withoutUrl } = written.data ?? {};
    await api0.replaceNamespacedConfigMap({ name, namespace: NAMESPACE, body: { ...written, data: withoutUrl } });
    const unlabelled = store(name);
    await unlabelled.load();
    expect(unlabelled.all().size).toBe(0);
    mine.acknowledge([acked("mine-again")]);
    await mine.persist();

    // Corrupt the records: the next load starts empty instead of failing the controller.
    const api = kubeConfig.makeApiClient(CoreV1Api);
    const current = await api.readNamespacedConfigMap({ name, namespace: NAMESPACE });
    await api.replaceNamespacedConfigMap({ name, namespace: NAMESPACE, body: { ...current, binaryData: { ...current.binaryData, "records.gz": Buffer.from("garbage").toString("base64") } } });
    const again = store(name);
    await again.load();
    expect(again.all().size).toBe(0);
  });

  it("does not write while fenced off (not the leader), and writes what it kept once allowed", async () => {
    const name = nextName();
    let leader = false;
    const s = store(name, { mayWrite: () => leader });
    await s.load();
    s.acknowledge([acked("web")]);
    expect(await s.write()).toBeUndefined();
    expect(configMap(name)).toBeUndefined();
    expect(s.unwritten).toBe(1);
    leader = true;
    expect((await s.write())?.records).toBe(1);
    expect(s.unwritten).toBe(0);
  });

  it("refuses state over the 1 MiB ConfigMap limit with a stable code, before sending it", async () => {
    const name = nextName();
    const s = store(name);
    await s.load();
    s.acknowledge(Array.from({ length: 32_000 }, (_, i) => acked(`team-${i % 30}-svc-${i}-app`, String(i))));
    const error = await s.write().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AcknowledgedStateTooLargeError);
    expect((error as AcknowledgedStateTooLargeError).code).toBe("acknowledged_state_too_large");
    expect((error as AcknowledgedStateTooLargeError).bytes).toBeGreaterThan(1024 * 1024);
    expect(configMap(name)).toBeUndefined();
  });

  it("write-ahead: intents are written beside the acknowledged records, read back, and settled by an answer", async () => {
    const name = "state-intents";
    const a = store(name);
    await a.load();
    a.acknowledge([acked("shop-web-app")]);
    // About to send: a new record and a new digest for an acknowledged one.
    a.intend([acked("shop-api-app"), acked("shop-web-app", "web-2")]);
    await a.persist();
    expect(configMap(name)!.data["in-flight"]).toBe("2");

    // A crash now: the next leader knows both may exist at the service.
    const b = store(name);
    await b.load();
    expect([...b.inFlight().keys()].sort()).toEqual([recordKey(GROUP, "shop-api-app"), recordKey(GROUP, "shop-web-app")]);
    expect(b.inFlight().get(recordKey(GROUP, "shop-web-app"))!.entry.digest).toBe(acked("x", "web-2").entry.digest);
    expect(b.all().get(recordKey(GROUP, "shop-web-app"))!.entry.digest).toBe(acked("shop-web-app").entry.digest);

    // The answers: one accepted, the other decommissioned (its workload went away meanwhile).
    b.acknowledge([acked("shop-web-app", "web-2"), acked("shop-api-app", "shop-api-app", "decommissioned")]);
    await b.persist();
    const c = store(name);
    await c.load();
    expect(c.inFlight().size).toBe(0);
    expect([...c.all().keys()]).toEqual([recordKey(GROUP, "shop-web-app")]);
    expect(configMap(name)!.data["in-flight"]).toBe("0");
  });
});
