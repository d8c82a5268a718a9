// The controller's scenarios on a real control plane (test/kit/control-plane.ts): the real API server, the real
// garbage collector and workload controllers, pods run by KWOK. Each scenario has its own namespace, its own record
// cluster and its own controller processes (`node dist/main.js`), and ends with the emulator's deployed records equal
// to what the cluster runs, computed from the API server's objects by `expectedRecords`: 0 stale, 0 missing.
import { readFileSync } from "node:fs";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "../../../test/kit/controller-process.js";
import { startControlPlane, type ControlPlane } from "../../../test/kit/control-plane.js";
import { expectedRecords, REPO, sorted, type ClusterObjects } from "./scenario-harness.js";

const DEADLINE = { timeout: 90_000, interval: 250 };
const LEASE_TIMING = { SHIPLOG_LEASE_DURATION: "6s", SHIPLOG_RENEW_DEADLINE: "4s", SHIPLOG_RETRY_PERIOD: "1s" };
const digest = (n: number) => `sha256:${n.toString(16).padStart(2, "0").repeat(32)}`;
const image = (name: string, n: number) => `registry.example.com/acme/${name}@${digest(n)}`;
const RESOURCES = ["pods", "replicasets", "deployments", "statefulsets", "daemonsets", "jobs", "cronjobs"] as const;
const GROUP: Record<(typeof RESOURCES)[number], string> = {
  pods: "/api/v1",
  replicasets: "/apis/apps/v1",
  deployments: "/apis/apps/v1",
  statefulsets: "/apis/apps/v1",
  daemonsets: "/apis/apps/v1",
  jobs: "/apis/batch/v1",
  cronjobs: "/apis/batch/v1",
};

let plane: ControlPlane;
let emulator: Emulator;
const processes: ControllerProcess[] = [];
beforeAll(async () => {
  [plane, emulator] = await Promise.all([startControlPlane({ nodes: 3 }), startEmulator({ port: 0 })]);
}, 180_000);
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await emulator?.stop();
  await plane?.stop();
});

const kubectl = (args: string[], input?: string): Promise<string> => plane.kubectlOut(args, input);

/** The namespace's objects as the API server holds them now. */
async function snapshot(namespace: string): Promise<ClusterObjects> {
  const lists = await Promise.all(
    RESOURCES.map(async (resource) => {
      const { status, body } = await plane.api<{ items: never[] }>("GET", `${GROUP[resource]}/namespaces/${namespace}/${resource}`);
      if (status !== 200) throw new Error(`listing ${resource}: ${status}`);
      return [resource, body.items] as const;
    }),
  );
  const byResource = new Map(lists);
  return {
    list: (resource) => byResource.get(resource as never) ?? [],
    get: (resource, ns, name) =>
      (byResource.get(resource as never) ?? []).find(
        (o: { metadata: { namespace?: string; name?: string } }) => o.metadata.namespace === ns && o.metadata.name === name,
      ),
  };
}

/** The emulator's deployed records of a scenario's cluster, as deployment name -> digest. */
function deployed(cluster: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of emulator.state.artifacts.deploymentRecords({ org: "acme", cluster }))
    if (r.status === "deployed") out.set(r.deployment_name, r.digest);
  return out;
}

/** Waits until the service's records equal what the namespace runs, and `check` holds for what runs. */
async function converged(ns: string, check: (running: Map<string, string>) => void = () => {}) {
  await vi.waitFor(async () => {
    const running = expectedRecords(await snapshot(ns));
    check(running);
    expect(sorted(deployed(ns))).toEqual(sorted(running));
  }, DEADLINE);
}

/** A scenario's namespace and a controller process that watches it and records it as cluster `ns`. */
async function scenario(ns: string) {
  await kubectl(["create", "namespace", ns]);
  const start = (env: Record<string, string> = {}) => {
    const p = startControllerProcess({ kubeconfig: readFileSync(plane.kubeconfig, "utf8") }, emulator, {
      SHIPLOG_CLUSTER: ns,
      SHIPLOG_NAMESPACES: ns,
      POD_NAMESPACE: ns,
      SHIPLOG_STATE_CONFIGMAP: "shiplog-state",
      ...env,
    });
    processes.push(p);
    return p;
  };
  const apply = (...objects: object[]) =>
    kubectl(["--namespace", ns, "apply", "-f", "-"], objects.map((o) => JSON.stringify(o)).join("\n"));
  return { start, apply };
}

function deployment(name: string, img: string, replicas = 2) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, annotations: REPO },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: img }] } },
    },
  };
}

