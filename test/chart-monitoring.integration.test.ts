// The chart's monitoring parts and generated docs, rendered by real Helm (test/chart/helm.ts): the PrometheusRule
// (equal to files/prometheus-rules.yaml at the defaults, valid for promtool with other values), the ServiceMonitor's
// scrape options, the Grafana dashboard ConfigMap (valid JSON, every query on a metric the controller exports), and
// the README's values table, which must be what `pnpm chart:generate` writes from values.yaml.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { documentedValues, rulesFile, valuesTable, withValuesTable } from "./chart/chart-docs.js";
import { CHART_DIR, renderChart, renderDefaultPrometheusRule, REPO_ROOT, type Manifest, type RenderOptions } from "./chart/helm.js";
import { one, selects, validateManifest } from "./chart/kube-manifests.js";
import { metricsIn, readableMetricNames } from "./prometheus/exported-metrics.js";
import { findPrometheus, promtool } from "./prometheus/prometheus-tools.js";
import { tempDir } from "./kit/temp-dir.js";

const REQUIRED = join(REPO_ROOT, "test/chart/values/required.yaml");
const MONITORING = ["monitoring.coreos.com/v1"];
const inCI = process.env.CI === "true";
const valuesText = readFileSync(join(CHART_DIR, "values.yaml"), "utf8");

type Panel = { type: string; title: string; targets?: { expr: string }[]; panels?: Panel[] };
const dashboardText = readFileSync(join(CHART_DIR, "dashboards/shiplog-controller.json"), "utf8");

describe("the chart's generated docs", () => {
  it("the README's values table is what `pnpm chart:generate` writes from values.yaml", () => {
    const readme = readFileSync(join(CHART_DIR, "README.md"), "utf8");
    expect(readme, "run `pnpm chart:generate`").toBe(withValuesTable(readme, valuesTable(valuesText)));
  });

  it("every key of values.yaml is documented, itself or through a documented parent with no documented keys", () => {
    const documented = new Set(documentedValues(valuesText).map((d) => d.key));
    const undocumented: string[] = [];
    const walk = (value: unknown, path: string[]): void => {
      const key = path.join(".");
      const children = value && typeof value === "object" && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : [];
      const documentedChild = [...documented].some((d) => d.startsWith(`${key}.`));
      if (path.length > 0 && documented.has(key) && !documentedChild) return;
      if (children.length === 0 || (path.length > 0 && !documentedChild && !documented.has(key))) {
        if (path.length > 0 && !documented.has(key)) undocumented.push(key);
        return;
      }
      for (const [k, v] of children) walk(v, [...path, k]);
    };
    walk(parse(valuesText), []);
    expect(undocumented).toEqual([]);
  });

  it("the table escapes what Markdown would eat, and a comment block needs its `# --` marker", () => {
    const table = valuesTable(
      "# -- A <NAME> | pipe.\na: 1\n# not documented\nb: 2\n# -- Section.\nc:\n  # -- Inner, continued\n  # on a second line.\n  d: [x]\n",
    );
    expect(table.split("\n").slice(2)).toEqual([
      "| `a` | `1` | A &lt;NAME&gt; \\| pipe. |",
      "| `c` |  | Section. |",
      '| `c.d` | `["x"]` | Inner, continued on a second line. |',
    ]);
  });
});

