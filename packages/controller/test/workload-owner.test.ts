import { describe, expect, it } from "vitest";
import { resolvesAlike, resolveWorkload, type CronJob, type Job, type Workload } from "@shiplog/controller/internal";
import { deploymentWithPods, owner, pod, snapshot, uid, workload } from "./kube-fixtures.js";

describe("resolveWorkload", () => {
  it("follows ReplicaSet to Deployment by the real owner reference, not by the name", () => {
    const d = deploymentWithPods("web");
    // The ReplicaSet name does not even share a prefix with the Deployment: only references count.
    const result = resolveWorkload(d.pods[0]!, snapshot({ workloads: d.workloads }));
    expect(result).toMatchObject({
      ok: true,
      value: { workload: { kind: "Deployment", namespace: "shop", name: "web" }, activity: "active", revision: 1 },
    });
  });

  it("takes a ReplicaSet without a controller as the workload", () => {
    const rs = workload("ReplicaSet", "bare-rs", { replicas: 2 });
    const p = pod("bare-rs-x", { owners: [owner("ReplicaSet", "bare-rs", rs.metadata.uid!)] });
    expect(resolveWorkload(p, snapshot({ workloads: [{ kind: "ReplicaSet", object: rs }] }))).toMatchObject({
      ok: true,
      value: { workload: { kind: "ReplicaSet", name: "bare-rs" } },
    });
  });

  it("names an unwatched owner of a ReplicaSet (Argo Rollout) as the workload, without flapping on hashes", () => {
    const rs = workload("ReplicaSet", "checkout-6d4f8b9c7", { owners: [owner("Rollout", "checkout", "r-1", "argoproj.io/v1alpha1")] });
    const p = pod("checkout-6d4f8b9c7-abcde", { owners: [owner("ReplicaSet", rs.metadata.name, rs.metadata.uid!)] });
    expect(resolveWorkload(p, snapshot({ workloads: [{ kind: "ReplicaSet", object: rs }] }))).toMatchObject({
      ok: true,
      value: { workload: { kind: "Rollout", name: "checkout" } },
    });
  });

  it("follows Job to CronJob", () => {
    const cron: CronJob = { kind: "CronJob", metadata: { name: "report", namespace: "shop", uid: uid() }, spec: {} };
    const job: Job = {
      kind: "Job",
      metadata: {
        name: "report-28000000",
        namespace: "shop",
        uid: uid(),
        ownerReferences: [owner("CronJob", "report", cron.metadata.uid!)],
      },
    };
    const p = pod("report-28000000-x", { owners: [owner("Job", job.metadata.name, job.metadata.uid!)] });
    const snap = snapshot({
      workloads: [
        { kind: "CronJob", object: cron },
        { kind: "Job", object: job },
      ],
    });
    expect(resolveWorkload(p, snap)).toMatchObject({
      ok: true,
      value: { workload: { kind: "CronJob", name: "report" }, activity: "active" },
    });
  });

  it("keeps a CronJob active while one of its Jobs has finished, and a bare Job finished", () => {
    const cron: CronJob = { kind: "CronJob", metadata: { name: "report", namespace: "shop", uid: uid() }, spec: {} };
    const done = { conditions: [{ type: "Complete", status: "True" }] };
    const job: Job = {
      kind: "Job",
      metadata: { name: "report-1", namespace: "shop", uid: uid(), ownerReferences: [owner("CronJob", "report", cron.metadata.uid!)] },
      status: done,
    };
    const bare: Job = { kind: "Job", metadata: { name: "migrate", namespace: "shop", uid: uid() }, status: done };
    const snap = snapshot({
      workloads: [
        { kind: "CronJob", object: cron },
        { kind: "Job", object: job },
        { kind: "Job", object: bare },
      ],
    });
    expect(resolveWorkload(pod("a", { owners: [owner("Job", "report-1", job.metadata.uid!)] }), snap)).toMatchObject({
      ok: true,
      value: { activity: "active" },
    });
    expect(resolveWorkload(pod("b", { owners: [owner("Job", "migrate", bare.metadata.uid!)] }), snap)).toMatchObject({
      ok: true,
      value: { workload: { kind: "Job", name: "migrate" }, activity: "finished" },
    });
  });

  it("resolves StatefulSet and DaemonSet pods", () => {
    const sts = workload("StatefulSet", "db", { replicas: 3 });
    const ds = workload("DaemonSet", "agent");
    const snap = snapshot({
      workloads: [
        { kind: "StatefulSet", object: sts },
        { kind: "DaemonSet", object: ds },
      ],
    });
    expect(resolveWorkload(pod("db-0", { owners: [owner("StatefulSet", "db", sts.metadata.uid!)] }), snap)).toMatchObject({
      ok: true,
      value: { workload: { kind: "StatefulSet", name: "db" } },
    });
    expect(resolveWorkload(pod("agent-x", { owners: [owner("DaemonSet", "agent", ds.metadata.uid!)] }), snap)).toMatchObject({
      ok: true,
      value: { workload: { kind: "DaemonSet", name: "agent" } },
    });
  });

  it("takes a pod without a controller as its own workload", () => {
    const p = pod("debug-shell", { owners: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "n" }] });
    expect(resolveWorkload(p, snapshot({}))).toMatchObject({
      ok: true,
      value: { workload: { kind: "Pod", name: "debug-shell" }, activity: "active" },
    });
  });

  it("reports activity: foreground deletion in progress, scale to zero, deletion of the ReplicaSet", () => {
    const deleting = deploymentWithPods("web");
    deleting.deployment.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    expect(resolveWorkload(deleting.pods[0]!, snapshot({ workloads: deleting.workloads }))).toMatchObject({
      ok: true,
      value: { activity: "deleting" },
    });

    const zero = deploymentWithPods("api", { replicas: 0 });
    expect(resolveWorkload(zero.pods[0]!, snapshot({ workloads: zero.workloads }))).toMatchObject({
      ok: true,
      value: { activity: "scaled-to-zero" },
    });

    const rsGoing = deploymentWithPods("cart");
    rsGoing.rs.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    expect(resolveWorkload(rsGoing.pods[0]!, snapshot({ workloads: rsGoing.workloads }))).toMatchObject({
      ok: true,
      value: { activity: "deleting" },
    });
  });

  it("fails with a reason when an owner is missing or was replaced by a namesake (uid differs)", () => {
    const d = deploymentWithPods("web");
    const missing = resolveWorkload(d.pods[0]!, snapshot({ workloads: [{ kind: "ReplicaSet", object: d.rs }] }));
    expect(missing).toEqual({ ok: false, reason: "owner Deployment shop/web is not in the cache (deleted, or not yet seen)" });
    const namesake = workload("Deployment", "web", { uid: "other" });
    const replaced = resolveWorkload(
      d.pods[0]!,
      snapshot({
        workloads: [
          { kind: "ReplicaSet", object: d.rs },
          { kind: "Deployment", object: namesake },
        ],
      }),
    );
    expect(replaced.ok).toBe(false);
  });
});

