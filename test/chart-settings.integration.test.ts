// One table per controller setting (packages/controller/src/config/settings.ts), everything else derived: every file
// `pnpm generate:settings` writes must be what the table produces now (the failure names the file and the command);
// each default passes its own rule; --help lists every setting with its default; the chart sets each setting it has a
// value for with the table's default when nothing is given.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "@shiplog/controller";
import { settingEntries } from "@shiplog/controller/internal";
import { CHART_SETTINGS, chartDefault } from "./chart/controller-rules.js";
import { REPO_ROOT } from "./chart/helm.js";
import { commentLines } from "./chart/settings-docs.js";
import { settingsFiles } from "./chart/settings-files.js";
import { envOf, useChart } from "./chart-setup.js";

const BASE = { SHIPLOG_TOKEN: "t", SHIPLOG_ORG: "acme", SHIPLOG_CLUSTER: "c", SHIPLOG_LOGICAL_ENVIRONMENT: "production" };

describe("one table per controller setting", () => {
  it.each(settingsFiles().map((file) => [relative(REPO_ROOT, file.path), file] as const))(
    "%s is what the settings table produces",
    (name, file) => {
      const committed = readFileSync(file.path, "utf8");
      expect(committed, `${name} differs from what the settings table produces: run \`pnpm generate:settings\``).toBe(
        file.derive(committed),
      );
    },
  );

  it("each default passes its own rule: its text, given back, reads as the default (an empty text is unset)", () => {
    for (const [name, setting] of settingEntries()) {
      const text = setting.default === undefined ? "" : setting.type.text(setting.default);
      // An empty text is unset: the default itself.
      if (text === "") continue;
      const parsed = setting.type.parser.safeParse(text);
      expect(parsed.success && parsed.data, name).toEqual(setting.default);
    }
  });

  it("each example passes its setting's rule, and the configuration of every example together is valid", () => {
    const env: Record<string, string> = { ...BASE };
    for (const [name, setting] of settingEntries()) {
      if (setting.example === undefined || /FILE$|^KUBECONFIG$/.test(setting.env) || setting.env.startsWith("SHIPLOG_APP_")) continue;
      expect(setting.type.parser.safeParse(setting.example).success, name).toBe(true);
      env[setting.env] = setting.example;
    }
    expect(() => loadConfig([], env)).not.toThrow();
  });

  it("flags and variables are unique, and a setting is required, defaulted or optional by its entry alone", () => {
    const entries = settingEntries();
    expect(new Set(entries.map(([, s]) => s.flag)).size).toBe(entries.length);
    expect(new Set(entries.map(([, s]) => s.env)).size).toBe(entries.length);
    for (const [name, s] of entries) expect(s.required && s.default !== undefined, name).toBeFalsy();
  });

  it("the parsed configuration holds each setting's default under the setting's name", () => {
    const config = loadConfig([], BASE) as unknown as Record<string, unknown>;
    for (const [name, setting] of settingEntries()) {
      if (setting.default !== undefined) expect(config[name], name).toEqual(setting.default);
    }
  });

  it("values.yaml holds each chart value's default as the table gives it", () => {
    const values = parse(readFileSync(`${REPO_ROOT}/charts/shiplog-controller/values.yaml`, "utf8")) as Record<string, unknown>;
    for (const { chart, setting } of CHART_SETTINGS) {
      const value = chart.path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], values);
      expect(value, chart.path).toEqual(chartDefault(setting));
    }
  });

  it("values.yaml's config section holds settings only: a key no setting sets (one removed from the table) is named", () => {
    const values = parse(readFileSync(`${REPO_ROOT}/charts/shiplog-controller/values.yaml`, "utf8")) as { config: Record<string, unknown> };
    const settingKeys = CHART_SETTINGS.filter((s) => s.chart.path.startsWith("config.")).map((s) => s.chart.path.slice("config.".length));
    expect(Object.keys(values.config).sort()).toEqual(settingKeys.sort());
  });

  it("comments wrap at 120 columns, the first line marked `# --`", () => {
    const lines = commentLines(`${"word ".repeat(40)}end`, "  ");
    expect(lines[0]!.startsWith("  # -- word")).toBe(true);
    expect(lines.slice(1).every((line) => line.startsWith("  # word") || line.startsWith("  # end"))).toBe(true);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  const { rendered } = useChart();

  it("the chart, given only what is required, passes the table's default of every setting it sets (or leaves it unset)", () => {
    const env = envOf(rendered({ files: ["required.yaml"] }));
    for (const { setting } of CHART_SETTINGS.filter((s) => !s.setting.required)) {
      const text = setting.default === undefined ? undefined : setting.type.text(setting.default);
      expect(env[setting.env], setting.env).toBe(text === "" ? undefined : text);
    }
  });
});
