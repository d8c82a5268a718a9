// Every request the controller makes, on a real API server and on the fake cluster: the same scenario (a workload
// deployed, recorded, deleted, decommissioned; leader election and a sharded state on) runs on each with the
// controller as its own process behind a recording proxy. Each request shape (method, path, query keys, content
// type, accept) is compared: made on both, answered with the same statuses, and with bodies of the same shape
// (kind, top-level and metadata keys), uids, timestamps, resourceVersions and generated names aside.
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess } from "../../../test/kit/controller-process.js";
import { startControlPlane, type ControlPlane } from "../../../test/kit/control-plane.js";
import { startProxy, type ProxiedRequest, type TestProxy } from "../../../test/kit/proxy.js";

const DEADLINE = { timeout: 90_000, interval: 250 };
const IMAGE = `registry.example.com/acme/web@sha256:${"cd".repeat(32)}`;
const ENV = {
  SHIPLOG_CLUSTER: "diff",
  POD_NAMESPACE: "shiplog",
  POD_NAME: "ctl-0",
  SHIPLOG_STATE_CONFIGMAP: "shiplog-state",
  SHIPLOG_LEASE_NAME: "shiplog",
  // Shards of a record or two, so the state's slots are written too.
  SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=900",
};
/** Query parameters whose values say what is asked; the others (versions, tokens, timeouts) differ by nature. */
const MEANINGFUL_QUERY = new Set(["watch", "allowWatchBookmarks", "limit", "labelSelector", "fieldSelector"]);

/** What a request asks for, whichever cluster it went to. */
function shapeOf(request: ProxiedRequest): string {
  const url = new URL(request.url, "http://x");
  const query = [...url.searchParams.keys()]
    .sort()
    .map((key) => (MEANINGFUL_QUERY.has(key) ? `${key}=${url.searchParams.get(key)}` : key))
    .join("&");
  const accept = request.accept?.includes("PartialObjectMetadata") ? " accept=metadata" : "";
  const type = request.contentType && request.method !== "GET" ? ` ${request.contentType.split(";")[0]}` : "";
  return `${request.method} ${url.pathname}${query ? `?${query}` : ""}${type}${accept}`;
}

/** The shape of an answer's body: kind, top-level keys, metadata keys. */
function bodyShape(body: string | undefined): string {
  if (!body) return "";
  try {
    const parsed = JSON.parse(body) as { kind?: string; metadata?: Record<string, unknown>; reason?: string };
    const keys = Object.keys(parsed).sort().join(",");
    const meta = Object.keys(parsed.metadata ?? {})
      .sort()
      .join(",");
    return `${parsed.kind ?? "?"}${parsed.reason ? `/${parsed.reason}` : ""} {${keys}} metadata {${meta}}`;
  } catch {
    return "(not JSON)";
  }
}

interface Side {
  statuses: Set<number>;
  bodies: Set<string>;
}

function summarise(requests: ProxiedRequest[]): Map<string, Side> {
  const out = new Map<string, Side>();
  for (const request of requests) {
    const side = out.get(shapeOf(request)) ?? { statuses: new Set(), bodies: new Set() };
    if (request.status !== undefined) side.statuses.add(request.status);
    if (request.status !== undefined && request.status < 300 && request.body) side.bodies.add(bodyShape(request.body));
    out.set(shapeOf(request), side);
  }
  return out;
}

let plane: ControlPlane;
let cluster: FakeCluster;
const emulators: Emulator[] = [];
const proxies: TestProxy[] = [];
beforeAll(async () => {
  [plane, cluster] = await Promise.all([startControlPlane({ nodes: 1 }), startFakeCluster({ nodes: ["kwok-node-0"] })]);
}, 180_000);
afterAll(async () => {
  await Promise.all([...emulators, ...proxies].map((s) => ("stop" in s ? s.stop() : s.close())));
  await cluster?.stop();
  await plane?.stop();
});

