// The chart's alerts (files/prometheus-rules.yaml) in a real Prometheus (Debian's prometheus package) scraping a real
// controller's /metrics over loopback: silent on a healthy install with a token (before, ShiplogTokenExpiringSoon read
// the token's unknown expiry as 0, and ShiplogNoSuccessfulSync read a new quiet leader's unchanged stamp as no sync),
// and ShiplogRecordsRejected pending, with the reason, when the service refuses every record; each fault raising its
// alert, a lost state (the head gone, its witness left) ShiplogStateDamaged among them, and an installation token
// about to expire on the emulator's clock (it mints 540-second tokens) making ShiplogTokenExpiringSoon fire. A token
// the service refuses (401) while its renewal fails reads 0 seconds left: the service's answer, not the stamp.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHealthServer, type HealthServer } from "@shiplog/controller";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, startHarness, type Harness } from "./scenario-harness.js";
import { findPrometheus, startPrometheus, type PrometheusServer } from "../../../test/prometheus/prometheus-tools.js";
import { WAIT } from "../../../test/kit/wait.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const RULES_FILE = fileURLToPath(new URL("../../../charts/shiplog-controller/files/prometheus-rules.yaml", import.meta.url));
const APP_ID = 1_001_001;
const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const TOKEN_ROUTE = "/app/installations/:installation_id/access_tokens";
const available = findPrometheus();
const inCI = process.env.CI === "true";

let h: Harness | undefined;
let health: HealthServer | undefined;
let prometheus: PrometheusServer | undefined;
afterEach(async () => {
  await prometheus?.stop();
  prometheus = undefined;
  await health?.close();
  health = undefined;
  await h?.stop();
  h = undefined;
});

/** Starts Prometheus on the controller's /metrics with the chart's rules, evaluated every scrape (200 ms). */
async function watch(harness: Harness): Promise<PrometheusServer> {
  health = await startHealthServer(harness.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000 });
  return startPrometheus([new URL(health.url).host], "200ms", { ruleFiles: [RULES_FILE] });
}

/** The alerts pending or firing now, as `name state {labels}`. */
async function alerts(server: PrometheusServer): Promise<string[]> {
  return (await server.query("ALERTS")).map(({ metric }) => {
    const { __name__, alertname, alertstate, job, instance, severity, ...rest } = metric;
    return `${alertname} ${alertstate} ${JSON.stringify(rest)}`;
  });
}

/** Waits until Prometheus has scraped (and so evaluated the rules) at least `n` times. */
async function cycles(server: PrometheusServer, n: number): Promise<void> {
  await vi.waitFor(async () => {
    const [sample] = await server.query("count_over_time(up[5m])");
    expect(Number(sample?.value[1] ?? 0)).toBeGreaterThanOrEqual(n);
  }, WAIT);
}