describe("the chart's monitoring parts", () => {
  const dir = tempDir("shiplog-chart-monitoring-");
  const render = (options: RenderOptions) =>
    renderChart({ releaseName: "shiplog", namespace: "shiplog", valueFiles: [REQUIRED], ...options });
  const rendered = (options: RenderOptions): Manifest[] => {
    const result = render(options);
    if (!result.ok) throw new Error(result.stderr);
    return result.manifests;
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("renders none of them by default", () => {
    const kinds = rendered({ apiVersions: MONITORING }).map((m) => `${m.kind} ${m.metadata.name}`);
    expect(kinds.filter((k) => /ServiceMonitor|PrometheusRule|dashboard/.test(k))).toEqual([]);
  });

  it("files/prometheus-rules.yaml is the PrometheusRule rendered with the default values (`pnpm chart:generate`)", () => {
    const rule = renderDefaultPrometheusRule();
    validateManifest(rule);
    expect(readFileSync(join(CHART_DIR, "files/prometheus-rules.yaml"), "utf8"), "run `pnpm chart:generate`").toBe(rulesFile(rule.spec));
  });

  it("the PrometheusRule takes thresholds, labels and disabled alerts from values, and needs the operator's API", () => {
    const missing = render({ values: [{ prometheusRule: { enabled: true } }] });
    expect(missing.ok).toBe(false);
    expect(missing.stderr).toContain("prometheusRule.enabled: the cluster does not serve monitoring.coreos.com/v1");

    const values = {
      prometheusRule: {
        enabled: true,
        labels: { release: "prometheus" },
        alertLabels: { team: "platform" },
        disabled: ["ShiplogTokenExpiringSoon"],
        recordsPendingFor: "1h",
        noSuccessfulSyncFor: "2h",
        watchRestartsPer10m: 50,
        runbookUrl: "https://runbooks.example.com/shiplog",
      },
    };
    const manifest = one<{
      spec: {
        groups: {
          rules: { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> }[];
        }[];
      };
    }>(rendered({ values: [values], apiVersions: MONITORING }), "PrometheusRule");
    validateManifest(manifest);
    expect(manifest.metadata.labels?.release).toBe("prometheus");
    const rules = manifest.spec.groups[0]!.rules;
    expect(rules.map((r) => r.alert)).not.toContain("ShiplogTokenExpiringSoon");
    expect(rules).toHaveLength(9);
    const byName = Object.fromEntries(rules.map((r) => [r.alert, r]));
    expect(byName.ShiplogRecordsPending!.for).toBe("1h");
    expect(byName.ShiplogRecordsPending!.annotations.summary).toContain("1h");
    expect(byName.ShiplogNoSuccessfulSync!.expr).toContain("[2h]");
    expect(byName.ShiplogWatchRestartStorm!.expr).toMatch(/> 50$/);
    expect(byName.ShiplogNoLeader!.annotations.runbook_url).toBe("https://runbooks.example.com/shiplog#shiplognoleader");
    for (const rule of rules) expect(rule.labels).toMatchObject({ team: "platform" });

    if (!findPrometheus().ok && !inCI) return;
    const file = join(dir, "rendered-rules.yaml");
    writeFileSync(file, stringify({ groups: manifest.spec.groups }));
    const checked = promtool(["check", "rules", file]);
    expect(checked.output).toContain("SUCCESS: 9 rules found");
  });

  it("a value out of the schema names the key", () => {
    const result = render({
      values: [
        { prometheusRule: { disabled: ["NoSuchAlert"] }, serviceMonitor: { scheme: "ftp" }, grafanaDashboard: { label: "not a label" } },
      ],
    });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("'/prometheusRule/disabled/0'");
    expect(result.stderr).toContain("'/serviceMonitor/scheme'");
    expect(result.stderr).toContain("'/grafanaDashboard/label'");
  });

  it("the ServiceMonitor passes scheme, tlsConfig, relabelings and metricRelabelings to its endpoint", () => {
    const relabelings = [{ sourceLabels: ["__meta_kubernetes_pod_node_name"], targetLabel: "node", action: "replace" }];
    const metricRelabelings = [{ sourceLabels: ["__name__"], regex: "shiplog_controller_flush_duration_seconds_bucket", action: "drop" }];
    const tlsConfig = { serverName: "shiplog.shiplog.svc", ca: { secret: { name: "shiplog-ca", key: "ca.crt" } } };
    const manifests = rendered({
      values: [{ serviceMonitor: { enabled: true, scheme: "https", tlsConfig, relabelings, metricRelabelings } }],
      apiVersions: MONITORING,
    });
    const monitor = one<{ spec: { endpoints: Record<string, unknown>[] } }>(manifests, "ServiceMonitor");
    validateManifest(monitor);
    expect(monitor.spec.endpoints[0]).toMatchObject({
      port: "http",
      path: "/metrics",
      scheme: "https",
      tlsConfig,
      relabelings,
      metricRelabelings,
    });

    const plain = one<{ spec: { endpoints: Record<string, unknown>[] } }>(
      rendered({ values: [{ serviceMonitor: { enabled: true } }], apiVersions: MONITORING }),
      "ServiceMonitor",
    );
    expect(Object.keys(plain.spec.endpoints[0]!).sort()).toEqual(["interval", "path", "port", "scheme", "scrapeTimeout"]);
  });

  it("the dashboard ConfigMap carries the sidecar's label and the dashboard JSON as it is in the chart", () => {
    const manifests = rendered({
      values: [{ grafanaDashboard: { enabled: true, namespace: "monitoring", annotations: { grafana_folder: "Shiplog" } } }],
    });
    const configMap = one<{ data: Record<string, string> }>(manifests, "ConfigMap");
    validateManifest(configMap);
    expect(configMap.metadata.namespace).toBe("monitoring");
    expect(configMap.metadata.labels?.grafana_dashboard).toBe("1");
    expect(configMap.metadata.annotations).toEqual({ grafana_folder: "Shiplog" });
    expect(JSON.parse(configMap.data["shiplog-controller.json"]!)).toEqual(JSON.parse(dashboardText));
    const custom = one<{ metadata: { labels: Record<string, string> } }>(
      rendered({ values: [{ grafanaDashboard: { enabled: true, label: "dashboards", labelValue: "shiplog" } }] }),
      "ConfigMap",
    );
    expect(selects({ dashboards: "shiplog" }, custom.metadata.labels)).toBe(true);
    expect(custom.metadata.namespace).toBe("shiplog");
  });
});

describe("the Grafana dashboard", () => {
  const dashboard = JSON.parse(dashboardText) as { uid: string; title: string; panels: Panel[]; templating: { list: { name: string }[] } };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== "row");

  it("is a dashboard with unique panel ids, a data source variable and the panels an operator needs", () => {
    expect(dashboard.uid).toBe("shiplog-controller");
    const ids = dashboard.panels.map((p) => (p as unknown as { id: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(["datasource", "namespace", "job"]);
    const all = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join("\n");
    for (const metric of [
      "shiplog_controller_desired_records",
      "shiplog_controller_acknowledged_records",
      "shiplog_controller_pending_records",
      "shiplog_controller_requests_total",
      "shiplog_controller_request_duration_seconds_bucket",
      "shiplog_controller_leader",
      "shiplog_controller_token_remaining_seconds",
    ]) {
      expect(all, metric).toMatch(new RegExp(`\\b${metric}\\b`));
    }
  });

  it("every panel's queries read metrics the controller exports (or one assumed from another branch)", async () => {
    const readable = await readableMetricNames();
    for (const panel of panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        const names = metricsIn(target.expr);
        expect(names.length, `${panel.title}: ${target.expr}`).toBeGreaterThan(0);
        for (const name of names) expect(readable.has(name), `${panel.title} reads ${name}`).toBe(true);
      }
    }
  });
});