/** Runs the scenario with a controller behind `proxy`; `deploy` and `remove` act on the cluster behind it. */
async function runScenario(proxy: TestProxy, deploy: () => Promise<void>, remove: () => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ port: 0 });
  emulators.push(emulator);
  const kubeconfig = proxy.kubeconfigFor(cluster.kubeconfig, cluster.url);
  await deploy();
  const controller = startControllerProcess({ kubeconfig }, emulator, ENV);
  const records = () =>
    emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "diff" }).map((r) => `${r.deployment_name} ${r.status}`);
  try {
    await vi.waitFor(() => expect(records()).toEqual(["app-web-app deployed"]), DEADLINE);
    await remove();
    await vi.waitFor(() => expect(records()).toEqual(["app-web-app decommissioned"]), DEADLINE);
  } finally {
    expect(await controller.stop(), controller.output().slice(-3000)).toBe(0);
  }
}

describe("every request the controller makes, on a real API server and on the fake", () => {
  it("is made on both and answered alike", async () => {
    const real = await startProxy(plane.server, { tls: plane.adminTls, recordBodies: true });
    const fake = await startProxy(cluster.url, { recordBodies: true });
    proxies.push(real, fake);
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "app", annotations: { "shiplog.dev/repository": "web" } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: IMAGE }] } },
      },
    };
    const kubectl = async (args: string[], input?: string) => {
      const run = await plane.kubectl(args, input);
      if (run.code !== 0) throw new Error(run.stderr);
    };
    await runScenario(
      real,
      async () => {
        await kubectl(["create", "namespace", "shiplog"]);
        await kubectl(["create", "namespace", "app"]);
        await kubectl(["create", "-f", "-"], JSON.stringify(deployment));
      },
      () => kubectl(["--namespace", "app", "delete", "deployment", "web", "--wait=true"]),
    );
    await runScenario(
      fake,
      async () => {
        cluster.script.ensureNamespace("shiplog");
        await cluster.script.createDeployment({
          namespace: "app",
          name: "web",
          replicas: 2,
          containers: [{ name: "app", image: IMAGE }],
          annotations: { "shiplog.dev/repository": "web" },
        });
        await cluster.settle();
      },
      async () => {
        await cluster.script.delete("deployments", "app", "web");
        await cluster.settle();
      },
    );

    const onReal = summarise(real.requests);
    const onFake = summarise(fake.requests);
    const rows: { shape: string; agree: boolean; detail: string }[] = [];
    for (const shape of new Set([...onReal.keys(), ...onFake.keys()])) {
      const r = onReal.get(shape);
      const f = onFake.get(shape);
      if (!r || !f) {
        rows.push({ shape, agree: false, detail: r ? "made only on the real server" : "made only on the fake" });
        continue;
      }
      const statuses = [[...r.statuses].sort().join(","), [...f.statuses].sort().join(",")];
      const bodies = [[...r.bodies].sort().join(" | "), [...f.bodies].sort().join(" | ")];
      const agree = statuses[0] === statuses[1] && bodies[0] === bodies[1];
      rows.push({
        shape,
        agree,
        detail: agree
          ? ""
          : `statuses real ${statuses[0]} fake ${statuses[1]}; bodies\n             real ${bodies[0]}\n             fake ${bodies[1]}`,
      });
    }
    rows.sort((a, b) => (a.shape < b.shape ? -1 : 1));
    console.log(
      `the controller's requests: ${rows.filter((r) => r.agree).length} of ${rows.length} request shapes agree (${real.requests.length} requests on the real server, ${fake.requests.length} on the fake)\n` +
        rows.map((r) => `  ${r.agree ? "agree " : "DIFFER"} ${r.shape}${r.detail ? `\n           ${r.detail}` : ""}`).join("\n"),
    );
    expect(rows.filter((r) => !r.agree).map((r) => r.shape)).toEqual([]);
  });
});