describe("the controller on a real control plane", () => {
  it("rollout, then scale to zero", async () => {
    const { start, apply } = await scenario("rollout");
    start();
    await apply(deployment("web", image("web", 1)));
    await converged("rollout", (running) => expect(running.get("rollout-web-app")).toBe(digest(1)));
    await kubectl(["--namespace", "rollout", "set", "image", "deployment/web", `app=${image("web", 2)}`]);
    await converged("rollout", (running) => expect(sorted(running)).toEqual([["rollout-web-app", digest(2)]]));
    await kubectl(["--namespace", "rollout", "scale", "deployment/web", "--replicas=0"]);
    await converged("rollout", (running) => expect(running.size).toBe(0));
    expect(emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "rollout" }).map((r) => r.status)).toEqual([
      "decommissioned",
    ]);
  });

  it("deletions with foreground and orphan propagation, by the real garbage collector", async () => {
    const { start, apply } = await scenario("deletions");
    start();
    await apply(deployment("front", image("front", 3)), deployment("orphan", image("orphan", 4)));
    await converged("deletions", (running) => expect(running.size).toBe(2));
    await kubectl(["--namespace", "deletions", "delete", "deployment", "front", "--cascade=foreground", "--wait=true"]);
    await kubectl(["--namespace", "deletions", "delete", "deployment", "orphan", "--cascade=orphan", "--wait=true"]);
    // The orphaned ReplicaSet's pods run on, now as their ReplicaSet's own workload.
    await converged("deletions", (running) => {
      expect(running.has("deletions-front-app")).toBe(false);
      expect(running.has("deletions-orphan-app")).toBe(false);
      expect([...running.keys()]).toEqual([expect.stringMatching(/^deletions-orphan-[a-z0-9]+-app$/)]);
    });
  });

  it("Jobs and a CronJob's job run to completion and leave nothing deployed", async () => {
    const { start, apply } = await scenario("batch");
    start();
    const podTemplate = (name: string, n: number) => ({
      spec: { restartPolicy: "Never", containers: [{ name: "task", image: image(name, n) }] },
    });
    await apply(
      {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "migrate", annotations: REPO },
        spec: { template: podTemplate("migrate", 5) },
      },
      {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "nightly", annotations: REPO },
        spec: { schedule: "0 3 * * *", suspend: true, jobTemplate: { spec: { template: podTemplate("nightly", 6) } } },
      },
    );
    await kubectl(["--namespace", "batch", "create", "job", "nightly-manual", "--from=cronjob/nightly"]);
    await vi.waitFor(async () => {
      const jobs = JSON.parse(await kubectl(["--namespace", "batch", "get", "jobs", "-o", "json"])) as {
        items: { status: { succeeded?: number } }[];
      };
      expect(jobs.items.map((j) => j.status.succeeded ?? 0)).toEqual([1, 1]);
    }, DEADLINE);
    await converged("batch", (running) => expect(running.size).toBe(0));
  });

  it("a StatefulSet and a DaemonSet, then their deletion", async () => {
    const { start, apply } = await scenario("sets");
    start();
    const template = (name: string, n: number) => ({
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image: image(name, n) }] },
    });
    await apply(
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "db", annotations: REPO },
        spec: { replicas: 2, serviceName: "db", selector: { matchLabels: { app: "db" } }, template: template("db", 7) },
      },
      {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: "agent", annotations: REPO },
        spec: { selector: { matchLabels: { app: "agent" } }, template: template("agent", 8) },
      },
    );
    await converged("sets", (running) =>
      expect(sorted(running)).toEqual([
        ["sets-agent-app", digest(8)],
        ["sets-db-app", digest(7)],
      ]),
    );
    await kubectl(["--namespace", "sets", "delete", "statefulset/db", "daemonset/agent", "--wait=true"]);
    await converged("sets", (running) => expect(running.size).toBe(0));
  });

  it("a restart after deletions made while no controller ran", async () => {
    const { start, apply } = await scenario("restart");
    const first = start();
    await apply(deployment("web", image("web", 9)), deployment("api", image("api", 10)));
    await converged("restart", (running) => expect(running.size).toBe(2));
    expect(await first.stop()).toBe(0);
    await kubectl(["--namespace", "restart", "delete", "deployment", "web", "--wait=true"]);
    start();
    await converged("restart", (running) => expect([...running.keys()]).toEqual(["restart-api-app"]));
    expect(
      emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "restart" }).find((r) => r.deployment_name === "restart-web-app")
        ?.status,
    ).toBe("decommissioned");
  });

  it("a leader takeover between two processes on a real Lease", async () => {
    const { start, apply } = await scenario("takeover");
    const election = { SHIPLOG_LEASE_NAME: "shiplog", ...LEASE_TIMING };
    const a = start({ POD_NAME: "ctl-a", ...election });
    const b = start({ POD_NAME: "ctl-b", ...election });
    await apply(deployment("web", image("web", 11)));
    await converged("takeover", (running) => expect(running.size).toBe(1));
    const holder = async () =>
      (
        JSON.parse(await kubectl(["--namespace", "takeover", "get", "lease", "shiplog", "-o", "json"])) as {
          spec: { holderIdentity: string };
        }
      ).spec.holderIdentity;
    const leader = (await holder()) === "ctl-a" ? a : b;
    const standby = leader === a ? b : a;
    leader.child.kill("SIGKILL");
    await leader.exited;
    await apply(deployment("api", image("api", 12)));
    await converged("takeover", (running) => expect(running.size).toBe(2));
    expect(await holder()).toBe(standby === a ? "ctl-a" : "ctl-b");
  });
});