describe.skipIf(!available.ok && !inCI)("the chart's alerts on a real Prometheus", () => {
  it("a healthy install with a token: after ten evaluations no alert is pending or firing", async () => {
    if (!available.ok) throw new Error(`CI=true, so the Prometheus tests must run: ${available.reason}`);
    h = await startHarness({
      beforeStart: async (cluster) => {
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    await converged(h);
    prometheus = await watch(h);
    await cycles(prometheus, 10);
    expect(await alerts(prometheus)).toEqual([]);
  });

  it("a healthy install as an App installation: after ten evaluations no alert, and the token's lifetime is scraped", async () => {
    if (!available.ok) throw new Error(`CI=true, so the Prometheus tests must run: ${available.reason}`);
    const key = join(tempDir("shiplog-app-"), "app.pem");
    h = await startHarness({
      env: { SHIPLOG_TOKEN: "", SHIPLOG_APP_ID: String(APP_ID), SHIPLOG_APP_PRIVATE_KEY_FILE: key },
      beforeStart: async (cluster, emulator) => {
        writeFileSync(key, emulator.apps.privateKey(APP_ID));
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0" });
      },
    });
    await converged(h);
    prometheus = await watch(h);
    await cycles(prometheus, 10);
    expect(await alerts(prometheus)).toEqual([]);
    const [remaining] = await prometheus.query("shiplog_controller_token_remaining_seconds");
    expect(Number(remaining?.value[1])).toBeGreaterThan(600);
  });

  it("every record refused: ShiplogRecordsRejected is pending with the reason, and nothing else", async () => {
    if (!available.ok) throw new Error(`CI=true, so the Prometheus tests must run: ${available.reason}`);
    h = await startHarness({
      beforeStart: async (cluster) => {
        // Nothing links nginx to a repository of the organization: the service refuses it (not_found).
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25" });
      },
    });
    prometheus = await watch(h);
    await vi.waitFor(
      async () => expect(await alerts(prometheus!)).toContain('ShiplogRecordsRejected pending {"reason":"not_found"}'),
      WAIT,
    );
    await cycles(prometheus, 10);
    const now = await alerts(prometheus);
    console.log(`ALERTS with every record refused: ${now.join("; ")}`);
    expect(now).toEqual(['ShiplogRecordsRejected pending {"reason":"not_found"}']);
  });

  describe("each fault makes its alert pending (its `for:` then makes it fire)", () => {
    /** Waits until `alert` is pending or firing. */
    const raised = async (alert: string): Promise<void> => {
      await vi.waitFor(async () => expect((await alerts(prometheus!)).map((a) => a.split(" ")[0])).toContain(alert), WAIT);
    };

    it("the service refusing the token (403 on every call): ShiplogTokenRefused", async () => {
      const file = join(tempDir("shiplog-token-"), "token");
      h = await startHarness({
        flags: ["--token-file", file],
        env: { SHIPLOG_TOKEN: "" },
        beforeStart: async (cluster, emulator) => {
          writeFileSync(file, `${emulator.tokens.readOnly}\n`);
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      prometheus = await watch(h);
      await raised("ShiplogTokenRefused");
    });

    it("the service down (503 on every call): ShiplogRecordsPending", async () => {
      h = await startHarness({
        beforeStart: async (cluster, emulator) => {
          emulator.faults.add({ method: "POST", route: CLUSTER_ROUTE, kind: "status", status: 503 });
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      prometheus = await watch(h);
      await raised("ShiplogRecordsPending");
    });

    it("another holder keeps the Lease: ShiplogNoLeader", async () => {
      h = await startHarness({
        flags: ["--lease-name", "shiplog", "--pod-namespace", "shiplog", "--pod-name", "ctl-0"],
        beforeStart: async (cluster) => {
          await cluster.script.ensureNamespace("shiplog");
          await cluster.script.create("leases", {
            metadata: { name: "shiplog", namespace: "shiplog" },
            spec: { holderIdentity: "someone-else", leaseDurationSeconds: 3600, renewTime: new Date().toISOString().replace("Z", "000Z") },
          });
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      prometheus = await watch(h);
      await raised("ShiplogNoLeader");
    });

    it("the state ConfigMap unwritable (immutable): ShiplogStateWritesFailing", async () => {
      h = await startHarness({
        flags: ["--state-configmap", "shiplog-state", "--pod-namespace", "shiplog"],
        beforeStart: async (cluster) => {
          await cluster.script.ensureNamespace("shiplog");
          await cluster.script.create("configmaps", {
            metadata: { name: "shiplog-state", namespace: "shiplog" },
            immutable: true,
            data: {},
          });
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      prometheus = await watch(h);
      await raised("ShiplogStateWritesFailing");
    });

    it("the state's head deleted while its witness remembers it: ShiplogStateDamaged, not a first start", async () => {
      h = await startHarness({
        flags: ["--state-configmap", "shiplog-state", "--pod-namespace", "shiplog"],
        beforeStart: async (cluster) => {
          await cluster.script.ensureNamespace("shiplog");
          await cluster.script.create("configmaps", {
            metadata: { name: "shiplog-state-witness", namespace: "shiplog" },
            data: { "state-uid": "the-lost-head", records: "3", "in-flight": "0", "written-at": "2026-11-27T07:00:00.000Z" },
          });
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      prometheus = await watch(h);
      await raised("ShiplogStateDamaged");
      const [atRisk] = await prometheus.query("shiplog_controller_state_records_at_risk");
      expect(atRisk?.value[1]).toBe("3");
    });

    it("a token about to expire on the emulator's clock (it mints 9-minute tokens): ShiplogTokenExpiringSoon fires", async () => {
      const key = join(tempDir("shiplog-app-"), "app.pem");
      h = await startHarness({
        env: { SHIPLOG_TOKEN: "", SHIPLOG_APP_ID: String(APP_ID), SHIPLOG_APP_PRIVATE_KEY_FILE: key },
        beforeStart: async (cluster, emulator) => {
          writeFileSync(key, emulator.apps.privateKey(APP_ID));
          // The service's tokens live an hour; these 540 s, so the one the controller holds is always under 600 s.
          emulator.apps.configure({ installationTokenLifetimeSeconds: 540 });
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0" });
        },
      });
      await converged(h);
      prometheus = await watch(h);
      await raised("ShiplogTokenExpiringSoon");
      // Its `for:` (1m) passes: firing, and nothing else is pending or firing, since records still land.
      await vi.waitFor(async () => expect(await alerts(prometheus!)).toContain("ShiplogTokenExpiringSoon firing {}"), {
        timeout: 120_000,
        interval: 1000,
      });
      const now = await alerts(prometheus);
      const [remaining] = await prometheus.query("shiplog_controller_token_remaining_seconds");
      console.log(`ALERTS with 540 s installation tokens: ${now.join("; ")}; token_remaining_seconds ${remaining?.value[1]}`);
      expect(now).toEqual(["ShiplogTokenExpiringSoon firing {}"]);
      expect(Number(remaining?.value[1])).toBeGreaterThan(0);
      expect(Number(remaining?.value[1])).toBeLessThanOrEqual(540);
    }, 180_000);

    it("the token refused (401) and its renewal failing: token_remaining_seconds follows the service's answer, 0", async () => {
      const key = join(tempDir("shiplog-app-"), "app.pem");
      h = await startHarness({
        env: { SHIPLOG_TOKEN: "", SHIPLOG_APP_ID: String(APP_ID), SHIPLOG_APP_PRIVATE_KEY_FILE: key },
        beforeStart: async (cluster, emulator) => {
          writeFileSync(key, emulator.apps.privateKey(APP_ID));
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "ghcr.io/acme/web:1.0" });
        },
      });
      await converged(h);
      prometheus = await watch(h);
      const lifetime = async () => Number((await prometheus!.query("shiplog_controller_token_remaining_seconds"))[0]?.value[1]);
      await vi.waitFor(async () => expect(await lifetime()).toBeGreaterThan(3000), WAIT);
      // The token endpoint fails from now on, and an hour passes on the service's clock: the token the controller
      // holds (with 59 minutes left on its own clock) is refused at the next call, and cannot be renewed.
      h.emulator.faults.add({ method: "POST", route: TOKEN_ROUTE, kind: "status", status: 500 });
      h.emulator.clock.advance(61 * 60_000);
      await h.cluster.script.setImage("shop", "web", "ghcr.io/acme/web:1.1");
      await vi.waitFor(() => {
        const answers = h!.emulator.requests.list().filter((r) => r.route === CLUSTER_ROUTE || r.route === TOKEN_ROUTE);
        expect(answers.some((r) => r.route === CLUSTER_ROUTE && r.status === 401)).toBe(true);
        expect(answers.some((r) => r.route === TOKEN_ROUTE && r.status === 500)).toBe(true);
      }, WAIT);
      await vi.waitFor(async () => expect(await lifetime()).toBe(0), WAIT);
      await raised("ShiplogTokenExpiringSoon");
      console.log(
        `after a 401 and a failed renewal: token_remaining_seconds ${await lifetime()}; ALERTS ${(await alerts(prometheus)).join("; ")}`,
      );
    });

    it("watches failing again and again: ShiplogWatchRestartStorm", async () => {
      h = await startHarness({
        beforeStart: async (cluster) => {
          await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
        },
      });
      await converged(h);
      prometheus = await watch(h);
      await cycles(prometheus, 2);
      h.cluster.faults.failWatches(30, { code: 500 });
      h.cluster.faults.cutWatches({ mode: "destroy" });
      await raised("ShiplogWatchRestartStorm");
    });
  });
});
