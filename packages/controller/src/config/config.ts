// Controller configuration from environment variables and command-line flags (flags win), validated at start.
// Every problem is reported at once, naming the flag, the variable and the rule; the token is never echoed.
import { ShiplogError, serviceUrlProblem } from "@shiplog/client";
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseLabelSelector } from "../kube/label-selector.js";
import { leaseTimingProblems } from "../election/lease-timing.js";
import { BoundedFileError } from "@shiplog/client/internal";
import { readAppSettings } from "./app-settings.js";
import { readTokenFile } from "../service/token-source.js";
import { SETTINGS, type Setting } from "./settings.js";
import { DURATION_MINIMUMS as MIN, INTEGER_BOUNDS as INT, SETTING_MAX_LENGTHS, SETTING_PATTERNS } from "./rules.js";
import { booleanText, dnsSubdomain, duration, integer, MAX_TIMER_MS, namespaceList, share, template, type ConfigIssue } from "./values.js";
import { DEFAULT_DEPLOYMENT_NAME_TEMPLATE, fromDeploymentTrackerTemplate } from "../mapping/pod-records.js";
import { DEFAULT_REGISTRY_HOST, parseImageRepositories, type ImageRepositoryRule } from "../mapping/repository-rules.js";
import type { WriteBudgetLimits } from "../flush/write-budget.js";

export { MAX_TIMER_MS, parseDuration, type ConfigIssue } from "./values.js";
export { SETTINGS } from "./settings.js";

type SettingName = keyof typeof SETTINGS;

/** The validated configuration. */
export interface ControllerConfig {
  apiUrl: string;
  /** The token as read at start (empty with `app`); with `tokenFile` the controller reads the file again when it changes. */
  token: string;
  /** Mutating calls one at a time (the service's advice against secondary rate limits). */
  serializeWrites: boolean;
  /** App installation auth, instead of a token. */
  app?: { appId: string; installationId?: number; privateKeyFile: string; privateKey: string };
  /** File holding the token (a mounted Secret), read again when it changes. */
  tokenFile?: string;
  org: string;
  cluster: string;
  logicalEnvironment: string;
  physicalEnvironment?: string;
  namespaces: string[];
  excludeNamespaces: string[];
  labelSelector?: string;
  deploymentNameTemplate: string;
  /** Also read github/deployment-tracker's annotations (migration). */
  deploymentTrackerAnnotations: boolean;
  /** The cluster-wide mapping from image name prefixes to repositories (mapping/repository-rules.ts). */
  imageRepositories: ImageRepositoryRule[];
  /** The service's container registry, whose images name their repository; "" when off. */
  registryHost: string;
  /** A change is sent once the cluster has been quiet this long... */
  flushWindowMs: number;
  /** ...and at the latest this long after the first change. */
  flushMaxWaitMs: number;
  /** Cluster calls allowed in any 60 s and in any hour (flush/write-budget.ts). */
  writeBudgetPerMinute: number;
  writeBudgetPerHour: number;
  /** Least time between two cluster calls' starts. */
  writeMinIntervalMs: number;
  batchSize: number;
  concurrency: number;
  resyncIntervalMs: number;
  /** Share of the hourly budget the spread resync may use. */
  resyncBudgetShare: number;
  retryMinDelayMs: number;
  retryMaxDelayMs: number;
  requestTimeoutMs: number;
  watchTimeoutSeconds: number;
  watchIdleTimeoutMs: number;
  kubeconfig?: string;
  apiVersion: string;
  httpHost: string;
  httpPort: number | "off";
  logLevel: "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
  dryRun: boolean;
  /** ConfigMap of acknowledged state; absent: kept in memory only. */
  stateConfigMap?: string;
  /** Most shard ConfigMaps the state may use (their names are `<stateConfigMap>-shard-<i>-a|b`). */
  stateMaxShards: number;
  /** Lease of the leader election; absent: no election, this process always posts. */
  leaseName?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  readyWhenStandby: boolean;
  shutdownTimeoutMs: number;
  podName?: string;
  podNamespace?: string;
}

/** Invalid configuration; `issues` names every problem found, and the message holds one line for each. */
export class ConfigError extends ShiplogError {
  constructor(readonly issues: ConfigIssue[]) {
    super("invalid_config", issues.map(formatConfigIssue).join("\n"));
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), issues: this.issues };
  }
}

/** One problem as one line: the setting, what is wrong, and the rule. */
export function formatConfigIssue(issue: ConfigIssue): string {
  // One line whatever a value held: a line break quoted from a value would split it.
  return `invalid configuration: ${issue.field}: ${issue.message.replace(/[\r\n]+/g, "\\n")} [rule: ${issue.rule}]`;
}

