// The chart's checks derived from the controller's own settings (`pnpm chart:generate` writes them; the chart
// validation test fails when the committed files differ): the values schema's patterns and bounds, and a template of
// the duration bounds and the lease rule's factor that Helm's template language checks. Which chart value sets which
// controller setting is CHART_VALUES; the validation test renders each to prove the mapping.
import {
  DEPLOYMENT_NAME_PLACEHOLDERS,
  DURATION_MINIMUMS,
  INTEGER_BOUNDS,
  JITTER_FACTOR,
  LABEL_SELECTOR_LONG_PREFIX,
  LABEL_SELECTOR_PATTERN,
  MAX_TIMER_MS,
  SETTING_MAX_LENGTHS,
  SETTING_PATTERNS,
  SETTINGS,
} from "@shiplog/controller/internal";

export type SettingName = keyof typeof SETTINGS;

/** How a chart value holds a setting's text: a string, an integer, a number, a boolean, or a list split at commas. */
export type ValueKind = "string" | "integer" | "number" | "boolean" | "list" | "map";

/** The chart value (a dotted path under .Values) that becomes each setting's variable, and how it holds the text. */
export const CHART_VALUES: Partial<Record<SettingName, { path: string; kind: ValueKind }>> = {
  apiUrl: { path: "config.apiUrl", kind: "string" },
  appId: { path: "auth.app.id", kind: "string" },
  appInstallationId: { path: "auth.app.installationId", kind: "string" },
  org: { path: "config.org", kind: "string" },
  cluster: { path: "config.cluster", kind: "string" },
  logicalEnvironment: { path: "config.logicalEnvironment", kind: "string" },
  physicalEnvironment: { path: "config.physicalEnvironment", kind: "string" },
  namespaces: { path: "config.namespaces", kind: "list" },
  excludeNamespaces: { path: "config.excludeNamespaces", kind: "list" },
  labelSelector: { path: "config.labelSelector", kind: "string" },
  deploymentNameTemplate: { path: "config.deploymentNameTemplate", kind: "string" },
  imageRepositories: { path: "config.imageRepositories", kind: "map" },
  registryHost: { path: "config.registryHost", kind: "string" },
  batchSize: { path: "config.batchSize", kind: "integer" },
  concurrency: { path: "config.concurrency", kind: "integer" },
  flushWindow: { path: "config.flushWindow", kind: "string" },
  flushMaxWait: { path: "config.flushMaxWait", kind: "string" },
  writeBudgetPerMinute: { path: "config.writeBudgetPerMinute", kind: "integer" },
  writeBudgetPerHour: { path: "config.writeBudgetPerHour", kind: "integer" },
  writeMinInterval: { path: "config.writeMinInterval", kind: "string" },
  resyncInterval: { path: "config.resyncInterval", kind: "string" },
  resyncBudgetShare: { path: "config.resyncBudgetShare", kind: "number" },
  retryMinDelay: { path: "config.retryMinDelay", kind: "string" },
  retryMaxDelay: { path: "config.retryMaxDelay", kind: "string" },
  requestTimeout: { path: "config.requestTimeout", kind: "string" },
  watchTimeout: { path: "config.watchTimeout", kind: "string" },
  watchIdleTimeout: { path: "config.watchIdleTimeout", kind: "string" },
  apiVersion: { path: "config.apiVersion", kind: "string" },
  httpPort: { path: "config.httpPort", kind: "integer" },
  logLevel: { path: "config.logLevel", kind: "string" },
  dryRun: { path: "config.dryRun", kind: "boolean" },
  stateMaxShards: { path: "state.maxShards", kind: "integer" },
  leaseDuration: { path: "leaderElection.leaseDuration", kind: "string" },
  renewDeadline: { path: "leaderElection.renewDeadline", kind: "string" },
  retryPeriod: { path: "leaderElection.retryPeriod", kind: "string" },
};

/** Why the chart offers no value for the other settings. */
export const NOT_IN_CHART: Partial<Record<SettingName, string>> = {
  tokenFile: "the chart mounts the token Secret at a fixed path",
  appPrivateKeyFile: "the chart mounts the App's key Secret at a fixed path",
  stateConfigMap: "named by the chart from the release (<fullname>-state)",
  leaseName: "named by the chart from the release (<fullname>)",
  podName: "the pod's own name (fieldRef)",
  podNamespace: "the pod's own namespace (fieldRef)",
  httpHost: "not a chart value (the controller's default, 0.0.0.0, in a pod)",
  kubeconfig: "not a chart value (in-cluster)",
  deploymentTrackerAnnotations: "not a chart value (extraEnv can set it)",
  serializeWrites: "not a chart value (extraEnv can set it)",
  readyWhenStandby: "not a chart value (extraEnv can set it)",
  shutdownTimeout: "not a chart value (extraEnv can set it)",
};

