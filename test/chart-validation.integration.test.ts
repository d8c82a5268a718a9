// One validation for the chart and the controller: every configuration the controller's config tests refuse
// (packages/controller/test/config-refusals.ts, the table config.test.ts and config-auth.test.ts check) is set through
// the chart value that becomes its variable, rendered by real Helm, and given to the controller's loadConfig; the chart
// must refuse it first, naming the value. The table of both answers is printed. The chart's checks derived from the
// controller's settings (test/chart/controller-rules.ts) must be the committed ones.
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@shiplog/controller";
import { SETTINGS } from "@shiplog/controller/internal";
import { FILES, materialize, REFUSED, type RefusedCase } from "../packages/controller/test/config-refusals.js";
import { CHART_DIR } from "./chart/helm.js";
import {
  CHART_SETTINGS,
  CHART_VALUES,
  controllerRulesTemplate,
  NOT_IN_CHART,
  type SettingName,
  type ValueKind,
  withControllerRules,
} from "./chart/controller-rules.js";
import { envOf, useChart } from "./chart-setup.js";
import { tempDir } from "./kit/temp-dir.js";

const { render } = useChart();
const SETTING_OF_ENV = new Map((Object.entries(SETTINGS) as [SettingName, { env: string }][]).map(([name, s]) => [s.env, name]));
/** The App's key Secret the chart mounts at the path SHIPLOG_APP_PRIVATE_KEY_FILE names. */
const APP_SECRET = "shiplog-app-key";

/** A setting's text as the chart value of that kind holds it. */
function chartValue(kind: ValueKind, text: string): unknown {
  switch (kind) {
    case "integer":
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case "number":
      return /^-?\d*\.?\d+$/.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "list":
      return text === "" ? [] : text.split(",").map((s) => s.trim());
    case "map":
      return Object.fromEntries(text.split(",").map((pair) => pair.split("=") as [string, string]));
    default:
      return text;
  }
}

function setPath(values: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = values;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** The chart values that set a case's variables, and the paths they set; or why the chart cannot express it. */
function chartValuesOf(c: RefusedCase): { values: Record<string, unknown>; paths: string[] } | { notExpressible: string } {
  if (c.argv) return { notExpressible: "a command-line flag; the chart passes variables only" };
  const values: Record<string, unknown> = {};
  const paths: string[] = [];
  const set = (path: string, value: unknown) => {
    setPath(values, path, value);
    paths.push(path);
  };
  if (c.noToken) setPath(values, "token.value", "");
  for (const [variable, text] of Object.entries(c.env)) {
    if (variable === "SHIPLOG_TOKEN") {
      set("token.value", text);
      continue;
    }
    const name = SETTING_OF_ENV.get(variable);
    if (name === "appPrivateKeyFile") {
      if (text !== FILES.keyFile) return { notExpressible: "the key's file is the chart's mount of a Secret it does not read" };
      set("auth.app.existingSecret", APP_SECRET);
      continue;
    }
    const mapped = name && CHART_VALUES[name];
    if (!mapped) return { notExpressible: (name && NOT_IN_CHART[name]) ?? `${variable} is not a chart value` };
    set(mapped.path, chartValue(mapped.kind, text));
  }
  return { values, paths };
}

/** The chart values of the variables the controller's issue names (its field), where the chart has them. */
function fieldPaths(c: RefusedCase): string[] {
  return [...c.field.matchAll(/\bSHIPLOG_[A-Z_]+/g)].flatMap(([variable]) => {
    if (variable === "SHIPLOG_TOKEN" || variable === "SHIPLOG_TOKEN_FILE") return ["token.value"];
    if (variable === "SHIPLOG_APP_PRIVATE_KEY_FILE") return ["auth.app.existingSecret"];
    const name = SETTING_OF_ENV.get(variable);
    const mapped = name && CHART_VALUES[name];
    return mapped ? [mapped.path] : [];
  });
}

/** Helm's refusal as one line: the schema's `- at '/x': ...` or the template's fail message. */
function helmAnswer(stderr: string): string {
  const schema = stderr.split("\n").find((line) => line.startsWith("- at '"));
  if (schema) return schema;
  const error = stderr.split("\n").find((line) => line.startsWith("Error: ")) ?? stderr.trim().split("\n")[0] ?? "";
  return error.replace(/^Error: execution error at \([^)]*\): /, "");
}

/** Whether Helm's answer names one of the values the case set (as `/a/b`, `a.b`, or the section `a:`). */
const namesValue = (answer: string, paths: string[]) =>
  paths.some(
    (path) => answer.includes(path) || answer.includes(`'/${path.replaceAll(".", "/")}`) || answer.includes(`${path.split(".")[0]}:`),
  );

