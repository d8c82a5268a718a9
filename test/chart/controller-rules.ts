// The chart's parts derived from the controller's settings table (packages/controller/src/config/settings.ts), which
// `pnpm generate:settings` writes and test/chart-settings.integration.test.ts holds equal to the committed files: each setting's
// schema in values.schema.json, and templates/_controller-rules.tpl (the env list the chart renders, the duration
// bounds and the lease rule's factor that Helm's template language checks, the label selector grammar).
import {
  defaultText,
  LABEL_SELECTOR_LONG_PREFIX,
  LABEL_SELECTOR_PATTERN,
  MAX_NAMESPACED_WATCHES,
  MAX_TIMER_MS,
  SETTING_RELATIONS,
  type ChartValue,
  type Setting,
  type SettingName,
  settingEntries,
} from "@shiplog/controller/internal";

export type { SettingName } from "@shiplog/controller/internal";

/** How a chart value holds a setting's text: a string, an integer, a number, a boolean, or a list split at commas. */
export type ValueKind = "string" | "integer" | "number" | "boolean" | "list" | "map";

/** A setting the chart sets: its name, its entry, and its chart value. */
export interface ChartSetting {
  name: SettingName;
  setting: Setting;
  chart: ChartValue;
}

/** The settings the chart sets, in the table's order. */
export const CHART_SETTINGS: ChartSetting[] = settingEntries().flatMap(([name, setting]) =>
  "path" in setting.chart ? [{ name, setting, chart: setting.chart }] : [],
);

/** The chart value (a dotted path under .Values) that becomes each setting's variable, and how it holds the text. */
export const CHART_VALUES: Partial<Record<SettingName, { path: string; kind: ValueKind }>> = Object.fromEntries(
  CHART_SETTINGS.map(({ name, setting, chart }) => [name, { path: chart.path, kind: setting.type.kind }]),
);

/** Why the chart offers no value for the other settings. */
export const NOT_IN_CHART: Partial<Record<SettingName, string>> = Object.fromEntries(
  settingEntries().flatMap(([name, setting]) => ("none" in setting.chart ? [[name, setting.chart.none]] : [])),
);

/** The settings a chart value holds as a duration. */
export const DURATION_SETTINGS = CHART_SETTINGS.filter((s) => s.setting.type.durationMs !== undefined);

type JsonObject = Record<string, unknown>;

/** A setting's value in values.yaml: its default, or empty (the controller's own default, or unset). */
export function chartDefault(setting: Setting): unknown {
  if (setting.default !== undefined) return setting.type.chartValue(setting.default);
  return { list: [], map: {} }[setting.type.kind as string] ?? "";
}

/** A setting's schema in values.schema.json: its type's, the chart's additions, and the chart's description. */
export function chartSchema({ setting, chart }: ChartSetting): JsonObject {
  const schema: JsonObject = { ...setting.type.schema, ...chart.schema, description: chart.description };
  // A value that may be left empty: "" is unset, whatever the pattern says of a value.
  if (chartDefault(setting) === "" && !setting.required && typeof schema.pattern === "string") schema.pattern = `^$|${schema.pattern}`;
  return schema;
}

function objectAt(schema: JsonObject, keys: string[]): JsonObject {
  let node = schema;
  for (const key of keys) {
    const properties = node.properties as Record<string, JsonObject> | undefined;
    if (!properties?.[key]) throw new Error(`values.schema.json has no ${keys.join(".")}: add the object that holds the setting`);
    node = properties[key]!;
  }
  return node;
}

/** The values schema with every setting's property (and its object's `required`) what the table says now. */
export function withControllerRules(schema: JsonObject): JsonObject {
  const copy = structuredClone(schema);
  const required = new Map<JsonObject, string[]>();
  for (const entry of CHART_SETTINGS) {
    const keys = entry.chart.path.split(".");
    const parent = objectAt(copy, keys.slice(0, -1));
    const key = keys[keys.length - 1]!;
    (parent.properties as JsonObject)[key] = chartSchema(entry);
    if (!required.has(parent)) required.set(parent, []);
    if (entry.setting.required) required.get(parent)!.push(key);
  }
  for (const [parent, keys] of required) {
    if (keys.length > 0) parent.required = keys;
    else delete parent.required;
  }
  return copy;
}

/** `text` where the chart passes the value on, else empty: its `when` (leaderElection.enabled) decides. */
function passedOn(chart: ChartValue, text: string): string {
  return chart.when ? `(and $.Values.${chart.when} ${text})` : text;
}

/** The template expression of a chart value's text, as the controller's variable takes it ("" when unset). */
function envExpression({ setting, chart }: ChartSetting): string {
  const value = `$.Values.${chart.path}`;
  const integerOrString = Array.isArray(chart.schema?.type) && (chart.schema.type as string[]).includes("integer");
  const text = {
    string: integerOrString ? `(and ${value} (toString ${value}))` : value,
    integer: `(toString (int ${value}))`,
    number: `(toString ${value})`,
    boolean: `(toString ${value})`,
    list: `(join "," ${value})`,
    map: `(include "shiplog-controller.mapSetting" ${value})`,
  }[setting.type.kind];
  return passedOn(chart, text);
}

/** The chart setting of a setting a rule between settings names; every such setting must be a chart value. */
function chartSettingOf(name: SettingName): ChartSetting {
  const entry = CHART_SETTINGS.find((s) => s.name === name);
  if (!entry) throw new Error(`${name} is in a rule between settings but is no chart value`);
  return entry;
}

/**
 * A value as a rule between settings compares it: a list as it is, a duration's text as the controller takes it, its
 * default when left empty (the controller's own), and empty when the chart does not pass it on (its `when` is off).
 */
