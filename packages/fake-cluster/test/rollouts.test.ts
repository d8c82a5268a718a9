// Deployment rollouts step as kube-controller-manager's: RollingUpdate within maxSurge/maxUnavailable as new pods
// become ready, Recreate with no old pod left before a new one starts. Watched over HTTP, event by event.
import { startFakeCluster } from "@shiplog/fake-cluster";
import { newReplicaSetTarget, oldReplicaSetTargets, resolveFenceposts, scaledValue } from "../src/rolling-update.js";
import type { FakeCluster, KubeObject } from "@shiplog/fake-cluster";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawWatch, type WatchLine } from "./kube-clients.js";

describe("rolling-update arithmetic (plain data)", () => {
  it("percentages round up for maxSurge and down for maxUnavailable; both zero allow one unavailable", () => {
    expect(resolveFenceposts({ maxSurge: "25%", maxUnavailable: "25%" }, 10)).toEqual({ surge: 3, unavailable: 2 });
    expect(resolveFenceposts({ maxSurge: "25%", maxUnavailable: "25%" }, 3)).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts({ maxSurge: "25%", maxUnavailable: "25%" }, 1)).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts({ maxSurge: 0, maxUnavailable: "10%" }, 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts({ maxSurge: 2, maxUnavailable: 9 }, 4)).toEqual({ surge: 2, unavailable: 4 });
    expect(scaledValue("0%", 7, true)).toBe(0);
    expect(() => scaledValue("a%", 4, true)).toThrow(RangeError);
  });

  it("the new ReplicaSet grows within replicas + maxSurge; old ones shrink keeping replicas - maxUnavailable available", () => {
    const oneByOne = { maxSurge: 1, maxUnavailable: 0 };
    expect(newReplicaSetTarget(oneByOne, 4, { replicas: 0, available: 0 }, [{ replicas: 4, available: 4 }])).toBe(1);
    expect(newReplicaSetTarget(oneByOne, 4, { replicas: 1, available: 0 }, [{ replicas: 4, available: 4 }])).toBe(1);
    expect(oldReplicaSetTargets(oneByOne, 4, { replicas: 1, available: 0 }, [{ replicas: 4, available: 4 }])).toEqual([4]);
    expect(oldReplicaSetTargets(oneByOne, 4, { replicas: 1, available: 1 }, [{ replicas: 4, available: 4 }])).toEqual([3]);
    expect(newReplicaSetTarget(oneByOne, 4, { replicas: 1, available: 1 }, [{ replicas: 3, available: 3 }])).toBe(2);
    // Defaults at 10 replicas: 3 new at once, old down to 8 available.
    const defaults = { maxSurge: "25%", maxUnavailable: "25%" };
    expect(newReplicaSetTarget(defaults, 10, { replicas: 0, available: 0 }, [{ replicas: 10, available: 10 }])).toBe(3);
    expect(oldReplicaSetTargets(defaults, 10, { replicas: 3, available: 0 }, [{ replicas: 10, available: 10 }])).toEqual([8]);
    // Unhealthy old replicas go first (4 - 1 of the oldest), then available ones, oldest first, down to 8 available.
    expect(
      oldReplicaSetTargets(defaults, 10, { replicas: 3, available: 3 }, [
        { replicas: 4, available: 1 },
        { replicas: 6, available: 6 },
      ]),
    ).toEqual([0, 5]);
    // Scaling up without a template change is one step.
    expect(newReplicaSetTarget(defaults, 10, { replicas: 4, available: 4 }, [])).toBe(10);
  });
});

