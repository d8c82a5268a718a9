// Taking over from github/deployment-tracker, with real processes: a cluster annotated for deployment-tracker, and the
// records deployment-tracker wrote for it already at the emulator (its single-record endpoint, its names
// `{{namespace}}/{{deploymentName}}/{{containerName}}`, its raw image names, its tags and risks). The controller runs
// first in dry run (it would send the same names, tags and risks, and sends nothing), then live: every record is
// updated in place (same ids), none is added, tags and risks are kept.
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { CLUSTER, ORG } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const PHYSICAL = "eu-west-1";
const digest = (c: string) => `sha256:${c.repeat(64)}`;

/** What runs, and the record deployment-tracker wrote for each container (name without tag, as it sends it). */
const CONTAINERS = [
  {
    namespace: "shop",
    workload: "web",
    container: "nginx",
    image: "nginx:1.25",
    digest: digest("1"),
    tags: { team: "payments", tier: "frontend" },
    risks: ["internet-exposed", "sensitive-data"],
  },
  {
    namespace: "shop",
    workload: "api",
    container: "app",
    image: "ghcr.io/acme/api:2.0",
    digest: digest("2"),
    tags: { team: "core" },
    risks: ["critical-resource"],
  },
  {
    namespace: "shop",
    workload: "api",
    container: "proxy",
    image: "docker.io/envoyproxy/envoy:v1.30.1",
    digest: digest("3"),
    tags: { team: "core" },
    risks: ["critical-resource"],
  },
  { namespace: "ops", workload: "agent", container: "agent", image: "ghcr.io/acme/agent:1.0", digest: digest("4"), tags: {}, risks: [] },
];

/** The keys and metadata of the records at the emulator, by deployment name. */
function recordsByName(emulator: Emulator) {
  return new Map(
    emulator.state.artifacts.deploymentRecords({ cluster: CLUSTER }).map((r) => [
      r.deployment_name,
      {
        id: r.id,
        status: r.status,
        digest: r.digest,
        tags: r.tags,
        risks: [...(r.runtime_risks ?? [])].sort(),
        env: [r.logical_environment, r.physical_environment],
      },
    ]),
  );
}

