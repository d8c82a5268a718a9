// What an informer cache keeps of an object (plain data): the fields the mapping reads, shared between the pods of
// one owner, frozen.
import { describe, expect, it } from "vitest";
import { slimObject, type Pod, type Workload } from "@shiplog/controller/internal";
import { DIGEST_A, DIGEST_B, owner, pod, workload } from "./kube-fixtures.js";

const rs = workload("ReplicaSet", "web-1", { uid: "rs-uid", containers: ["app", "log"] });
const podOf = (name: string, digest = DIGEST_A, extra: Partial<Pod["metadata"]> = {}) => {
  const p = pod(name, {
    owners: [owner("ReplicaSet", "web-1", "rs-uid"), { apiVersion: "v1", kind: "Node", name: "n1", uid: "n1" }],
    containers: [{ name: "app", image: "nginx:1.25", imageID: `docker.io/library/nginx@${digest}` }],
    initContainers: [
      { name: "migrate", image: "migrate:1", imageID: `migrate@${DIGEST_B}` },
      { name: "mesh", image: "envoy:1", imageID: `envoy@${DIGEST_B}`, restartPolicy: "Always" },
    ],
  });
  Object.assign(p.metadata, extra);
  return slimObject("Pod", p) as Pod;
};

describe("slimObject", () => {
  it("keeps what the mapping reads: the controlling owner, native sidecars, the state set", () => {
    const p = podOf("web-1-a", DIGEST_A, { labels: { app: "web" } } as never);
    expect(p.metadata.ownerReferences).toEqual([owner("ReplicaSet", "web-1", "rs-uid")]);
    expect(p.metadata.uid).toBeUndefined();
    expect(p.spec!.initContainers!.map((c) => c.name)).toEqual(["mesh"]);
    expect(p.status!.initContainerStatuses!.map((c) => c.name)).toEqual(["mesh"]);
    const running = {
      name: "app",
      image: "nginx:1.25",
      imageID: `docker.io/library/nginx@${DIGEST_A}`,
      ready: true,
      state: { running: {} },
    };
    expect(p.status!.containerStatuses![0]).toEqual(running);
  });

  it("pods of one owner share their spec, owner reference and equal status; a different status is their own", () => {
    const a = podOf("web-1-a");
    const b = podOf("web-1-b");
    expect(b.spec).toBe(a.spec);
    expect(b.metadata.ownerReferences).toBe(a.metadata.ownerReferences);
    expect(b.status).toBe(a.status);
    const rolled = podOf("web-1-c", DIGEST_B);
    expect(rolled.spec).toBe(a.spec);
    expect(rolled.status).not.toBe(a.status);
    expect(rolled.status!.containerStatuses![0]!.imageID).toBe(`docker.io/library/nginx@${DIGEST_B}`);
    // The ReplicaSet's template shares its pods' spec when equal.
    const initContainers = [{ name: "mesh", image: "envoy:1", restartPolicy: "Always" }];
    const spec = { containers: [{ name: "app", image: "nginx:1.25" }], initContainers };
    const template = (slimObject("ReplicaSet", { ...rs, spec: { template: { spec } } }) as Workload).spec!.template!;
    expect(template.spec).toBe(a.spec);
  });

  it("a Deployment keeps its template's container names only, shared by equal names, and no revision of its own", () => {
    const deployment = (name: string, images: string[]) =>
      slimObject("Deployment", {
        ...workload("Deployment", name, { revision: 7, annotations: { "shiplog.dev/repository": "web" } }),
        spec: {
          replicas: 2,
          template: {
            spec: {
              containers: images.map((image, i) => ({ name: `c${i}`, image })),
              initContainers: [{ name: "mesh", image: "envoy:1", restartPolicy: "Always" }],
            },
          },
        },
      }) as Workload;
    const web = deployment("web", ["nginx:1.25", "log:2"]);
    expect(web.spec!.template!.spec!.containers.map((c) => [c.name, c.image])).toEqual([
      ["c0", undefined],
      ["c1", undefined],
    ]);
    expect(web.spec!.template!.spec!.initContainers!.map((c) => [c.name, c.restartPolicy])).toEqual([["mesh", "Always"]]);
    // Another Deployment, other images, the same names: one copy. A new image is no change to report.
    expect(deployment("api", ["api:3", "log:3"]).spec!.template!.spec).toBe(web.spec!.template!.spec);
    expect(deployment("one", ["api:3"]).spec!.template!.spec).not.toBe(web.spec!.template!.spec);
    expect(web.metadata.annotations).toEqual({ "shiplog.dev/repository": "web" });
    const replicaSet = slimObject("ReplicaSet", workload("ReplicaSet", "web-1", { revision: 7 })) as Workload;
    expect(replicaSet.metadata.annotations).toEqual({ "deployment.kubernetes.io/revision": "7" });
  });

  it("shared parts are frozen: one pod cannot change another", () => {
    const a = podOf("web-1-a");
    expect(() => {
      (a.spec!.containers[0] as { image?: string }).image = "evil";
    }).toThrow(TypeError);
    expect(() => a.status!.containerStatuses!.push({ name: "x" })).toThrow(TypeError);
  });

  it("keeps template labels only when asked (a label selector needs them), and a Job's finished conditions only", () => {
    const template = { metadata: { labels: { app: "w" } }, spec: { containers: [] } };
    const raw = { metadata: { name: "w", namespace: "shop", uid: "w-uid" }, spec: { replicas: 2, template } };
    expect((slimObject("Deployment", raw, { templateLabels: false }) as Workload).spec!.template!.metadata).toBeUndefined();
    expect((slimObject("Deployment", raw) as Workload).spec!.template!.metadata!.labels).toEqual({ app: "w" });
    const conditions = [
      { type: "Suspended", status: "True" },
      { type: "Complete", status: "True" },
    ];
    const job = slimObject("Job", { metadata: { name: "j", namespace: "shop", uid: "j" }, status: { conditions } });
    expect((job as { status?: unknown }).status).toEqual({ conditions: [{ type: "Complete", status: "True" }] });
  });
});
