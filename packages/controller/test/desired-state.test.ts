import { describe, expect, it } from "vitest";
import {
  computeDesiredState,
  parseLabelSelector,
  podRecords,
  recordKey,
  renderDeploymentName,
  resolveWorkload,
  type CronJob,
  type Job,
} from "@shiplog/controller/internal";
import { DIGEST_A, DIGEST_B, DIGEST_C, MAPPING, deploymentWithPods, owner, pod, snapshot, uid, workload } from "./kube-fixtures.js";

const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };
const key = (name: string) => recordKey(GROUP, name);

describe("podRecords", () => {
  const bare = (p: ReturnType<typeof pod>) => {
    const r = resolveWorkload(p, snapshot({}));
    if (!r.ok) throw new Error(r.reason);
    return podRecords(p, r.value, MAPPING);
  };

  it("maps a running container: normalised name, version from the tag, digest from the imageID", () => {
    const { records, skipped } = bare(
      pod("web", { containers: [{ name: "app", image: "nginx:1.25", imageID: `docker.io/library/nginx@${DIGEST_A}` }] }),
    );
    expect(skipped).toEqual([]);
    expect(records.map((r) => r.entry)).toEqual([
      { name: "docker.io/library/nginx", version: "1.25", digest: DIGEST_A, status: "deployed", deployment_name: "shop-web-app" },
    ]);
  });

  it("takes name and tag from the status image, which goes with the imageID, when the spec moved on", () => {
    const { records } = bare(
      pod("web", {
        containers: [
          { name: "app", image: "nginx:1.26", statusImage: "docker.io/library/nginx:1.25", imageID: `docker.io/library/nginx@${DIGEST_A}` },
        ],
      }),
    );
    expect(records[0]!.entry).toMatchObject({ version: "1.25", digest: DIGEST_A });
  });

  it("skips non-sha256 image IDs and containers not running, with reasons", () => {
    const { records, skipped } = bare(
      pod("web", {
        containers: [
          { name: "a", image: "nginx", imageID: `nginx@sha512:${"a".repeat(128)}` },
          { name: "b", image: "nginx", imageID: "" },
          { name: "c", image: "nginx", imageID: `nginx@${DIGEST_A}`, running: false },
        ],
      }),
    );
    expect(records).toEqual([]);
    expect(skipped.map((s) => s.subject)).toEqual(["shop/web/a", "shop/web/b"]);
    expect(skipped[0]!.reason).toContain("only sha256");
  });

  it("skips a container whose runtime reports only the image config ID (a local image), records one pinned by digest", () => {
    const { records, skipped } = bare(
      pod("web", {
        containers: [
          { name: "local", image: "web:dev", imageID: `docker://${DIGEST_A}` },
          { name: "crio", image: "quay.io/acme/api:1.0", statusImage: `quay.io/acme/api@${DIGEST_B}`, imageID: DIGEST_C },
        ],
      }),
    );
    expect(skipped).toEqual([
      {
        subject: "shop/web/local",
        reason: `image ID "docker://${DIGEST_A}" is the image's local config ID, not a registry manifest digest (no repository@sha256:…)`,
      },
    ]);
    expect(records.map((r) => r.entry)).toEqual([
      { name: "quay.io/acme/api", digest: DIGEST_B, status: "deployed", deployment_name: "shop-web-crio" },
    ]);
  });

  it("tracks native sidecars, not ordinary init containers", () => {
    const { records } = bare(
      pod("web", {
        initContainers: [
          { name: "migrate", image: "migrate:1", imageID: `migrate@${DIGEST_B}` },
          { name: "proxy", image: "envoy:1.30", imageID: `envoy@${DIGEST_C}`, restartPolicy: "Always" },
        ],
      }),
    );
    expect(records.map((r) => r.entry.deployment_name).sort()).toEqual(["shop-web-app", "shop-web-proxy"]);
  });

  it("produces nothing for pods not Running or terminating, or marked ignored", () => {
    expect(bare(pod("a", { phase: "Pending" })).records).toEqual([]);
    expect(bare(pod("b", { deleting: true })).records).toEqual([]);
    expect(bare(pod("c", { annotations: { "shiplog.dev/ignore": "true" } })).records).toEqual([]);
  });

  it("applies annotations, skipping invalid ones without losing the record", () => {
    const { records, warnings } = bare(
      pod("web", {
        annotations: { "shiplog.dev/repository": "web", "tags.shiplog.dev/team": "core", "shiplog.dev/runtime-risks": "bogus" },
      }),
    );
    expect(records[0]!.entry).toMatchObject({ github_repository: "web", tags: { team: "core" } });
    expect(records[0]!.entry.runtime_risks).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });

  it("renders the deployment-name template and refuses names over 256 characters", () => {
    expect(
      renderDeploymentName("{cluster}/{kind}/{namespace}/{workload}/{container}", {
        cluster: "c",
        kind: "StatefulSet",
        namespace: "n",
        workload: "w",
        container: "x",
      }),
    ).toBe("c/statefulset/n/w/x");
    const long = pod("p".repeat(250));
    const r = resolveWorkload(long, snapshot({}));
    if (!r.ok) throw new Error(r.reason);
    const { records, skipped } = podRecords(long, r.value, MAPPING);
    expect(records).toEqual([]);
    expect(skipped[0]!.reason).toContain("1 to 256");
  });
});

