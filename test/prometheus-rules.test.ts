// The chart's alerts under Prometheus's own tools: promtool check rules on the plain rule file and on the
// PrometheusRule rendered with other values, and promtool test rules with series in and alerts out for every alert
// (firing on bad series, silent on healthy ones). Also: every alert has a runbook section, and every metric an
// alert or a dashboard panel reads is one the controller exports.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { CHART_DIR, REPO_ROOT } from "./chart/helm.js";
import { ALERT_CASES, promtoolTests, type AlertRule } from "./prometheus/alert-cases.js";
import { metricsIn, readableMetricNames } from "./prometheus/exported-metrics.js";
import { findPrometheus, promtool } from "./prometheus/prometheus-tools.js";
import { tempDir } from "./kit/temp-dir.js";

const RULES_FILE = join(CHART_DIR, "files/prometheus-rules.yaml");
const rules = (parse(readFileSync(RULES_FILE, "utf8")) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((g) => g.rules);
const available = findPrometheus();
const inCI = process.env.CI === "true";

describe("the controller's alerts", () => {
  const dir = tempDir("shiplog-rules-");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every alert has a summary, a description, a severity and a runbook section in the controller README", () => {
    const readme = readFileSync(join(REPO_ROOT, "packages/controller/README.md"), "utf8");
    expect(rules.map((r) => r.alert).sort()).toEqual([
      "ShiplogConflictingStateWriters",
      "ShiplogNoLeader",
      "ShiplogNoSuccessfulSync",
      "ShiplogRecordsPending",
      "ShiplogRecordsRejected",
      "ShiplogStateDamaged",
      "ShiplogStateWritesFailing",
      "ShiplogTokenExpiringSoon",
      "ShiplogTokenRefused",
      "ShiplogWatchRestartStorm",
    ]);
    for (const rule of rules) {
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(rule.annotations.description, rule.alert).toMatch(/Check /);
      expect(["warning", "critical"]).toContain(rule.labels.severity);
      const anchor = rule.annotations.runbook_url!.split("#")[1]!;
      expect(anchor).toBe(rule.alert.toLowerCase());
      expect(readme.includes(`### ${rule.alert}\n`), `runbook section for ${rule.alert}`).toBe(true);
    }
  });

  it("every metric an alert reads is exported by the controller (or assumed from another branch)", async () => {
    const readable = await readableMetricNames();
    for (const rule of rules) {
      for (const name of metricsIn(rule.expr)) expect(readable.has(name), `${rule.alert} reads ${name}`).toBe(true);
    }
  });

  it("every alert has a firing case and a silent case", () => {
    for (const rule of rules) {
      const cases = ALERT_CASES.filter((c) => c.alert === rule.alert);
      expect(
        cases.some((c) => c.fires !== null),
        `${rule.alert} fires somewhere`,
      ).toBe(true);
      expect(
        cases.some((c) => c.fires === null),
        `${rule.alert} stays silent somewhere`,
      ).toBe(true);
    }
  });

  describe.skipIf(!available.ok && !inCI)("with promtool", () => {
    it("promtool check rules accepts the plain rule file", () => {
      if (!available.ok) throw new Error(`CI=true, so promtool must run: ${available.reason}`);
      const checked = promtool(["check", "rules", RULES_FILE]);
      expect(checked.output).toContain("SUCCESS: 10 rules found");
      expect(checked.status).toBe(0);
    });

    it("promtool test rules: each alert fires on bad series and stays silent on healthy ones", () => {
      const testFile = join(dir, "shiplog-controller.rules.test.yaml");
      writeFileSync(testFile, stringify(promtoolTests(RULES_FILE, rules, ALERT_CASES), { lineWidth: 0 }));
      const result = promtool(["test", "rules", testFile]);
      console.log(
        `promtool test rules (${ALERT_CASES.length} cases over ${rules.length} alerts): ${result.output.trim().split("\n").pop()}`,
      );
      expect(result.output).toContain("SUCCESS");
      expect(result.status).toBe(0);
    });

    it("promtool test rules fails when an alert misses its case (the tests can fail)", () => {
      const broken = ALERT_CASES.map((c) =>
        c.alert === "ShiplogNoLeader" && c.fires === null ? { ...c, fires: { job: "shiplog-controller", namespace: "shiplog" } } : c,
      );
      const testFile = join(dir, "broken.rules.test.yaml");
      writeFileSync(testFile, stringify(promtoolTests(RULES_FILE, rules, broken), { lineWidth: 0 }));
      const result = promtool(["test", "rules", testFile]);
      expect(result.status).not.toBe(0);
      expect(result.output).toContain("ShiplogNoLeader");
    });
  });
});