describe("resolvesAlike", () => {
  const rs = workload("ReplicaSet", "web-rs1", { replicas: 4, revision: 1, owners: [owner("Deployment", "web", "d-1")] });
  const changed = (change: (copy: Workload) => void): Workload => {
    const copy = structuredClone(rs);
    change(copy);
    return copy;
  };

  it("finds a scaled ReplicaSet or a new template alike: its pods resolve as before", () => {
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.spec!.replicas = 3)),
      ),
    ).toBe(true);
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.spec!.template!.spec!.containers[0]!.image = "nginx:1.27")),
      ),
    ).toBe(true);
  });

  it("finds a change of what its pods read not alike: annotations, owner, uid, deletion, activity", () => {
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.metadata.annotations!["deployment.kubernetes.io/revision"] = "2")),
      ),
    ).toBe(false);
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.metadata.ownerReferences = [])),
      ),
    ).toBe(false);
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.metadata.uid = "other")),
      ),
    ).toBe(false);
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.metadata.deletionTimestamp = "2026-01-01T00:00:00Z")),
      ),
    ).toBe(false);
    expect(
      resolvesAlike(
        "ReplicaSet",
        rs,
        changed((c) => (c.spec!.replicas = 0)),
      ),
    ).toBe(false);
    const job: Job = { metadata: { name: "migrate", namespace: "shop", uid: "j-1" }, spec: {} };
    const done: Job = { ...job, status: { conditions: [{ type: "Complete", status: "True" }] } };
    expect(resolvesAlike("Job", job, done)).toBe(false);
  });
});