function relationExpression({ setting, chart }: ChartSetting): string {
  const value = `$.Values.${chart.path}`;
  if (setting.type.kind === "list") return value;
  const text = setting.default === undefined ? value : `(default "${setting.type.text(setting.default)}" ${value})`;
  return passedOn(chart, text);
}

/**
 * templates/_controller-rules.tpl: the controller's variables from the chart values (one per setting the chart sets,
 * rendered when not empty), the bounds of every duration the chart passes on, the rules between two settings, the
 * parts a value must contain, the bound of namespaces watched one by one and the label selector grammar, which _helpers.tpl checks (a schema pattern would print the whole expression, not the rule).
 */
export function controllerRulesTemplate(): string {
  const env = CHART_SETTINGS.map((entry) => `  (list "${entry.setting.env}" ${envExpression(entry)})`);
  const durations = DURATION_SETTINGS.map(({ setting, chart }) => {
    return `  (list "${chart.path}" .Values.${chart.path} "--${setting.flag} / ${setting.env}" ${setting.type.durationMs!.min})`;
  });
  const relations = SETTING_RELATIONS.map((relation) => {
    const [entry, other] = [relation.setting, relation.than].map(chartSettingOf);
    const fields = relation.fields.map((name) => chartSettingOf(name).chart.path).join(", ");
    const values = `"${fields}" ${relationExpression(entry!)} ${relationExpression(other!)}`;
    return relation.kind === "order"
      ? `  (list "order" ${values} ${relation.factor} ${relation.orEqual} "${relation.message}" "${relation.rule}")`
      : `  (list "disjoint" ${values} "${relation.message}" "${relation.rule}")`;
  });
  const contains = CHART_SETTINGS.filter((s) => s.setting.type.mustContain).map(({ setting, chart }) => {
    const { parts, why } = setting.type.mustContain!;
    return `  (list "${chart.path}" .Values.${chart.path} (list ${parts.map((p) => `"${p}"`).join(" ")}) "${why}")`;
  });
  return [
    "{{/*",
    "Generated from the controller's settings table (packages/controller/src/config/settings.ts, and",
    "election/lease-timing.ts, kube/informers.ts, kube/label-selector.ts) by `pnpm generate:settings`; do not edit.",
    "*/}}",
    "",
    "{{/* The controller's variable of each setting the chart sets, when its value is not empty. */}}",
    '{{- define "shiplog-controller.settingsEnv" -}}',
    "{{- range list",
    ...env,
    "}}",
    "{{- if index . 1 }}",
    "- name: {{ index . 0 }}",
    "  value: {{ index . 1 | quote }}",
    "{{- end }}",
    "{{- end }}",
    "{{- end }}",
    "",
    "{{/* A map value as the controller's comma list of <key>=<value>. */}}",
    '{{- define "shiplog-controller.mapSetting" -}}',
    "{{- $pairs := list }}",
    '{{- range $key, $value := . }}{{ $pairs = append $pairs (printf "%s=%s" $key $value) }}{{ end }}',
    '{{- join "," $pairs }}',
    "{{- end }}",
    "",
    "{{/* Each duration value: its path, its value, the controller's setting, its least milliseconds. */}}",
    '{{- define "shiplog-controller.durationRules" -}}',
    "{{- list",
    ...durations,
    "| toJson }}",
    "{{- end }}",
    "",
    "{{/*",
    "Each rule between two settings (SETTING_RELATIONS): its kind, the values the controller names, the value, the other",
    "value; an order's factor and whether equal holds; the problem; the rule.",
    "*/}}",
    '{{- define "shiplog-controller.settingRelations" -}}',
    "{{- list",
    ...relations,
    "| toJson }}",
    "{{- end }}",
    "",
    "{{/* Each value that must contain parts (a type's mustContain): its path, its value, the parts, why. */}}",
    '{{- define "shiplog-controller.containRules" -}}',
    "{{- list",
    ...contains,
    "| toJson }}",
    "{{- end }}",
    "",
    '{{- define "shiplog-controller.maxDurationMs" -}}',
    `${MAX_TIMER_MS}`,
    "{{- end }}",
    "",
    "{{/*",
    "Up to this many config.namespaces the controller watches each on its own (a Role in each); above, it watches",
    "cluster-wide and keeps only theirs (a ClusterRole). The controller's MAX_NAMESPACED_WATCHES.",
    "*/}}",
    '{{- define "shiplog-controller.maxNamespacedWatches" -}}',
    `${MAX_NAMESPACED_WATCHES}`,
    "{{- end }}",
    "",
    "{{/* The label selector grammar (kube/label-selector.ts's LABEL_SELECTOR_PATTERN); an empty selector is unset. */}}",
    '{{- define "shiplog-controller.labelSelectorPattern" -}}',
    LABEL_SELECTOR_PATTERN,
    "{{- end }}",
    "",
    "{{/* A key prefix longer than 253 characters (LABEL_SELECTOR_LONG_PREFIX), which the grammar's pattern cannot bound. */}}",
    '{{- define "shiplog-controller.labelSelectorLongPrefix" -}}',
    LABEL_SELECTOR_LONG_PREFIX,
    "{{- end }}",
    "",
  ].join("\n");
}

/** A pattern the text of templates/_controller-rules.tpl defines (labelSelectorPattern, labelSelectorLongPrefix). */
export function patternIn(templateText: string, name: string): string {
  const match = new RegExp(`\\{\\{- define "shiplog-controller\\.${name}" -\\}\\}\\n(.*)\\n\\{\\{- end \\}\\}`).exec(templateText);
  if (!match) throw new Error(`templates/_controller-rules.tpl defines no shiplog-controller.${name}`);
  return match[1]!;
}

export { defaultText };