describe("computeDesiredState", () => {
  it("has one record per deployment name, with environments from config or annotations", () => {
    const web = deploymentWithPods("web", { pods: 3 });
    const api = deploymentWithPods("api", { annotations: { "shiplog.dev/logical-environment": "staging" } });
    const state = computeDesiredState(
      snapshot({ pods: [...web.pods, ...api.pods], workloads: [...web.workloads, ...api.workloads] }),
      MAPPING,
    );
    expect([...state.records.keys()].sort()).toEqual(
      [key("shop-web-app"), recordKey({ logicalEnvironment: "staging", physicalEnvironment: "eu-west-1" }, "shop-api-app")].sort(),
    );
  });

  it("lets the newest ready revision win during a rollout", () => {
    const d = deploymentWithPods("web", { pods: 2, revision: 1 });
    const rs2 = workload("ReplicaSet", "web-rs2", { revision: 2, owners: [owner("Deployment", "web", d.deployment.metadata.uid!)] });
    const ready = pod("web-rs2-a", {
      owners: [owner("ReplicaSet", "web-rs2", rs2.metadata.uid!)],
      containers: [{ name: "app", image: "nginx:1.26", imageID: `nginx@${DIGEST_B}` }],
    });
    const notReady = pod("web-rs2-b", {
      owners: [owner("ReplicaSet", "web-rs2", rs2.metadata.uid!)],
      containers: [{ name: "app", image: "nginx:1.26", imageID: `nginx@${DIGEST_B}`, ready: false }],
    });
    const workloads = [...d.workloads, { kind: "ReplicaSet" as const, object: rs2 }];

    const midway = computeDesiredState(snapshot({ pods: [...d.pods, notReady], workloads }), MAPPING);
    expect(midway.records.get(key("shop-web-app"))!.entry.digest).toBe(DIGEST_A);
    const done = computeDesiredState(snapshot({ pods: [...d.pods, ready, notReady], workloads }), MAPPING);
    expect(done.records.get(key("shop-web-app"))!.entry).toMatchObject({ digest: DIGEST_B, version: "1.26" });
  });

  it("prefers the higher revision over a newer pod of an old revision", () => {
    const d = deploymentWithPods("web", { revision: 1 });
    d.pods[0]!.metadata.creationTimestamp = "2026-02-01T00:00:00Z";
    const rs2 = workload("ReplicaSet", "web-rs2", { revision: 2, owners: [owner("Deployment", "web", d.deployment.metadata.uid!)] });
    const p2 = pod("web-rs2-a", {
      created: "2026-01-15T00:00:00Z",
      owners: [owner("ReplicaSet", "web-rs2", rs2.metadata.uid!)],
      containers: [{ name: "app", image: "nginx:1.26", imageID: `nginx@${DIGEST_B}` }],
    });
    const state = computeDesiredState(
      snapshot({ pods: [...d.pods, p2], workloads: [...d.workloads, { kind: "ReplicaSet", object: rs2 }] }),
      MAPPING,
    );
    expect(state.records.get(key("shop-web-app"))!.entry.digest).toBe(DIGEST_B);
  });

  it("drops records of deleted, deleting and scaled-to-zero workloads (they get decommissioned)", () => {
    const gone = deploymentWithPods("gone");
    const deleting = deploymentWithPods("deleting");
    deleting.deployment.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    const zero = deploymentWithPods("zero", { replicas: 0 });
    const state = computeDesiredState(
      snapshot({
        pods: [...gone.pods, ...deleting.pods, ...zero.pods],
        workloads: [{ kind: "ReplicaSet", object: gone.rs }, ...deleting.workloads, ...zero.workloads],
      }),
      MAPPING,
    );
    expect(state.records.size).toBe(0);
    expect(state.held.size).toBe(0);
    expect(state.skipped.map((s) => s.reason)).toEqual(["owner Deployment shop/gone is not in the cache (deleted, or not yet seen)"]);
  });

  it("holds the names of a live workload with nothing running, and of a CronJob between runs", () => {
    const crashing = deploymentWithPods("crashing", { pods: 0, replicas: 2 });
    const cron: CronJob = {
      kind: "CronJob",
      metadata: { name: "report", namespace: "shop", uid: uid() },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "main", image: "report:1" }] } } } } },
    };
    const state = computeDesiredState(snapshot({ workloads: [...crashing.workloads, { kind: "CronJob", object: cron }] }), MAPPING);
    expect([...state.held].sort()).toEqual([key("shop-crashing-app"), key("shop-report-main")].sort());
  });

  it("records a CronJob under its own name through its Jobs", () => {
    const cron: CronJob = { kind: "CronJob", metadata: { name: "report", namespace: "shop", uid: uid() }, spec: {} };
    const job: Job = {
      kind: "Job",
      metadata: { name: "report-1", namespace: "shop", uid: uid(), ownerReferences: [owner("CronJob", "report", cron.metadata.uid!)] },
    };
    const p = pod("report-1-x", {
      owners: [owner("Job", "report-1", job.metadata.uid!)],
      containers: [{ name: "main", image: "report:1", imageID: `report@${DIGEST_C}` }],
    });
    const state = computeDesiredState(
      snapshot({
        pods: [p],
        workloads: [
          { kind: "CronJob", object: cron },
          { kind: "Job", object: job },
        ],
      }),
      MAPPING,
    );
    expect(state.records.get(key("shop-report-main"))!.entry).toMatchObject({ name: "docker.io/library/report", digest: DIGEST_C });
  });

  it("reports a Deployment and a StatefulSet of the same name as a conflict and records neither", () => {
    const d = deploymentWithPods("web");
    const sts = workload("StatefulSet", "web");
    const p = pod("web-0", {
      owners: [owner("StatefulSet", "web", sts.metadata.uid!)],
      containers: [{ name: "app", image: "nginx:1.24", imageID: `nginx@${DIGEST_C}` }],
    });
    const state = computeDesiredState(
      snapshot({ pods: [...d.pods, p], workloads: [...d.workloads, { kind: "StatefulSet", object: sts }] }),
      MAPPING,
    );
    expect(state.records.has(key("shop-web-app"))).toBe(false);
    expect(state.held.has(key("shop-web-app"))).toBe(true);
    expect(state.conflicts).toEqual([
      {
        key: key("shop-web-app"),
        group: GROUP,
        deploymentName: "shop-web-app",
        workloads: [
          { kind: "Deployment", namespace: "shop", name: "web" },
          { kind: "StatefulSet", namespace: "shop", name: "web" },
        ],
      },
    ]);
    const withKind = computeDesiredState(
      snapshot({ pods: [...d.pods, p], workloads: [...d.workloads, { kind: "StatefulSet", object: sts }] }),
      { ...MAPPING, deploymentNameTemplate: "{namespace}-{kind}-{workload}-{container}" },
    );
    expect(withKind.conflicts).toEqual([]);
    expect(withKind.records.size).toBe(2);
  });

  it("detects collisions across namespaces when the template leaves the namespace out", () => {
    const a = deploymentWithPods("web", { namespace: "a" });
    const b = deploymentWithPods("web", { namespace: "b" });
    const state = computeDesiredState(snapshot({ pods: [...a.pods, ...b.pods], workloads: [...a.workloads, ...b.workloads] }), {
      ...MAPPING,
      deploymentNameTemplate: "{workload}-{container}",
    });
    expect(state.conflicts).toHaveLength(1);
  });

  it("applies the namespace filter", () => {
    const a = deploymentWithPods("web", { namespace: "kube-system" });
    const state = computeDesiredState(snapshot({ pods: a.pods, workloads: a.workloads }), {
      ...MAPPING,
      namespaceAllowed: (ns) => ns !== "kube-system",
    });
    expect(state.records.size + state.held.size).toBe(0);
  });

  it("drops a finished bare pod and holds a pending one", () => {
    const done = pod("once", { phase: "Succeeded" });
    const pending = pod("later", { phase: "Pending" });
    const state = computeDesiredState(snapshot({ pods: [done, pending] }), MAPPING);
    expect(state.records.size).toBe(0);
    expect([...state.held]).toEqual([key("shop-later-app")]);
  });

  it("applies the label selector to workload templates: an excluded workload neither holds nor conflicts", () => {
    const selector = parseLabelSelector("tier!=internal");
    if (!selector.ok) throw new Error(selector.reason);
    const options = { ...MAPPING, podLabelsMatch: selector.value.matches };
    // A Deployment whose pods the selector leaves out (the API server sends none of them), and a selected
    // StatefulSet of the same name.
    const excluded = workload("Deployment", "web", { replicas: 2 });
    excluded.spec!.template!.metadata = { labels: { app: "web", tier: "internal" } };
    const sts = workload("StatefulSet", "web", { image: "postgres:16" });
    sts.spec!.template!.metadata = { labels: { app: "web" } };
    const p = pod("web-0", {
      owners: [owner("StatefulSet", "web", sts.metadata.uid!)],
      containers: [{ name: "app", image: "postgres:16", imageID: `postgres@${DIGEST_B}` }],
    });
    const workloads = [
      { kind: "Deployment" as const, object: excluded },
      { kind: "StatefulSet" as const, object: sts },
    ];
    const state = computeDesiredState(snapshot({ pods: [p], workloads }), options);
    expect(state.conflicts).toEqual([]);
    expect(state.records.get(key("shop-web-app"))!.entry.digest).toBe(DIGEST_B);
    // Without the matcher, the excluded Deployment claims the name (the anchor's behaviour).
    expect(computeDesiredState(snapshot({ pods: [p], workloads }), MAPPING).conflicts).toHaveLength(1);

    // A selected workload with nothing running holds its name; one whose template stopped matching does not.
    const idle = workload("Deployment", "idle", { replicas: 1 });
    idle.spec!.template!.metadata = { labels: { app: "idle" } };
    const relabelled = workload("Deployment", "gone", { replicas: 1 });
    relabelled.spec!.template!.metadata = { labels: { app: "gone", tier: "internal" } };
    const held = computeDesiredState(
      snapshot({
        workloads: [
          { kind: "Deployment", object: idle },
          { kind: "Deployment", object: relabelled },
        ],
      }),
      options,
    );
    expect([...held.held]).toEqual([key("shop-idle-app")]);
  });
});