describe("rollouts", () => {
  let cluster: FakeCluster;
  beforeEach(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1", "node-2"], bookmarkIntervalMs: 3_600_000 });
  });
  afterEach(async () => {
    await cluster.stop();
  });

  const deployment = (name: string, replicas: number, strategy?: Record<string, unknown>) => ({
    metadata: { name, namespace: "roll" },
    spec: {
      replicas,
      ...(strategy && { strategy }),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "nginx:1.25" }] } },
    },
  });

  /** The pod fields the replay reads. */
  type PodView = KubeObject & { status?: { phase?: string; conditions?: { type: string; status: string }[] } };

  /** Replays pod events: the most pods alive at once and the fewest ready ones, over the rollout. */
  function podHistory(events: WatchLine[], initial: PodView[]) {
    const pods = new Map(initial.map((p) => [p.metadata.name!, p]));
    const alive = () =>
      [...pods.values()].filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
    const ready = () =>
      [...pods.values()].filter(
        (p) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
    let mostAlive = alive().length;
    let fewestReady = ready().length;
    const samples: { alive: number; ready: number; owners: Set<string> }[] = [];
    for (const e of events) {
      if (e.type === "DELETED") pods.delete(e.object.metadata.name);
      else if (e.type === "ADDED" || e.type === "MODIFIED") pods.set(e.object.metadata.name, e.object);
      mostAlive = Math.max(mostAlive, alive().length);
      fewestReady = Math.min(fewestReady, ready().length);
      samples.push({
        alive: alive().length,
        ready: ready().length,
        owners: new Set([...pods.values()].map((p) => p.metadata.ownerReferences![0]!.name)),
      });
    }
    return { mostAlive, fewestReady, samples };
  }

  /** spec.replicas of each ReplicaSet, in the order the watch saw them change. */
  function replicaSteps(events: WatchLine[]): Map<string, number[]> {
    const steps = new Map<string, number[]>();
    for (const e of events) {
      const seen = steps.get(e.object.metadata.name) ?? [];
      const replicas = e.type === "DELETED" ? 0 : e.object.spec.replicas;
      if (seen[seen.length - 1] !== replicas) seen.push(replicas);
      steps.set(e.object.metadata.name, seen);
    }
    return steps;
  }

  /** Rolls `name` to `image` with pod and ReplicaSet watches open; returns every event up to the rollout's end. */
  async function rollWatched(name: string, image: string) {
    const rv = cluster.store.resourceVersion();
    const initialPods = cluster.store.list("pods", { namespace: "roll" });
    const pods = await rawWatch(`${cluster.url}/api/v1/namespaces/roll/pods?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
    const sets = await rawWatch(
      `${cluster.url}/apis/apps/v1/namespaces/roll/replicasets?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
    );
    const done = await cluster.script.setImage("roll", name, image);
    // A bookmark follows every event sent before it: once it arrives, the watch has seen the whole rollout.
    cluster.sendBookmarks();
    await Promise.all([pods.until((e) => e.some((x) => x.type === "BOOKMARK")), sets.until((e) => e.some((x) => x.type === "BOOKMARK"))]);
    pods.abort();
    sets.abort();
    const changes = (events: WatchLine[]) => events.filter((e) => e.type !== "BOOKMARK");
    return { done, podEvents: changes(pods.events), setEvents: changes(sets.events), initialPods };
  }

  it("RollingUpdate maxSurge 1, maxUnavailable 0: one new pod at a time, never fewer than 4 ready nor more than 5 pods", async () => {
    await cluster.script.create(
      "deployments",
      deployment("web", 4, { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }),
    );
    const [oldRs] = cluster.store.list("replicasets", { namespace: "roll" });
    const { done, podEvents, setEvents, initialPods } = await rollWatched("web", "nginx:1.26");
    expect(done.status).toMatchObject({ replicas: 4, updatedReplicas: 4, availableReplicas: 4 });
    const newRs = cluster.store.list("replicasets", { namespace: "roll" }).find((rs) => rs.metadata.name !== oldRs!.metadata.name)!;
    const steps = replicaSteps(setEvents);
    expect(steps.get(newRs.metadata.name!)).toEqual([1, 2, 3, 4]);
    // The watch starts at the rollout: the old ReplicaSet's first change is 4 -> 3.
    expect(steps.get(oldRs!.metadata.name!)).toEqual([3, 2, 1, 0]);
    const history = podHistory(podEvents, initialPods);
    expect(history.mostAlive).toBe(5);
    expect(history.fewestReady).toBe(4);
    expect(newRs.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/desired-replicas": "4",
      "deployment.kubernetes.io/max-replicas": "5",
      "deployment.kubernetes.io/revision": "2",
    });
  });

  it("default strategy (25%/25%) at 10 replicas: 3 new pods first, at least 8 ready, at most 13 pods", async () => {
    await cluster.script.create("deployments", deployment("api", 10));
    expect(cluster.store.get("deployments", "roll", "api")!.spec!.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
    });
    const [oldRs] = cluster.store.list("replicasets", { namespace: "roll" });
    const { podEvents, setEvents, initialPods } = await rollWatched("api", "nginx:1.26");
    const newName = cluster.store.list("replicasets", { namespace: "roll" }).find((rs) => rs.metadata.name !== oldRs!.metadata.name)!
      .metadata.name!;
    const steps = replicaSteps(setEvents);
    expect(steps.get(newName)![0]).toBe(3);
    expect(steps.get(newName)!.at(-1)).toBe(10);
    expect(steps.get(oldRs!.metadata.name!)![0]).toBe(8);
    const history = podHistory(podEvents, initialPods);
    expect(history.mostAlive).toBeLessThanOrEqual(13);
    expect(history.fewestReady).toBeGreaterThanOrEqual(8);
    expect(cluster.store.list("pods", { namespace: "roll" }).filter((p) => p.metadata.ownerReferences![0]!.name === newName)).toHaveLength(
      10,
    );
  });

  it("steps only as new pods become ready: with the kubelet paused the rollout waits at the surge", async () => {
    await cluster.script.create(
      "deployments",
      deployment("slow", 4, { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }),
    );
    const [oldRs] = cluster.store.list("replicasets", { namespace: "roll" });
    cluster.script.pauseKubelet();
    const waiting = await cluster.script.setImage("roll", "slow", "nginx:1.26");
    const sets = cluster.store.list("replicasets", { namespace: "roll" });
    const newRs = sets.find((rs) => rs.metadata.name !== oldRs!.metadata.name)!;
    expect(newRs.spec!.replicas).toBe(1);
    expect(cluster.store.get("replicasets", "roll", oldRs!.metadata.name!)!.spec!.replicas).toBe(4);
    expect(waiting.status).toMatchObject({ replicas: 5, updatedReplicas: 1, availableReplicas: 4 });
    expect(waiting.status!.conditions).toContainEqual(expect.objectContaining({ type: "Progressing", reason: "ReplicaSetUpdated" }));
    await cluster.script.resumeKubelet();
    await cluster.settle();
    expect(cluster.store.get("replicasets", "roll", newRs.metadata.name!)!.spec!.replicas).toBe(4);
    expect(cluster.store.get("replicasets", "roll", oldRs!.metadata.name!)!.spec!.replicas).toBe(0);
    expect(cluster.store.get("deployments", "roll", "slow")!.status!.conditions).toContainEqual(
      expect.objectContaining({ type: "Progressing", reason: "NewReplicaSetAvailable" }),
    );
  });

  it("maxUnavailable lets old pods go before new ones are ready (maxSurge 0)", async () => {
    await cluster.script.create(
      "deployments",
      deployment("tight", 4, { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 2 } }),
    );
    const { podEvents, initialPods } = await rollWatched("tight", "nginx:1.26");
    const history = podHistory(podEvents, initialPods);
    expect(history.mostAlive).toBe(4);
    expect(history.fewestReady).toBe(2);
  });

  it("Recreate: every old pod is gone before the first new pod is created", async () => {
    await cluster.script.create("deployments", deployment("batch", 3, { type: "Recreate" }));
    const [oldRs] = cluster.store.list("replicasets", { namespace: "roll" });
    const { done, podEvents, initialPods } = await rollWatched("batch", "nginx:1.26");
    expect(done.status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
    const history = podHistory(podEvents, initialPods);
    expect(history.samples.some((s) => s.owners.size > 1)).toBe(false);
    expect(history.mostAlive).toBe(3);
    expect(history.fewestReady).toBe(0);
    expect(cluster.store.get("replicasets", "roll", oldRs!.metadata.name!)!.spec!.replicas).toBe(0);
  });

  it("refuses strategies the API server refuses (422)", async () => {
    const refused = async (strategy: Record<string, unknown>) => {
      const response = await fetch(`${cluster.url}/apis/apps/v1/namespaces/roll/deployments`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(deployment("bad", 2, strategy)),
      });
      return { status: response.status, message: ((await response.json()) as { message: string }).message };
    };
    await cluster.script.ensureNamespace("roll");
    expect(await refused({ type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } })).toEqual({
      status: 422,
      message: expect.stringContaining("may not be 0 when `maxSurge` is 0"),
    });
    expect(await refused({ type: "RollingUpdate", rollingUpdate: { maxSurge: "1/4" } })).toEqual({
      status: 422,
      message: expect.stringContaining("spec.strategy.rollingUpdate.maxSurge"),
    });
    expect(await refused({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "150%" } })).toEqual({
      status: 422,
      message: expect.stringContaining("must not be greater than 100%"),
    });
    expect(await refused({ type: "Recreate", rollingUpdate: { maxSurge: 1 } })).toEqual({
      status: 422,
      message: expect.stringContaining("may not be specified when strategy `type` is 'Recreate'"),
    });
  });
});