type JsonObject = Record<string, unknown>;

function at(schema: JsonObject, path: string): JsonObject {
  let node = schema;
  for (const key of path.split(".")) {
    node = (node.properties as Record<string, JsonObject> | undefined)?.[key] as JsonObject;
    if (node === undefined) throw new Error(`values.schema.json has no ${path}`);
  }
  return node;
}

/** The settings a chart value holds as a duration. */
export const DURATION_SETTINGS = (Object.keys(DURATION_MINIMUMS) as (keyof typeof DURATION_MINIMUMS)[]).filter(
  (name) => CHART_VALUES[name],
);

/** The values schema with every part derived from the controller's settings replaced by what they say now. */
export function withControllerRules(schema: JsonObject): JsonObject {
  const copy = structuredClone(schema);
  const set = (name: SettingName, fields: JsonObject) => Object.assign(at(copy, CHART_VALUES[name]!.path), fields);
  const optional = (pattern: string) => `^$|${pattern}`;
  set("apiUrl", { pattern: SETTING_PATTERNS.apiUrl });
  set("org", { pattern: SETTING_PATTERNS.org });
  set("cluster", { pattern: SETTING_PATTERNS.cluster });
  set("logicalEnvironment", { minLength: 1, maxLength: SETTING_MAX_LENGTHS.logicalEnvironment });
  set("physicalEnvironment", { maxLength: SETTING_MAX_LENGTHS.physicalEnvironment });
  for (const name of ["namespaces", "excludeNamespaces"] as const) {
    Object.assign(at(copy, CHART_VALUES[name]!.path).items as JsonObject, {
      pattern: SETTING_PATTERNS.namespace,
      maxLength: SETTING_MAX_LENGTHS.namespace,
    });
  }
  // The label selector is checked by the template (_controller-rules.tpl's pattern), which names the controller's
  // rule; a schema pattern would print the whole expression instead.
  delete at(copy, CHART_VALUES.labelSelector!.path).pattern;
  const placeholder = `\\{(${DEPLOYMENT_NAME_PLACEHOLDERS.join("|")})\\}`;
  set("deploymentNameTemplate", { pattern: optional(`^[^{}]*(${placeholder}[^{}]*)*$`) });
  set("registryHost", { pattern: SETTING_PATTERNS.registryHost });
  for (const name of DURATION_SETTINGS) {
    set(name, { pattern: name === "watchIdleTimeout" ? optional(SETTING_PATTERNS.duration) : SETTING_PATTERNS.duration });
  }
  for (const [name, [minimum, maximum]] of Object.entries(INTEGER_BOUNDS) as [SettingName, readonly [number, number]][]) {
    set(name, { minimum, maximum });
  }
  set("appId", { pattern: optional(SETTING_PATTERNS.appId) });
  set("appInstallationId", { pattern: optional(SETTING_PATTERNS.appInstallationId) });
  return copy;
}

/**
 * templates/_controller-rules.tpl: the bounds of every duration the chart passes on, client-go's lease factor and the
 * label selector grammar, which _helpers.tpl checks (a schema pattern would print the whole expression, not the rule).
 */
export function controllerRulesTemplate(): string {
  const rows = DURATION_SETTINGS.map((name) => {
    const { path } = CHART_VALUES[name]!;
    const setting = SETTINGS[name];
    return `  (list "${path}" .Values.${path} "--${setting.flag} / ${setting.env}" ${DURATION_MINIMUMS[name]})`;
  });
  return [
    "{{/*",
    "Generated from the controller's settings (packages/controller/src/config/rules.ts, election/lease-timing.ts) by",
    "`pnpm chart:generate`; do not edit. Each duration value: its path, its value, the controller's setting, its least",
    "milliseconds. _helpers.tpl checks them with the controller's rule.",
    "*/}}",
    '{{- define "shiplog-controller.durationRules" -}}',
    "{{- list",
    ...rows,
    "| toJson }}",
    "{{- end }}",
    "",
    '{{- define "shiplog-controller.maxDurationMs" -}}',
    `${MAX_TIMER_MS}`,
    "{{- end }}",
    "",
    '{{- define "shiplog-controller.leaseJitterFactor" -}}',
    `${JITTER_FACTOR}`,
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
