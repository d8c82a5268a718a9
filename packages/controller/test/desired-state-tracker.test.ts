// The desired-state tracker against computeDesiredState, with plain data: after any sequence of events its state
// equals the full computation over the same caches, changedKeys names every key whose record or hold changed, and
// after a change it reads the objects of the workloads touched, not the cluster.
import { describe, expect, it } from "vitest";
import type { DesiredState } from "@shiplog/controller";
import {
  DesiredStateTracker,
  computeDesiredState,
  entryFingerprint,
  parseLabelSelector,
  type DesiredStateOptions,
  type Pod,
  type Workload,
} from "@shiplog/controller/internal";
import { DIGEST_A, DIGEST_B, MAPPING, deploymentWithPods, owner, pod, workload } from "./kube-fixtures.js";
import { PlainCluster, random, randomEvent } from "./random-cluster.js";

const sortBy = <T>(list: T[], key: (item: T) => string) => [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** The state as plain sorted data (records in full, lists as multisets). */
function plain(state: DesiredState) {
  return {
    records: sortBy([...state.records.entries()], ([k]) => k),
    held: [...state.held].sort(),
    conflicts: sortBy(state.conflicts, (c) => c.key),
    skipped: sortBy(state.skipped, (s) => `${s.subject} ${s.reason}`),
    warnings: sortBy(state.warnings, (w) => `${w.subject} ${w.annotation} ${w.reason}`),
  };
}

/** Record fingerprint or "held" per key, to tell which keys changed between two states. */
function outcome(state: DesiredState): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, record] of state.records) out.set(key, entryFingerprint(record.entry));
  for (const key of state.held) out.set(key, "held");
  return out;
}

const selector = parseLabelSelector("tier!=internal");
if (!selector.ok) throw new Error(selector.reason);
const VARIANTS: [string, DesiredStateOptions][] = [
  ["default options", MAPPING],
  ["names without the namespace (conflicts across namespaces)", { ...MAPPING, deploymentNameTemplate: "{workload}-{container}" }],
  [
    "a namespace filter and the label selector",
    { ...MAPPING, namespaceAllowed: (ns) => ns !== "b", podLabelsMatch: selector.value.matches },
  ],
  [
    "deployment-tracker annotations, {kind} in names",
    { ...MAPPING, deploymentTrackerAnnotations: true, deploymentNameTemplate: "{kind}-{namespace}-{workload}-{container}" },
  ],
];

