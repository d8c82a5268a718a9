// Controller configuration from environment variables and command-line flags (flags win), validated at start.
// Every problem is reported at once, naming the flag, the variable and the rule; the token is never echoed.
import { ShiplogError, serviceUrlProblem } from "@shiplog/client";
import { isIP } from "node:net";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseLabelSelector } from "./label-selector.js";
import { leaseTimingProblems } from "./lease-timing.js";
import { readAppSettings } from "./config-app.js";
import { booleanText, dnsSubdomain, duration, integer, MAX_TIMER_MS, namespaceList, share, template, type ConfigIssue } from "./config-values.js";
import { DEFAULT_DEPLOYMENT_NAME_TEMPLATE, DEPLOYMENT_NAME_PLACEHOLDERS, fromDeploymentTrackerTemplate } from "./pod-records.js";

export { MAX_TIMER_MS, parseDuration, type ConfigIssue } from "./config-values.js";

/** One configuration setting: its flag, its environment variable and what it means. */
interface Setting {
  flag: string;
  env: string;
  boolean?: boolean;
  help: string;
}

/** Every setting, in the order they are documented. */
export const SETTINGS = {
  apiUrl: { flag: "api-url", env: "SHIPLOG_API_URL", help: "service API base URL (default https://api.github.com)" },
  tokenFile: { flag: "token-file", env: "SHIPLOG_TOKEN_FILE", help: "file holding the API token (or set SHIPLOG_TOKEN)" },
  appId: { flag: "app-id", env: "SHIPLOG_APP_ID", help: "App id (or client id), to authenticate as an App installation instead of with a token" },
  appInstallationId: { flag: "app-installation-id", env: "SHIPLOG_APP_INSTALLATION_ID", help: "the App's installation id (default: found from --org)" },
  appPrivateKeyFile: { flag: "app-private-key-file", env: "SHIPLOG_APP_PRIVATE_KEY_FILE", help: "file holding the App's private key (PEM)" },
  org: { flag: "org", env: "SHIPLOG_ORG", help: "organization that owns the records (required)" },
  cluster: { flag: "cluster", env: "SHIPLOG_CLUSTER", help: "cluster name (required; letters, digits, . _ -)" },
  logicalEnvironment: { flag: "logical-environment", env: "SHIPLOG_LOGICAL_ENVIRONMENT", help: "stage, e.g. production (required)" },
  physicalEnvironment: { flag: "physical-environment", env: "SHIPLOG_PHYSICAL_ENVIRONMENT", help: "region, e.g. eu-west-1" },
  namespaces: { flag: "namespaces", env: "SHIPLOG_NAMESPACES", help: "comma list of namespaces to watch (default all)" },
  excludeNamespaces: { flag: "exclude-namespaces", env: "SHIPLOG_EXCLUDE_NAMESPACES", help: "comma list of namespaces to ignore" },
  labelSelector: { flag: "label-selector", env: "SHIPLOG_LABEL_SELECTOR", help: "only pods matching this label selector" },
  deploymentNameTemplate: {
    flag: "deployment-name-template",
    env: "SHIPLOG_DEPLOYMENT_NAME_TEMPLATE",
    help: `deployment name template (default ${DEFAULT_DEPLOYMENT_NAME_TEMPLATE}); placeholders ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}; deployment-tracker's {{namespace}} {{deploymentName}} {{containerName}} are read as {namespace} {workload} {container}`,
  },
  deploymentTrackerAnnotations: {
    flag: "deployment-tracker-annotations",
    env: "SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS",
    boolean: true,
    help: "also read github/deployment-tracker's metadata.github.com/<key> tags and metadata.github.com/runtime-risks (migration)",
  },
  batchSize: { flag: "batch-size", env: "SHIPLOG_BATCH_SIZE", help: "entries per request, 1 to 1000 (default 1000)" },
  concurrency: {
    flag: "concurrency",
    env: "SHIPLOG_CONCURRENCY",
    help: "calls a round may make when writes are not serialized, 1 to 32 (default 4)",
  },
  serializeWrites: { flag: "serialize-writes", env: "SHIPLOG_SERIALIZE_WRITES", boolean: true, help: "send POSTs one at a time, as the service advises (default true)" },
  // Scheduling and the write budget: when rounds run and how many calls they may make.
  flushWindow: {
    flag: "flush-window",
    env: "SHIPLOG_FLUSH_WINDOW",
    help: "a change is sent once the cluster has been quiet this long (default 100ms)",
  },
  flushMaxWait: {
    flag: "flush-max-wait",
    env: "SHIPLOG_FLUSH_MAX_WAIT",
    help: "and at the latest this long after the first change (default 1s)",
  },
  writeBudgetPerMinute: {
    flag: "write-budget-per-minute",
    env: "SHIPLOG_WRITE_BUDGET_PER_MINUTE",
    help: "cluster calls a minute, paced evenly (default 80, the service's limit)",
  },
  writeBudgetPerHour: {
    flag: "write-budget-per-hour",
    env: "SHIPLOG_WRITE_BUDGET_PER_HOUR",
    help: "cluster calls an hour (default 500, the service's limit)",
  },
  resyncInterval: {
    flag: "resync-interval",
    env: "SHIPLOG_RESYNC_INTERVAL",
    help: "each interval resends a slice of the records (default 10m; 0 disables)",
  },
  resyncBudgetShare: {
    flag: "resync-budget-share",
    env: "SHIPLOG_RESYNC_BUDGET_SHARE",
    help: "share of the hourly budget the resync may use, above 0 up to 1 (default 0.5)",
  },
  retryMinDelay: { flag: "retry-min-delay", env: "SHIPLOG_RETRY_MIN_DELAY", help: "first backoff after a failed send (default 1s)" },
  retryMaxDelay: { flag: "retry-max-delay", env: "SHIPLOG_RETRY_MAX_DELAY", help: "longest backoff after failed sends (default 60s)" },
  requestTimeout: { flag: "request-timeout", env: "SHIPLOG_REQUEST_TIMEOUT", help: "timeout of one API or list request (default 30s)" },
  watchTimeout: { flag: "watch-timeout", env: "SHIPLOG_WATCH_TIMEOUT", help: "server-side watch timeout (default 5m)" },
  watchIdleTimeout: { flag: "watch-idle-timeout", env: "SHIPLOG_WATCH_IDLE_TIMEOUT", help: "restart a watch silent this long (default watch timeout + 30s)" },
  kubeconfig: { flag: "kubeconfig", env: "KUBECONFIG", help: "kubeconfig file (default: in-cluster, then ~/.kube/config)" },
  apiVersion: { flag: "api-version", env: "SHIPLOG_API_VERSION", help: "service API version header (default 2026-03-10)" },
  httpHost: { flag: "http-host", env: "SHIPLOG_HTTP_HOST", help: "address of /healthz /readyz /metrics (default 0.0.0.0)" },
  httpPort: { flag: "http-port", env: "SHIPLOG_HTTP_PORT", help: "port of /healthz /readyz /metrics (default 8080; off disables)" },
  logLevel: { flag: "log-level", env: "SHIPLOG_LOG_LEVEL", help: "trace, debug, info, warn, error (default info)" },
  dryRun: { flag: "dry-run", env: "SHIPLOG_DRY_RUN", boolean: true, help: "compute and log, send nothing" },
  stateConfigMap: { flag: "state-configmap", env: "SHIPLOG_STATE_CONFIGMAP", help: "ConfigMap (in the pod namespace) keeping what the service acknowledged (default: memory only)" },
  stateMaxShards: {
    flag: "state-max-shards",
    env: "SHIPLOG_STATE_MAX_SHARDS",
    help: "most shard ConfigMaps the state may spread over, 1 to 64 (default 16: about 25,000 records each with its own digest per shard)",
  },
  leaseName: { flag: "lease-name", env: "SHIPLOG_LEASE_NAME", help: "Lease (in the pod namespace) for leader election; set it to run several replicas" },
  leaseDuration: { flag: "lease-duration", env: "SHIPLOG_LEASE_DURATION", help: "how long standbys wait on an unrenewed lease (default 15s)" },
  renewDeadline: { flag: "renew-deadline", env: "SHIPLOG_RENEW_DEADLINE", help: "the leader stops posting when it could not renew for this long (default 10s)" },
  retryPeriod: { flag: "retry-period", env: "SHIPLOG_RETRY_PERIOD", help: "interval of lease renewals and acquisition attempts (default 2s)" },
  readyWhenStandby: { flag: "ready-when-standby", env: "SHIPLOG_READY_WHEN_STANDBY", help: "whether /readyz answers 200 on a synced standby (default true)" },
  shutdownTimeout: { flag: "shutdown-timeout", env: "SHIPLOG_SHUTDOWN_TIMEOUT", help: "on SIGTERM, time to send what is pending before exiting (default 10s)" },
  podName: { flag: "pod-name", env: "POD_NAME", help: "identity in the Lease (default: host name and a random suffix)" },
  podNamespace: { flag: "pod-namespace", env: "POD_NAMESPACE", help: "namespace of the Lease and the state ConfigMap (default: the kubeconfig's)" },
} satisfies Record<string, Setting>;

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
  /** A change is sent once the cluster has been quiet this long... */
  flushWindowMs: number;
  /** ...and at the latest this long after the first change. */
  flushMaxWaitMs: number;
  /** Cluster calls allowed a minute (paced evenly) and an hour. */
  writeBudgetPerMinute: number;
  writeBudgetPerHour: number;
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
  return `invalid configuration: ${issue.field}: ${issue.message} [rule: ${issue.rule}]`;
}

