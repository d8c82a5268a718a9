// A fake cluster for the tests of one file: started before them with `namespace` in it, stopped after them.
import { KubeConfig } from "@kubernetes/client-node";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll } from "vitest";

/** The file's fake cluster and a kubeconfig for it (read them inside tests, once beforeAll has run). */
export function useFakeCluster(namespace: string): { readonly cluster: FakeCluster; readonly kubeConfig: KubeConfig } {
  const fixture = { cluster: undefined as FakeCluster | undefined, kubeConfig: new KubeConfig() };
  beforeAll(async () => {
    fixture.cluster = await startFakeCluster({ nodes: ["node-1"] });
    await fixture.cluster.script.ensureNamespace(namespace);
    fixture.kubeConfig.loadFromString(fixture.cluster.kubeconfig);
  });
  afterAll(async () => {
    await fixture.cluster?.stop();
  });
  return {
    get cluster() {
      return fixture.cluster!;
    },
    kubeConfig: fixture.kubeConfig,
  };
}