const schema = z.object({
  apiUrl: z
    .string()
    .superRefine((text, ctx) => {
      const problem = serviceUrlProblem(text);
      if (problem) ctx.addIssue({ code: "custom", message: problem.message, params: { rule: problem.rule } });
    })
    .default("https://api.github.com"),
  appId: z.string().regex(new RegExp(SETTING_PATTERNS.appId), { message: "must be the App's numeric id or client id" }).optional(),
  appInstallationId: z
    .string()
    .regex(new RegExp(SETTING_PATTERNS.appInstallationId), { message: "must be a positive integer" })
    .transform(Number)
    .optional(),
  appPrivateKeyFile: z.string().min(1).optional(),
  org: z
    .string({ message: "is required" })
    .regex(new RegExp(SETTING_PATTERNS.org), { message: "must be an organization name (letters, digits, '.', '-', '_', up to 100)" }),
  cluster: z
    .string({ message: "is required" })
    .regex(new RegExp(SETTING_PATTERNS.cluster), { message: "must be 1 to 128 letters, digits, '.', '-' or '_'" }),
  logicalEnvironment: z
    .string({ message: "is required" })
    .min(1, { message: "is required" })
    .max(SETTING_MAX_LENGTHS.logicalEnvironment, { message: `must be at most ${SETTING_MAX_LENGTHS.logicalEnvironment} characters` }),
  physicalEnvironment: z
    .string()
    .max(SETTING_MAX_LENGTHS.physicalEnvironment, { message: `must be at most ${SETTING_MAX_LENGTHS.physicalEnvironment} characters` })
    .optional(),
  namespaces: namespaceList.default([]),
  excludeNamespaces: namespaceList.default([]),
  labelSelector: z
    .string()
    .superRefine((text, ctx) => {
      const parsed = parseLabelSelector(text);
      if (!parsed.ok)
        ctx.addIssue({
          code: "custom",
          message: `not a valid Kubernetes label selector: ${parsed.reason}`,
          params: { rule: "label selector syntax" },
        });
    })
    .optional(),
  deploymentNameTemplate: z.string().transform(fromDeploymentTrackerTemplate).pipe(template).default(DEFAULT_DEPLOYMENT_NAME_TEMPLATE),
  deploymentTrackerAnnotations: booleanText.default(false),
  imageRepositories: z
    .string()
    .transform((text, ctx) => {
      const parsed = parseImageRepositories(text);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: "custom", message: parsed.reason, params: { rule: "comma list of <image name prefix>=<repository>" } });
      return z.NEVER;
    })
    .default([]),
  registryHost: z
    .string()
    .refine((text) => new RegExp(SETTING_PATTERNS.registryHost).test(text), {
      message: 'must be a registry host name (with an optional :port) or "off"',
      params: { rule: "host[:port] or off" },
    })
    .transform((text) => (text === "off" ? "" : text.toLowerCase()))
    .default(DEFAULT_REGISTRY_HOST),
  flushWindow: duration(MIN.flushWindow).default(100),
  flushMaxWait: duration(MIN.flushMaxWait).default(1000),
  writeBudgetPerMinute: integer(...INT.writeBudgetPerMinute).default(80),
  writeBudgetPerHour: integer(...INT.writeBudgetPerHour).default(500),
  writeMinInterval: duration(MIN.writeMinInterval).default(0),
  resyncBudgetShare: share.default(0.5),
  batchSize: integer(...INT.batchSize).default(1000),
  concurrency: integer(...INT.concurrency).default(4),
  serializeWrites: booleanText.default(true),
  resyncInterval: duration(MIN.resyncInterval).default(600_000),
  retryMinDelay: duration(MIN.retryMinDelay).default(1000),
  retryMaxDelay: duration(MIN.retryMaxDelay).default(60_000),
  requestTimeout: duration(MIN.requestTimeout).default(30_000),
  watchTimeout: duration(MIN.watchTimeout).default(300_000),
  watchIdleTimeout: duration(MIN.watchIdleTimeout).optional(),
  kubeconfig: z.string().min(1).optional(),
  apiVersion: z.enum(["2022-11-28", "2026-03-10"], { message: "must be 2022-11-28 or 2026-03-10" }).default("2026-03-10"),
  httpHost: z
    .string()
    .refine((text) => isIP(text) !== 0 || /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(text), {
      message: "must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name of this machine",
      params: { rule: "IP address or host name" },
    })
    .default("0.0.0.0"),
  httpPort: z
    .string()
    .transform((text, ctx) => {
      if (text === "off") return "off" as const;
      const port = Number(text);
      if (!/^\d+$/.test(text) || port > 65535) {
        ctx.addIssue({ code: "custom", message: `must be a port 0 to 65535 or "off" (got "${text}")`, params: { rule: "port" } });
        return z.NEVER;
      }
      return port;
    })
    .default(8080),
  logLevel: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  dryRun: booleanText.default(false),
  // Its shards are <name>-shard-<i>-a|b, which must be object names too (i < 64).
  stateConfigMap: dnsSubdomain
    .refine((name) => name.length <= 253 - "-shard-63-b".length, {
      message: "must be at most 242 characters: its shard ConfigMaps are named <name>-shard-<i>-a and -b",
      params: { rule: "at most 242 characters" },
    })
    .optional(),
  stateMaxShards: integer(...INT.stateMaxShards).default(16),
  leaseName: dnsSubdomain.optional(),
  leaseDuration: duration(MIN.leaseDuration).default(15_000),
  renewDeadline: duration(MIN.renewDeadline).default(10_000),
  retryPeriod: duration(MIN.retryPeriod).default(2000),
  readyWhenStandby: booleanText.default(true),
  shutdownTimeout: duration(MIN.shutdownTimeout).default(10_000),
  podName: z.string().max(253, { message: "must be at most 253 characters" }).optional(),
  podNamespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "must be a DNS label (lowercase letters, digits, '-')" })
    .max(63)
    .optional(),
});