const schema = z.object({
  apiUrl: z
    .string()
    .superRefine((text, ctx) => {
      const problem = serviceUrlProblem(text);
      if (problem) ctx.addIssue({ code: "custom", message: problem.message, params: { rule: problem.rule } });
    })
    .default("https://api.github.com"),
  appId: z.string().regex(/^[A-Za-z0-9.]+$/, { message: "must be the App's numeric id or client id" }).optional(),
  appInstallationId: z.string().regex(/^[1-9]\d{0,15}$/, { message: "must be a positive integer" }).transform(Number).optional(),
  appPrivateKeyFile: z.string().min(1).optional(),
  org: z.string({ message: "is required" }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, { message: "must be an organization name (letters, digits, '.', '-', '_', up to 100)" }),
  cluster: z.string({ message: "is required" }).regex(/^[a-zA-Z0-9._-]{1,128}$/, { message: "must be 1 to 128 letters, digits, '.', '-' or '_'" }),
  logicalEnvironment: z.string({ message: "is required" }).min(1, { message: "is required" }).max(128, { message: "must be at most 128 characters" }),
  physicalEnvironment: z.string().max(128, { message: "must be at most 128 characters" }).optional(),
  namespaces: namespaceList.default([]),
  excludeNamespaces: namespaceList.default([]),
  labelSelector: z
    .string()
    .superRefine((text, ctx) => {
      const parsed = parseLabelSelector(text);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: `not a valid Kubernetes label selector: ${parsed.reason}`, params: { rule: "label selector syntax" } });
    })
    .optional(),
  deploymentNameTemplate: z.string().transform(fromDeploymentTrackerTemplate).pipe(template).default(DEFAULT_DEPLOYMENT_NAME_TEMPLATE),
  deploymentTrackerAnnotations: booleanText.default(false),
  flushWindow: duration(0).default(100),
  flushMaxWait: duration(1).default(1000),
  writeBudgetPerMinute: integer(1, 60_000).default(80),
  writeBudgetPerHour: integer(1, 3_600_000).default(500),
  resyncBudgetShare: share.default(0.5),
  batchSize: integer(1, 1000).default(1000),
  concurrency: integer(1, 32).default(4),
  serializeWrites: booleanText.default(true),
  resyncInterval: duration(0).default(600_000),
  retryMinDelay: duration(1).default(1000),
  retryMaxDelay: duration(1).default(60_000),
  requestTimeout: duration(100).default(30_000),
  watchTimeout: duration(1000).default(300_000),
  watchIdleTimeout: duration(100).optional(),
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
  stateMaxShards: integer(1, 64).default(16),
  leaseName: dnsSubdomain.optional(),
  leaseDuration: duration(1000).default(15_000),
  renewDeadline: duration(100).default(10_000),
  retryPeriod: duration(50).default(2000),
  readyWhenStandby: booleanText.default(true),
  shutdownTimeout: duration(0).default(10_000),
  podName: z.string().max(253, { message: "must be at most 253 characters" }).optional(),
  podNamespace: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "must be a DNS label (lowercase letters, digits, '-')" }).max(63).optional(),
});

