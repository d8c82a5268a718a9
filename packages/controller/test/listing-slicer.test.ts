// While the pods list, the desired state takes them in slices (plain data: a tracker over a cluster in memory).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { computeDesiredState, DesiredStateTracker, LISTING_SLICE, listingSlicer } from "@shiplog/controller/internal";
import { deploymentWithPods, MAPPING } from "./kube-fixtures.js";
import { PlainCluster } from "./random-cluster.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function listed(listing: { now: boolean }) {
  const cluster = new PlainCluster((kind, namespace, name, reaches) => {
    tracker.objectChanged(kind, namespace, name, reaches);
    slicer();
  });
  const tracker = new DesiredStateTracker(cluster, MAPPING);
  const slicer = listingSlicer(tracker, () => listing.now, pino({ level: "silent" }));
  tracker.state();
  // A list page's worth more than a slice: 1,100 Deployments of 2 pods.
  for (let i = 0; i < 1100; i++) {
    const web = deploymentWithPods(`web-${i}`, { pods: 2 });
    cluster.put("Deployment", web.deployment);
    cluster.put("ReplicaSet", web.rs);
    for (const pod of web.pods) cluster.put("Pod", pod);
  }
  return { cluster, tracker };
}

describe("listingSlicer", () => {
  it("folds a slice of changes into the desired state at the next turn while listing", async () => {
    const { cluster, tracker } = listed({ now: true });
    expect(tracker.pendingChanges).toBeGreaterThanOrEqual(LISTING_SLICE);
    await nextTurn();
    expect(tracker.pendingChanges).toBe(0);
    expect(tracker.state().records).toEqual(computeDesiredState(cluster, MAPPING).records);
  });

  it("leaves changes to the round once everything is listed", async () => {
    const { tracker } = listed({ now: false });
    const pending = tracker.pendingChanges;
    await nextTurn();
    expect(tracker.pendingChanges).toBe(pending);
  });
});
