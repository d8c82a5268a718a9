// A real Prometheus (Debian's 2.42) scrapes the real controller process over loopback while the fake cluster rolls
// and the emulator first refuses, then accepts, the records: the desired, acknowledged and pending series move as an
// operator's dashboards would show them, and promtool accepts the controller's exposition.
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControllerProcess, type ControllerProcess } from "./kit/controller-process.js";
import { REPO } from "../packages/controller/test/scenario-harness.js";
import { findPrometheus, promtool, startPrometheus, type PrometheusServer } from "./prometheus/prometheus-tools.js";
import { WAIT } from "./kit/wait.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const available = findPrometheus();
const inCI = process.env.CI === "true";
if (!available.ok && !inCI) console.warn(`\n!! SKIPPED: the Prometheus tests need Debian's prometheus package: ${available.reason}\n`);

describe.skipIf(!available.ok && !inCI)("a real Prometheus scraping the controller", () => {
  let cluster: FakeCluster;
  let emulator: Emulator;
  let controller: ControllerProcess;
  let prometheus: PrometheusServer;

  beforeAll(async () => {
    if (!available.ok) throw new Error(`CI=true, so the Prometheus tests must run: ${available.reason}`);
    cluster = await startFakeCluster({});
    emulator = await startEmulator({ port: 0 });
    await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2, annotations: REPO });
    await cluster.script.createDeployment({ namespace: "shop", name: "api", image: "ghcr.io/acme/api:1.0", annotations: REPO });
  });
  afterAll(async () => {
    await prometheus?.stop();
    controller?.child.kill("SIGTERM");
    await controller?.exited;
    await emulator?.stop();
    await cluster?.stop();
  });

  /** The value of a single-series instant query (NaN when there is no series yet). */
  const value = async (expr: string): Promise<number> => {
    const result = await prometheus.query(expr);
    return result.length === 1 ? Number(result[0]!.value[1]) : Number.NaN;
  };

  it("sees desired, acknowledged and pending records move through an outage and a rollout", async () => {
    // The service is down when the controller starts: every record is desired and pending, none acknowledged.
    const outage = emulator.faults.add({ method: "POST", route: CLUSTER_ROUTE, kind: "status", status: 503 });
    controller = startControllerProcess(cluster, emulator, {});
    const target = new URL(await controller.url()).host;
    prometheus = await startPrometheus([target], "500ms");

    await vi.waitFor(async () => {
      expect(await value("up")).toBe(1);
      expect(await value("shiplog_controller_desired_records")).toBe(2);
      expect(await value("shiplog_controller_pending_records")).toBe(2);
      expect(await value("shiplog_controller_acknowledged_records")).toBe(0);
      expect(await value('sum(shiplog_controller_requests_total{result="failure"})')).toBeGreaterThan(0);
    }, WAIT);

    // The service comes back: everything pending is acknowledged.
    emulator.faults.remove(outage);
    await vi.waitFor(async () => {
      expect(await value("shiplog_controller_pending_records")).toBe(0);
      expect(await value("shiplog_controller_acknowledged_records")).toBe(2);
    }, WAIT);

    // A rollout: a new workload, and a new image for web (updated in place, same deployment name).
    await cluster.script.createDeployment({ namespace: "shop", name: "worker", image: "ghcr.io/acme/worker:3.1", annotations: REPO });
    await cluster.script.setImage("shop", "web", "nginx:1.27");
    await vi.waitFor(async () => {
      expect(await value("shiplog_controller_desired_records")).toBe(3);
      expect(await value("shiplog_controller_acknowledged_records")).toBe(3);
      expect(await value("shiplog_controller_pending_records")).toBe(0);
      expect(await value('sum(shiplog_controller_records_accepted_total{status="deployed"})')).toBeGreaterThanOrEqual(4);
    }, WAIT);
    // Prometheus kept the whole story: pending was up during the outage, acknowledged rose from 0 to 3.
    expect(await value("max_over_time(shiplog_controller_pending_records[5m])")).toBe(2);
    expect(await value("min_over_time(shiplog_controller_acknowledged_records[5m])")).toBe(0);
    expect(await value("max_over_time(shiplog_controller_acknowledged_records[5m])")).toBe(3);

    const printed = await prometheus.query(
      '{__name__=~"shiplog_controller_(desired|acknowledged|pending)_records"} or sum by (result) (shiplog_controller_requests_total)',
    );
    console.log(
      "Prometheus query result after the rollout:\n" +
        printed.map((s) => `  ${s.metric.__name__ ?? `requests_total{result="${s.metric.result}"}`} = ${s.value[1]}`).join("\n"),
    );
  });

  it("promtool check metrics accepts the controller's exposition", async () => {
    const exposition = (await controller.get("/metrics")).body;
    const checked = promtool(["check", "metrics"], exposition);
    expect(checked.output).toBe("");
    expect(checked.status).toBe(0);
  });
});
