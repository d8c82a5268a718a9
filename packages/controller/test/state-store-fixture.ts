// The ConfigMap store's tests' shared parts: a fake cluster, stores on it, and what they stored.
import type { AcknowledgedRecord } from "@shiplog/controller";
import { ConfigMapAcknowledgedStore, type ConfigMapStoreOptions } from "@shiplog/controller/internal";
import { pino } from "pino";
import { useFakeCluster } from "./fake-cluster-fixture.js";
import { GROUP, bigState, record } from "./state-fixtures.js";

export const NAMESPACE = "shiplog";
/** Limits that make a few records compact before every append and spread over several shards. */
export const TINY = { headMaxBytes: 0, shardMaxBytes: 1_500 };

type StoredConfigMap = { metadata: { resourceVersion: string }; data: Record<string, string>; binaryData?: Record<string, string> };

/** A fake cluster for the file's tests, and helpers to make stores on it and look at what they stored. */
export function useStateStores(prefix: string) {
  const fake = useFakeCluster(NAMESPACE);
  let counter = 0;
  const store = (name: string, options: Partial<ConfigMapStoreOptions> = {}): ConfigMapAcknowledgedStore =>
    new ConfigMapAcknowledgedStore({
      kubeConfig: fake.kubeConfig,
      namespace: NAMESPACE,
      name,
      org: "acme",
      cluster: "prod",
      apiUrl: "https://api.github.com",
      writer: "pod-a",
      requestTimeoutMs: 5000,
      logger: pino({ level: process.env.SHIPLOG_TEST_LOG ?? "silent" }),
      ...options,
    });
  const configMap = (name: string) => fake.cluster.store.get("configmaps", NAMESPACE, name) as StoredConfigMap | undefined;
  return {
    fake,
    store,
    configMap,
    /** A store that has loaded what is stored. */
    reread: async (name: string, options: Partial<ConfigMapStoreOptions> = {}) => {
      const s = store(name, options);
      await s.load();
      return s;
    },
    /** The names of the head and the shard slots of the state `name`. */
    stateMaps: (name: string) =>
      fake.cluster.store
        .list("configmaps", { namespace: NAMESPACE })
        .map((c) => c.metadata.name ?? "")
        .filter((n) => n === name || n.startsWith(`${name}-shard-`)),
    shardTable: (name: string) =>
      JSON.parse(configMap(name)!.data.shards!) as { slot: "a" | "b" | null; checksum: string; records: number }[],
    nextName: () => `${prefix}-${++counter}`,
  };
}

/** An acknowledged record named `name`, its digest made from `seed`. */
export const acked = (name: string, seed = name, status: "deployed" | "decommissioned" = "deployed"): AcknowledgedRecord =>
  record(GROUP, {
    deployment_name: name,
    name: `ghcr.io/acme/${name}`,
    digest: bigState(1, seed)[0]!.entry.digest,
    version: "1.0",
    status,
    github_repository: "web",
    tags: { team: "shop" },
  });