describe("the crash matrix on a real control plane: one cell for each kill point, then a restart", () => {
  const POINTS = ["before-send", "in-flight", "after-answer", "state-write", "shard-written", "before-head-switch", "head-switch"] as const;
  const COMPACTION: readonly string[] = ["shard-written", "before-head-switch", "head-switch"];
  const table: string[] = [];
  afterAll(() => console.log(`crash matrix on the real control plane:\n${table.join("\n")}`));

  it.each(POINTS)(
    "kill -9 at %s, then deletions, scale to zero and a rollout while down: 0 stale, 0 missing",
    async (point) => {
      const ns = `crash-${point}`;
      const { start, apply } = await scenario(ns);
      // Shards of one or two records (a record of these names is about 410 bytes): a compaction writes several slots.
      const limits: Record<string, string> = COMPACTION.includes(point) ? { SHIPLOG_TEST_STATE_LIMITS: "head=0,shard=900" } : {};
      await apply(deployment("base", image("base", 13), 1));
      // A wide flush window: the three new workloads' pods start over a second or so on the real cluster, and the
      // compaction points need their records in one flush (several shard slots changed at once), as the fake's cells have.
      const window = { SHIPLOG_FLUSH_WINDOW: "1500ms", SHIPLOG_FLUSH_MAX_WAIT: "3s" };
      const crashing = start({ POD_NAME: "ctl-crash", SHIPLOG_TEST_CRASH_AT: `${point}:${ns}-gone-app`, ...limits, ...window });
      await converged(ns, (running) => expect(running.size).toBe(1));
      const fault =
        point === "in-flight"
          ? emulator.faults.add({
              kind: "latency",
              latencyMs: 1500,
              route: "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster",
            })
          : undefined;
      await apply(
        deployment("gone", image("gone", 14), 1),
        deployment("zero", image("zero", 15), 1),
        deployment("roll", image("roll", 16), 1),
      );
      await Promise.race([crashing.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      const killedByHook = crashing.child.signalCode === "SIGKILL";
      if (process.env.SHIPLOG_CRASH_DEBUG) console.log(crashing.output().slice(-6000));
      if (fault !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, 1700));
        emulator.faults.remove(fault);
      }
      await kubectl(["--namespace", ns, "delete", "deployment", "gone", "--wait=true"]);
      await kubectl(["--namespace", ns, "scale", "deployment/zero", "--replicas=0"]);
      await kubectl(["--namespace", ns, "set", "image", "deployment/roll", `app=${image("roll", 17)}`]);
      start({ POD_NAME: "ctl-restarted", ...limits });
      await converged(ns, (running) =>
        expect(sorted(running)).toEqual([
          [`${ns}-base-app`, digest(13)],
          [`${ns}-roll-app`, digest(17)],
        ]),
      );
      const running = expectedRecords(await snapshot(ns));
      const records = deployed(ns);
      const stale = [...records].filter(([name, d]) => running.get(name) !== d).length;
      const missing = [...running].filter(([name]) => !records.has(name)).length;
      table.push(`${point.padEnd(20)} killed at point: ${killedByHook ? "yes" : "no "}  stale: ${stale}  missing: ${missing}`);
      expect(killedByHook, crashing.output().slice(-2000)).toBe(true);
      expect({ stale, missing }).toEqual({ stale: 0, missing: 0 });
    },
    120_000,
  );
});