describe("taking over from github/deployment-tracker", () => {
  let cluster: FakeCluster;
  let emulator: Emulator;
  let controller: ControllerProcess | undefined;
  let before: ReturnType<typeof recordsByName>;

  beforeAll(async () => {
    cluster = await startFakeCluster({});
    // deployment-tracker sends no repository: the service takes it from each image's provenance attestation.
    const attestations = CONTAINERS.map((c, i) => ({ org: ORG, repository: "web", digest: c.digest, id: 900 + i }));
    emulator = await startEmulator({ port: 0, fixture: { ...defaultFixture, attestations } });
    for (const c of CONTAINERS) cluster.script.setImageDigest(c.image, c.digest);
    // Annotated as deployment-tracker's users annotate: on the workload, and one risk in another case.
    await cluster.script.createDeployment({
      namespace: "shop",
      name: "web",
      image: "nginx:1.25",
      replicas: 2,
      annotations: {
        "metadata.github.com/team": "payments",
        "metadata.github.com/tier": "frontend",
        "metadata.github.com/runtime-risks": "internet-exposed, Sensitive-Data",
      },
    });
    await cluster.script.createDeployment({
      namespace: "shop",
      name: "api",
      containers: [
        { name: "app", image: "ghcr.io/acme/api:2.0" },
        { name: "proxy", image: "docker.io/envoyproxy/envoy:v1.30.1" },
      ],
      annotations: { "metadata.github.com/team": "core", "metadata.github.com/runtime-risks": "critical-resource" },
    });
    await cluster.script.createDaemonSet({
      namespace: "ops",
      name: "agent",
      containers: [{ name: "agent", image: "ghcr.io/acme/agent:1.0" }],
    });

    // What deployment-tracker posted: one record per call to the single-record endpoint.
    for (const c of CONTAINERS) {
      const [name, version] = [c.image.slice(0, c.image.lastIndexOf(":")), c.image.slice(c.image.lastIndexOf(":") + 1)];
      const response = await fetch(`${emulator.url}/orgs/${ORG}/artifacts/metadata/deployment-record`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${emulator.tokens.admin}`,
          accept: "application/vnd.service+json",
          "content-type": "application/json",
          "x-service-api-version": "2026-03-10",
        },
        body: JSON.stringify({
          name,
          digest: c.digest,
          version,
          status: "deployed",
          deployment_name: `${c.namespace}/${c.workload}/${c.container}`,
          logical_environment: "production",
          physical_environment: PHYSICAL,
          cluster: CLUSTER,
          ...(c.risks.length > 0 ? { runtime_risks: c.risks } : {}),
          ...(Object.keys(c.tags).length > 0 ? { tags: c.tags } : {}),
        }),
      });
      expect(response.status, await response.text()).toBe(200);
    }
    before = recordsByName(emulator);
    expect(before.size).toBe(CONTAINERS.length);
  });
  afterAll(async () => {
    controller?.child.kill("SIGTERM");
    await controller?.exited;
    await emulator?.stop();
    await cluster?.stop();
  });

  const TAKEOVER = {
    SHIPLOG_PHYSICAL_ENVIRONMENT: PHYSICAL,
    SHIPLOG_DEPLOYMENT_NAME_TEMPLATE: "{{namespace}}/{{deploymentName}}/{{containerName}}",
    SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS: "true",
  };

  it("in dry run, would send exactly deployment-tracker's names, tags and risks, and sends nothing", async () => {
    controller = startControllerProcess(cluster, emulator, { ...TAKEOVER, SHIPLOG_DRY_RUN: "true" });
    type Entry = { deployment_name: string; tags?: Record<string, string>; runtime_risks?: string[]; digest: string };
    let wouldSend: Entry[] = [];
    await vi.waitFor(() => {
      wouldSend = controller!.logs.filter((l) => l.msg === "would send deployment records").flatMap((l) => l.deployments as Entry[]);
      expect(wouldSend).toHaveLength(CONTAINERS.length);
    }, WAIT);
    const comparable = (tags: Record<string, string> | undefined, risks: readonly string[] | undefined) => ({
      tags: tags ?? {},
      risks: [...(risks ?? [])].sort(),
    });
    expect(new Map(wouldSend.map((e) => [e.deployment_name, { digest: e.digest, ...comparable(e.tags, e.runtime_risks) }]))).toEqual(
      new Map([...before].map(([name, r]) => [name, { digest: r.digest, ...comparable(r.tags, r.risks) }])),
    );
    expect(emulator.requests.count({ method: "POST", route: CLUSTER_ROUTE })).toBe(0);
    controller.child.kill("SIGTERM");
    expect(await controller.exited).toBe(0);
  });

  it("live, updates deployment-tracker's records in place: no duplicates, tags and risks preserved", async () => {
    controller = startControllerProcess(cluster, emulator, TAKEOVER);
    await vi.waitFor(
      async () => expect(await controller!.metric("shiplog_controller_records_accepted_total")).toBe(CONTAINERS.length),
      WAIT,
    );
    expect(emulator.requests.count({ method: "POST", route: CLUSTER_ROUTE })).toBeGreaterThan(0);
    const after = recordsByName(emulator);
    expect(after).toEqual(before);
    for (const c of CONTAINERS) {
      expect(after.get(`${c.namespace}/${c.workload}/${c.container}`)).toMatchObject({
        status: "deployed",
        tags: c.tags,
        risks: c.risks,
        env: ["production", PHYSICAL],
      });
    }

    // The annotations stay live after the switch: a changed deployment-tracker tag reaches the same record.
    const patched = await fetch(`${cluster.url}/apis/apps/v1/namespaces/shop/deployments/web`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { annotations: { "metadata.github.com/tier": "edge" } } }),
    });
    expect(patched.status).toBe(200);
    await vi.waitFor(
      () =>
        expect(recordsByName(emulator).get("shop/web/nginx")).toMatchObject({
          id: before.get("shop/web/nginx")!.id,
          tags: { team: "payments", tier: "edge" },
        }),
      WAIT,
    );
    expect(recordsByName(emulator).size).toBe(CONTAINERS.length);
  });
});