/** Usage text listing every flag and variable. */
export function usage(): string {
  const lines = Object.values(SETTINGS).map((s: Setting) => `  --${s.flag.padEnd(26)} ${s.env.padEnd(34)} ${s.help}`);
  return [
    "Usage: shiplog-controller [flags]   (every flag can also be set by its environment variable; an empty variable is unset)",
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
  } else if (raw.tokenFile !== undefined) {
    try {
      token = readFileSync(raw.tokenFile, "utf8").trim();
      if (token === "") issues.push({ field: fieldName("tokenFile"), rule: "non-empty", message: `token file ${raw.tokenFile} is empty` });
    } catch (error) {
      issues.push({ field: fieldName("tokenFile"), rule: "readable", message: `cannot read token file ${raw.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? "error"}` });
    }
  } else if (env.SHIPLOG_TOKEN !== undefined && env.SHIPLOG_TOKEN.trim() !== "") {
    token = env.SHIPLOG_TOKEN.trim();
  } else {
    issues.push({ field: "SHIPLOG_TOKEN / --token-file", rule: "required", message: "an API token is required (SHIPLOG_TOKEN, or a file named by --token-file / SHIPLOG_TOKEN_FILE)" });
  }
  if (token !== undefined && /\s/.test(token)) {
    issues.push({ field: raw.tokenFile !== undefined ? fieldName("tokenFile") : "SHIPLOG_TOKEN", rule: "no whitespace", message: "the token contains whitespace" });
  }

  if (parsed.success) {
    const c = parsed.data;
    if (c.flushMaxWait < c.flushWindow) {
      issues.push({ field: fieldName("flushMaxWait"), rule: "≥ flush-window", message: "must not be shorter than the flush window" });
    }
    if (c.retryMaxDelay < c.retryMinDelay) {
      issues.push({ field: fieldName("retryMaxDelay"), rule: "≥ retry-min-delay", message: "must not be shorter than the retry minimum delay" });
    }
    for (const problem of leaseTimingProblems({ leaseDurationMs: c.leaseDuration, renewDeadlineMs: c.renewDeadline, retryPeriodMs: c.retryPeriod })) {
      issues.push({ field: `${fieldName("leaseDuration")}, ${fieldName("renewDeadline")}, ${fieldName("retryPeriod")}`, rule: "lease timing", message: problem });
    }
    const overlap = c.namespaces.filter((n) => c.excludeNamespaces.includes(n));
    if (overlap.length > 0) {
      issues.push({ field: fieldName("excludeNamespaces"), rule: "disjoint from namespaces", message: `${overlap.join(", ")} both included and excluded` });
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
    flushWindowMs: c.flushWindow,
    flushMaxWaitMs: c.flushMaxWait,
    writeBudgetPerMinute: c.writeBudgetPerMinute,
    writeBudgetPerHour: c.writeBudgetPerHour,
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

/** The configuration with the token masked, for logs. */
export function redactedConfig(config: ControllerConfig): Omit<ControllerConfig, "token"> & { token: "[redacted]" } {
  const { app, ...rest } = config;
  return { ...rest, token: "[redacted]", ...(app && { app: { ...app, privateKey: "[redacted]" } }) };
}