describe("DesiredStateTracker", () => {
  it.each(VARIANTS)("equals computeDesiredState after random sequences of events (%s)", (_, options) => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = random(seed);
      let tracker: DesiredStateTracker | undefined;
      const cluster = new PlainCluster((kind, namespace, name, reaches) => tracker?.objectChanged(kind, namespace, name, reaches));
      // Some history before the tracker starts (a restart: it builds from the caches), then events in bursts.
      for (let i = 0; i < 30; i++) randomEvent(cluster, next);
      tracker = new DesiredStateTracker(cluster, options);
      expect(plain(tracker.state()), `seed ${seed}, first state`).toEqual(plain(computeDesiredState(cluster, options)));
      expect(tracker.changedKeys()).toBe("all");
      let before = outcome(computeDesiredState(cluster, options));
      for (let burst = 0; burst < 60; burst++) {
        const events = 1 + Math.floor(next() * 5);
        for (let i = 0; i < events; i++) randomEvent(cluster, next);
        const full = computeDesiredState(cluster, options);
        expect(plain(tracker.state()), `seed ${seed}, burst ${burst}`).toEqual(plain(full));
        const changed = tracker.changedKeys();
        expect(changed).not.toBe("all");
        const after = outcome(full);
        const really = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
        // Every key whose record or hold changed is named (a key that changed and changed back may be named too).
        for (const key of really) expect((changed as ReadonlySet<string>).has(key), `seed ${seed}, burst ${burst}: ${key}`).toBe(true);
        before = after;
      }
    }
  });

  it("names exactly the key a pod change touched, and nothing when nothing changed", () => {
    const cluster = new PlainCluster((kind, namespace, name, reaches) => tracker.objectChanged(kind, namespace, name, reaches));
    const tracker = new DesiredStateTracker(cluster, MAPPING);
    const sts = workload("StatefulSet", "db", { replicas: 1 });
    cluster.put("StatefulSet", sts);
    const running = (digest: string): Pod =>
      pod("db-0", {
        owners: [owner("StatefulSet", "db", sts.metadata.uid!)],
        containers: [{ name: "app", image: "postgres:16", imageID: `postgres@${digest}` }],
      });
    cluster.put("Pod", running(DIGEST_A));
    for (let i = 0; i < 50; i++) cluster.put("Deployment", workload("Deployment", `idle-${i}`, { replicas: 1 }));
    tracker.state();
    expect(tracker.changedKeys()).toBe("all");
    expect(tracker.changedKeys()).toEqual(new Set());

    cluster.put("Pod", running(DIGEST_B));
    const key = [...tracker.state().records.keys()][0]!;
    expect(tracker.changedKeys()).toEqual(new Set([key]));
    // Updated with the same content (a status heartbeat): nothing to send.
    cluster.put("Pod", running(DIGEST_B));
    expect(tracker.changedKeys()).toEqual(new Set());
    // The pod gone: its workload holds the name (nothing running), which is a change of its key.
    cluster.remove("Pod", "shop", "db-0");
    expect(tracker.changedKeys()).toEqual(new Set([key]));
    expect(tracker.state().held.has(key)).toBe(true);
  });

  it("after the first build, a pod change reads that workload's objects, not the cluster", () => {
    const cluster = new PlainCluster((kind, namespace, name, reaches) => tracker.objectChanged(kind, namespace, name, reaches));
    const tracker = new DesiredStateTracker(cluster, MAPPING);
    const deployments: Workload[] = [];
    for (let i = 0; i < 200; i++) {
      const deployment = workload("Deployment", `svc-${i}`, { replicas: 3 });
      const rs = workload("ReplicaSet", `svc-${i}-rs`, {
        revision: 1,
        owners: [owner("Deployment", `svc-${i}`, deployment.metadata.uid!)],
      });
      cluster.put("Deployment", deployment);
      cluster.put("ReplicaSet", rs);
      const owners = [owner("ReplicaSet", rs.metadata.name, rs.metadata.uid!)];
      for (let p = 0; p < 3; p++) cluster.put("Pod", pod(`svc-${i}-rs-${p}`, { owners }));
      deployments.push(deployment);
    }
    expect(tracker.state().records.size).toBe(200);
    const owners = (cluster.object("Pod", "shop", "svc-7-rs-1") as Pod).metadata.ownerReferences!;
    const reads = { ...cluster.reads };
    const containers = [{ name: "app", image: "nginx:1.26", imageID: `docker.io/library/nginx@${DIGEST_B}` }];
    const changed = pod("svc-7-rs-1", { owners, containers });
    cluster.put("Pod", changed);
    tracker.state();
    expect(cluster.reads.iterations).toBe(reads.iterations);
    // The changed pod, then its workload's members (three pods and the Deployment): no other workload is looked at.
    expect(cluster.reads.objects - reads.objects).toBeLessThanOrEqual(5);

    // A Deployment change reaches its ReplicaSet and pods (their records carry its annotations), no further.
    const before = cluster.reads.objects;
    const annotated = { ...deployments[3]!, metadata: { ...deployments[3]!.metadata, annotations: { "shiplog.dev/repository": "api" } } };
    cluster.put("Deployment", annotated);
    const state = tracker.state();
    expect([...state.records.values()].find((r) => r.workload.name === "svc-3")!.entry.github_repository).toBe("api");
    expect(cluster.reads.objects - before).toBeLessThanOrEqual(12);
    expect(plain(state)).toEqual(plain(computeDesiredState(cluster, MAPPING)));

    // A ReplicaSet scaled from 3 to 2 (a rollout's every step) resolves its pods alike: only it is read again.
    const rs = cluster.object("ReplicaSet", "shop", "svc-5-rs") as Workload;
    const scaled = { ...rs, spec: { ...rs.spec, replicas: 2 } };
    tracker.changedKeys();
    const beforeScale = cluster.reads.objects;
    cluster.put("ReplicaSet", scaled);
    expect(tracker.changedKeys()).toEqual(new Set());
    expect(cluster.reads.objects - beforeScale).toBe(1);
    // Scaled to 0, its activity changes: its pods are placed again, and the state is still the full computation's.
    cluster.put("ReplicaSet", { ...scaled, spec: { ...rs.spec, replicas: 0 } });
    expect(plain(tracker.state())).toEqual(plain(computeDesiredState(cluster, MAPPING)));
  });

  // A ReplicaSet under a Deployment is no workload's member: only its pods, placed again, carry its change.
  const inPlace: [string, (rs: Workload) => Workload][] = [
    [
      "annotated",
      (rs) => ({ ...rs, metadata: { ...rs.metadata, annotations: { ...rs.metadata.annotations, "shiplog.dev/repository": "api" } } }),
    ],
    ["being deleted", (rs) => ({ ...rs, metadata: { ...rs.metadata, deletionTimestamp: "2026-01-02T00:00:00Z" } })],
    ["orphaned", (rs) => ({ ...rs, metadata: { ...rs.metadata, ownerReferences: [] } })],
    [
      "owned by a recreated Deployment",
      (rs) => ({ ...rs, metadata: { ...rs.metadata, ownerReferences: [owner("Deployment", "web", "new-uid")] } }),
    ],
  ];
  it.each(inPlace)("a ReplicaSet %s in place reaches its pods' records", (_, change) => {
    const cluster = new PlainCluster((kind, namespace, name, reaches) => tracker.objectChanged(kind, namespace, name, reaches));
    const tracker = new DesiredStateTracker(cluster, MAPPING);
    const web = deploymentWithPods("web", { pods: 2 });
    cluster.put("Deployment", web.deployment);
    cluster.put("ReplicaSet", web.rs);
    for (const p of web.pods) cluster.put("Pod", p);
    const before = plain(tracker.state());
    cluster.put("ReplicaSet", change(cluster.object("ReplicaSet", "shop", web.rs.metadata.name) as Workload));
    const after = plain(tracker.state());
    expect(after).not.toEqual(before);
    expect(after).toEqual(plain(computeDesiredState(cluster, MAPPING)));
  });

  it("after a state() that failed half-way, builds afresh: the changes it had taken are not lost", () => {
    let failing = false;
    class FlakyCluster extends PlainCluster {
      override object(...args: Parameters<PlainCluster["object"]>) {
        if (failing) throw new Error("cache read failed");
        return super.object(...args);
      }
    }
    const cluster = new FlakyCluster((kind, namespace, name, reaches) => tracker.objectChanged(kind, namespace, name, reaches));
    const tracker = new DesiredStateTracker(cluster, MAPPING);
    const web = deploymentWithPods("web", { pods: 2 });
    cluster.put("Deployment", web.deployment);
    cluster.put("ReplicaSet", web.rs);
    tracker.state();
    tracker.changedKeys();
    for (const p of web.pods) cluster.put("Pod", p);
    failing = true;
    expect(() => tracker.state()).toThrow("cache read failed");
    failing = false;
    expect(tracker.changedKeys()).toBe("all");
    expect(plain(tracker.state())).toEqual(plain(computeDesiredState(cluster, MAPPING)));
    expect(tracker.state().records.size).toBe(1);
  });
});