/** Usage text listing every flag and variable. */
export function usage(): string {
  const lines = Object.values(SETTINGS).map((s: Setting) => `  --${s.flag.padEnd(26)} ${s.env.padEnd(34)} ${s.help}`);
  return [
    "Usage: shiplog-controller [flags]   (every flag can also be set by its environment variable; an empty variable is unset)",
    "  -h, --help / -V, --version        print this, or the version, and exit",
    ...lines,
    "  SHIPLOG_TOKEN (variable only)  the API token, when no token file is given",
  ].join("\n");
}

/** Reads and validates the configuration from argv (without node and script) and the environment. */
export function loadConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ControllerConfig {
  const options: Record<string, { type: "string" | "boolean" }> = {};
  for (const setting of Object.values(SETTINGS) as Setting[]) options[setting.flag] = { type: setting.boolean ? "boolean" : "string" };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    const reason = (error as Error).message.split(". ")[0];
    throw new ConfigError([{ field: "arguments", rule: "known flags", message: `${reason}; see --help for every flag` }]);
  }

  const raw: Record<string, string> = {};
  const fieldName = (name: SettingName) => `--${SETTINGS[name].flag} / ${SETTINGS[name].env}`;
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const flagValue = values[setting.flag];
    // An empty variable (or flag value) is unset, for every setting: `SHIPLOG_DRY_RUN=` is not dry-run.
    const value = flagValue !== undefined ? String(flagValue) : env[setting.env];
    if (value !== undefined && value !== "") raw[name] = value;
  }

  const issues: ConfigIssue[] = [];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "") as SettingName;
      const rule = (issue as { params?: { rule?: string } }).params?.rule ?? issue.code;
      issues.push({ field: SETTINGS[name] ? fieldName(name) : name, rule, message: issue.message });
    }
  }

  let token: string | undefined;
  const app = readAppSettings(raw, env, issues, fieldName);
  if (app !== undefined) {
    token = "";
  } else if (raw.tokenFile !== undefined && (env.SHIPLOG_TOKEN ?? "").trim() !== "") {
    // Which one would win is a guess either way: a stale variable beside a mounted Secret is refused, not ignored.
    issues.push({
      field: `SHIPLOG_TOKEN, ${fieldName("tokenFile")}`,
      rule: "one token source",
      message: "both are set: give the token in SHIPLOG_TOKEN or in the file --token-file names, not both",
    });
  } else if (raw.tokenFile !== undefined) {
    try {
      token = readTokenFile(raw.tokenFile, fieldName("tokenFile")).trim();
    } catch (error) {
      if (!(error instanceof BoundedFileError)) throw error;
      issues.push({ field: error.setting, rule: error.rule, message: error.detail });
    }
  } else if (env.SHIPLOG_TOKEN !== undefined && env.SHIPLOG_TOKEN.trim() !== "") {
    token = env.SHIPLOG_TOKEN.trim();
  } else {
    issues.push({
      field: "SHIPLOG_TOKEN / --token-file",
      rule: "required",
      message: "an API token is required (SHIPLOG_TOKEN, or a file named by --token-file / SHIPLOG_TOKEN_FILE)",
    });
  }
  if (token !== undefined && /\s/.test(token)) {
    issues.push({
      field: raw.tokenFile !== undefined ? fieldName("tokenFile") : "SHIPLOG_TOKEN",
      rule: "no whitespace",
      message: "the token contains whitespace",
    });
  }

  if (parsed.success) {
    const c = parsed.data;
    if (c.flushMaxWait < c.flushWindow) {
      issues.push({ field: fieldName("flushMaxWait"), rule: "≥ flush-window", message: "must not be shorter than the flush window" });
    }
    if (c.retryMaxDelay < c.retryMinDelay) {
      issues.push({
        field: fieldName("retryMaxDelay"),
        rule: "≥ retry-min-delay",
        message: "must not be shorter than the retry minimum delay",
      });
    }
    for (const problem of leaseTimingProblems({
      leaseDurationMs: c.leaseDuration,
      renewDeadlineMs: c.renewDeadline,
      retryPeriodMs: c.retryPeriod,
    })) {
      issues.push({
        field: `${fieldName("leaseDuration")}, ${fieldName("renewDeadline")}, ${fieldName("retryPeriod")}`,
        rule: "lease timing",
        message: problem,
      });
    }
    const overlap = c.namespaces.filter((n) => c.excludeNamespaces.includes(n));
    if (overlap.length > 0) {
      issues.push({
        field: fieldName("excludeNamespaces"),
        rule: "disjoint from namespaces",
        message: `${overlap.join(", ")} both included and excluded`,
      });
    }
  }
  if (issues.length > 0 || !parsed.success || token === undefined) throw new ConfigError(issues);

  const c = parsed.data;
  const config: ControllerConfig = {
    apiUrl: c.apiUrl.replace(/\/+$/, ""),
    token,
    org: c.org,
    cluster: c.cluster,
    logicalEnvironment: c.logicalEnvironment,
    namespaces: c.namespaces,
    excludeNamespaces: c.excludeNamespaces,
    deploymentNameTemplate: c.deploymentNameTemplate,
    deploymentTrackerAnnotations: c.deploymentTrackerAnnotations,
    imageRepositories: c.imageRepositories,
    registryHost: c.registryHost,
    flushWindowMs: c.flushWindow,
    flushMaxWaitMs: c.flushMaxWait,
    writeBudgetPerMinute: c.writeBudgetPerMinute,
    writeBudgetPerHour: c.writeBudgetPerHour,
    writeMinIntervalMs: c.writeMinInterval,
    batchSize: c.batchSize,
    concurrency: c.concurrency,
    serializeWrites: c.serializeWrites,
    resyncIntervalMs: c.resyncInterval,
    resyncBudgetShare: c.resyncBudgetShare,
    retryMinDelayMs: c.retryMinDelay,
    retryMaxDelayMs: c.retryMaxDelay,
    requestTimeoutMs: c.requestTimeout,
    watchTimeoutSeconds: Math.max(1, Math.round(c.watchTimeout / 1000)),
    // The default idle timeout must fit a timer too.
    watchIdleTimeoutMs: c.watchIdleTimeout ?? Math.min(MAX_TIMER_MS, c.watchTimeout + 30_000),
    apiVersion: c.apiVersion,
    httpHost: c.httpHost,
    httpPort: c.httpPort,
    logLevel: c.logLevel,
    dryRun: c.dryRun,
    stateMaxShards: c.stateMaxShards,
    leaseDurationMs: c.leaseDuration,
    renewDeadlineMs: c.renewDeadline,
    retryPeriodMs: c.retryPeriod,
    readyWhenStandby: c.readyWhenStandby,
    shutdownTimeoutMs: c.shutdownTimeout,
  };
  if (raw.tokenFile !== undefined) config.tokenFile = raw.tokenFile;
  if (app !== undefined && c.appId !== undefined) {
    config.app = { appId: c.appId, privateKeyFile: app.privateKeyFile, privateKey: app.privateKey };
    if (c.appInstallationId !== undefined) config.app.installationId = c.appInstallationId;
  }
  if (c.stateConfigMap !== undefined) config.stateConfigMap = c.stateConfigMap;
  if (c.leaseName !== undefined) config.leaseName = c.leaseName;
  if (c.podName !== undefined) config.podName = c.podName;
  if (c.podNamespace !== undefined) config.podNamespace = c.podNamespace;
  if (c.physicalEnvironment !== undefined && c.physicalEnvironment !== "") config.physicalEnvironment = c.physicalEnvironment;
  if (c.labelSelector !== undefined) config.labelSelector = c.labelSelector;
  if (c.kubeconfig !== undefined) config.kubeconfig = c.kubeconfig;
  return config;
}

/** The write budget's limits from the configuration. */
export function writeBudgetLimits(config: ControllerConfig): WriteBudgetLimits {
  return { perMinute: config.writeBudgetPerMinute, perHour: config.writeBudgetPerHour, minIntervalMs: config.writeMinIntervalMs };
}

/** The configuration with the token masked, for logs. */
export function redactedConfig(config: ControllerConfig): Omit<ControllerConfig, "token"> & { token: "[redacted]" } {
  const { app, ...rest } = config;
  return { ...rest, token: "[redacted]", ...(app && { app: { ...app, privateKey: "[redacted]" } }) };
}