const oneLine = (text: string, max = 150) => {
  const line = text.replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

interface Row {
  setting: string;
  value: string;
  controller: string;
  chart: string;
  agree: "yes" | "NO" | "n/a";
}

function controllerAnswer(c: RefusedCase): { refused: boolean; answer: string } {
  try {
    loadConfig(c.argv ?? [], materialize(c, tempDir("shiplog-chart-validation-")));
    return { refused: false, answer: "accepted" };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const issue = error.issues.find((i) => i.field === c.field && i.rule === c.rule) ?? error.issues[0]!;
    return { refused: true, answer: `${issue.message} [rule: ${issue.rule}]` };
  }
}

function row(c: RefusedCase): Row & { chartRefused: boolean; expressible: boolean } {
  const value = c.argv
    ? c.argv.join(" ")
    : Object.entries(c.env)
        .map(([k, v]) => `${k}=${v.length > 40 ? `${v.slice(0, 12)}…(${v.length})` : v}`)
        .join(" ");
  const controller = controllerAnswer(c);
  const base = { setting: c.field, value: value || (c.noToken ? "(no token, no App)" : ""), controller: oneLine(controller.answer) };
  const mapped = chartValuesOf(c);
  if ("notExpressible" in mapped) {
    return { ...base, chart: `not expressible: ${mapped.notExpressible}`, agree: "n/a", chartRefused: false, expressible: false };
  }
  const result = render({ values: [mapped.values] });
  const chart = result.ok ? "rendered" : helmAnswer(result.stderr);
  // Agreement: both refuse, and Helm names a value the case set or the value of the setting the controller names.
  const agree = controller.refused && !result.ok && namesValue(chart, [...mapped.paths, ...fieldPaths(c)]) ? "yes" : "NO";
  return { ...base, chart: `${oneLine(chart)} [${mapped.paths.join(", ")}]`, agree, chartRefused: !result.ok, expressible: true };
}

function printTable(rows: Row[]): string {
  const header: Row = { setting: "setting", value: "value", controller: "controller's answer", chart: "chart's answer", agree: "n/a" };
  const lines = [header, ...rows].map(
    (r, i) => `| ${r.setting} | ${r.value} | ${r.controller} | ${r.chart} | ${i === 0 ? "agree" : r.agree} |`,
  );
  lines.splice(1, 0, "| --- | --- | --- | --- | --- |");
  return lines.join("\n");
}

describe("one validation for the chart and the controller", () => {
  it("the chart's checks derived from the controller's settings are the committed ones (run `pnpm generate:settings`)", () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, "values.schema.json"), "utf8")) as Record<string, unknown>;
    expect(schema, "run `pnpm generate:settings`").toEqual(withControllerRules(schema));
    expect(readFileSync(join(CHART_DIR, "templates/_controller-rules.tpl"), "utf8"), "run `pnpm generate:settings`").toBe(
      controllerRulesTemplate(),
    );
  });

  it("every setting is either a chart value or named as not one; each chart value becomes its variable, and the controller takes what the chart renders", () => {
    for (const name of Object.keys(SETTINGS) as SettingName[]) {
      expect(CHART_VALUES[name] !== undefined || NOT_IN_CHART[name] !== undefined, name).toBe(true);
    }
    // Each chart value set to its setting's example (the table's), the App's in a second render with no token.
    const examples = (app: boolean) =>
      Object.fromEntries(
        CHART_SETTINGS.filter((s) => s.chart.path.startsWith("auth.app.") === app).map(({ name, setting }) => {
          expect(setting.example, `${name}: the settings table gives no example`).toBeDefined();
          return [name, setting.example!];
        }),
      ) as Partial<Record<SettingName, string>>;
    const samples = examples(false);
    const app = examples(true);
    for (const [set, extra] of [
      [samples, {}],
      [app, { token: { value: "" }, auth: { app: { existingSecret: APP_SECRET } } }],
    ] as const) {
      const values: Record<string, unknown> = structuredClone(extra);
      for (const [name, text] of Object.entries(set) as [SettingName, string][]) {
        setPath(values, CHART_VALUES[name]!.path, chartValue(CHART_VALUES[name]!.kind, text));
      }
      const result = render({ values: [values] });
      expect(result.ok, result.stderr).toBe(true);
      const env = envOf(result.manifests);
      for (const [name, text] of Object.entries(set) as [SettingName, string][]) {
        expect(env[SETTINGS[name].env], name).toBe(text);
      }
      // The controller starts on what the chart rendered (the mounted files stand in for themselves).
      const local: Record<string, string> = { ...env, SHIPLOG_TOKEN_FILE: "", SHIPLOG_APP_PRIVATE_KEY_FILE: "" };
      if (env.SHIPLOG_APP_ID) {
        const keyFile = join(tempDir("shiplog-chart-validation-key-"), "app.pem");
        writeFileSync(keyFile, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }));
        local.SHIPLOG_APP_PRIVATE_KEY_FILE = keyFile;
      } else local.SHIPLOG_TOKEN = "t";
      expect(() => loadConfig([], local)).not.toThrow();
    }
  });

  it("every case the controller refuses, the chart refuses first, naming the value (the table of both answers)", {
    timeout: 600_000,
  }, () => {
    const rows = REFUSED.map(row);
    const expressible = rows.filter((r) => r.expressible);
    const agreeing = expressible.filter((r) => r.agree === "yes");
    console.log(
      `${printTable(rows)}\n\n${agreeing.length} of ${expressible.length} agree ` +
        `(${rows.length - expressible.length} of the ${rows.length} cases cannot be expressed through the chart)`,
    );
    // Every case of the table is one the controller refuses.
    expect(rows.filter((r) => r.controller === "accepted")).toEqual([]);
    expect(expressible.filter((r) => r.agree !== "yes")).toEqual([]);
    expect(expressible.length).toBeGreaterThan(rows.length / 2);
  });
});
