// Strategic merge patch as the API server applies it: merge lists by their key (containers and env by name, ports by
// containerPort, volumeMounts by mountPath...), with $patch directives; other lists replaced.
import { AppsV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { strategicMergePatch } from "../src/strategic-merge-patch.js";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-clients.js";

const pod = () => ({
  metadata: { name: "p", finalizers: ["a/one"], labels: { app: "web", tier: "front" } },
  spec: {
    containers: [
      {
        name: "app",
        image: "app:1",
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
        ],
        ports: [{ containerPort: 80 }, { containerPort: 443 }],
        volumeMounts: [{ name: "data", mountPath: "/data" }],
      },
      { name: "sidecar", image: "proxy:1", args: ["--a", "--b"] },
    ],
    volumes: [{ name: "data", emptyDir: {} }],
    tolerations: [{ key: "x", operator: "Exists" }],
  },
});

/** The fields the tests read from a patched pod. */
interface PatchedPod {
  metadata: { labels: Record<string, string>; finalizers: string[] };
  spec: {
    containers: { name: string; image: string; args: string[]; env: unknown[]; ports: unknown[]; volumeMounts: unknown[] }[];
    volumes: { name: string }[];
    tolerations: unknown[];
  };
}

/** `pod()` with `patch` applied. */
const patched = (patch: unknown) => strategicMergePatch(pod(), patch) as PatchedPod;

describe("strategicMergePatch (plain data)", () => {
  it("merges containers by name: one image changes, the other container is kept", () => {
    const out = patched({ spec: { containers: [{ name: "sidecar", image: "proxy:2" }] } });
    expect(out.spec.containers).toEqual([pod().spec.containers[0], { name: "sidecar", image: "proxy:2", args: ["--a", "--b"] }]);
  });

  it("merges env by name, ports by containerPort, volumeMounts by mountPath, volumes by name; appends new keys", () => {
    const out = patched({
      spec: {
        containers: [
          {
            name: "app",
            env: [
              { name: "B", value: "two" },
              { name: "C", value: "3" },
            ],
            ports: [{ containerPort: 443, name: "https" }, { containerPort: 8080 }],
            volumeMounts: [{ mountPath: "/data", readOnly: true }],
          },
        ],
        volumes: [{ name: "cache", emptyDir: {} }],
      },
    });
    const app = out.spec.containers[0]!;
    expect(app.env).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "two" },
      { name: "C", value: "3" },
    ]);
    expect(app.ports).toEqual([{ containerPort: 80 }, { containerPort: 443, name: "https" }, { containerPort: 8080 }]);
    expect(app.volumeMounts).toEqual([{ name: "data", mountPath: "/data", readOnly: true }]);
    expect(out.spec.volumes.map((v) => v.name)).toEqual(["data", "cache"]);
    expect(out.spec.containers[1]).toEqual(pod().spec.containers[1]);
  });

  it("$patch: delete removes a keyed element, $patch: replace replaces a list or a map; other lists are replaced; null deletes", () => {
    expect(patched({ spec: { containers: [{ name: "sidecar", $patch: "delete" }] } }).spec.containers.map((c) => c.name)).toEqual(["app"]);
    expect(patched({ spec: { volumes: [{ $patch: "replace" }, { name: "only", emptyDir: {} }] } }).spec.volumes).toEqual([
      { name: "only", emptyDir: {} },
    ]);
    expect(patched({ metadata: { labels: { $patch: "replace", app: "api" } } }).metadata.labels).toEqual({
      app: "api",
    });
    expect(patched({ spec: { tolerations: [{ key: "y", operator: "Exists" }] } }).spec.tolerations).toEqual([
      { key: "y", operator: "Exists" },
    ]);
    expect(patched({ spec: { containers: [{ name: "sidecar", args: ["--c"] }] } }).spec.containers[1]!.args).toEqual(["--c"]);
    expect(patched({ metadata: { labels: { tier: null } } }).metadata.labels).toEqual({ app: "web" });
  });

  it("metadata.finalizers merge as a set; $deleteFromPrimitiveList and $setElementOrder; an element without its key is refused", () => {
    expect(patched({ metadata: { finalizers: ["b/two", "a/one"] } }).metadata.finalizers).toEqual(["a/one", "b/two"]);
    expect(patched({ metadata: { "$deleteFromPrimitiveList/finalizers": ["a/one"] } }).metadata.finalizers).toEqual([]);
    const reordered = patched({
      spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }], containers: [{ name: "app", image: "app:2" }] },
    });
    expect(reordered.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ["sidecar", "proxy:1"],
      ["app", "app:2"],
    ]);
    expect(JSON.stringify(reordered)).not.toContain("$setElementOrder");
    expect(() => strategicMergePatch(pod(), { spec: { containers: [{ image: "nameless:1" }] } })).toThrow(
      /does not contain declared merge key: name/,
    );
  });
});

describe("PATCH application/strategic-merge-patch+json", () => {
  let cluster: FakeCluster;
  let apps: AppsV1Api;
  beforeAll(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    apps = kubeConfigFor(cluster).makeApiClient(AppsV1Api);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("like `kubectl set image deploy/web proxy=envoy:1.31`: one container's image changes, the other stays, pods roll", async () => {
    await cluster.script.createDeployment({
      namespace: "smp",
      name: "web",
      replicas: 2,
      containers: [
        { name: "app", image: "ghcr.io/acme/web:1.0", env: [{ name: "MODE", value: "prod" }] },
        { name: "proxy", image: "envoy:1.30" },
      ],
    });
    const patched = await apps.patchNamespacedDeployment(
      { namespace: "smp", name: "web", body: { spec: { template: { spec: { containers: [{ name: "proxy", image: "envoy:1.31" }] } } } } },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    expect(patched.spec?.template.spec?.containers.map((c) => [c.name, c.image])).toEqual([
      ["app", "ghcr.io/acme/web:1.0"],
      ["proxy", "envoy:1.31"],
    ]);
    expect(patched.spec?.template.spec?.containers[0]?.env).toEqual([{ name: "MODE", value: "prod" }]);
    await cluster.settle();
    const pods = cluster.store.list("pods", { namespace: "smp" });
    expect(pods).toHaveLength(2);
    for (const p of pods) expect(p.spec!.containers!.map((c) => c.image)).toEqual(["ghcr.io/acme/web:1.0", "envoy:1.31"]);
    // A merge patch (RFC 7386) still replaces the list.
    const merged = await apps.patchNamespacedDeployment(
      { namespace: "smp", name: "web", body: { spec: { template: { spec: { containers: [{ name: "proxy", image: "envoy:1.32" }] } } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    expect(merged.spec?.template.spec?.containers.map((c) => c.name)).toEqual(["proxy"]);
  });
});
