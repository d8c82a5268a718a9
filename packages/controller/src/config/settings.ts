// Every setting of the controller, one entry each, in the order they are documented: the single source of its flag,
// its environment variable, the kind of value it takes (with its rule and bounds), its default, its help line, and
// the chart value that sets it with the chart's description (or why the chart has none). Derived from this table:
// the parser and the ControllerConfig type (config/config.ts), --help, and, by `pnpm generate:settings`, the chart's
// env list, values.yaml's comments and defaults, values.schema.json, the chart's duration checks and the controller
// README's settings table. Data only; adding a setting is one entry here (and the code that uses it).
import { isIP } from "node:net";
import { serviceUrlProblem } from "@shiplog/client";
import { CREDENTIAL_SETTINGS, IMAGE_NAME_PREFIX_PATTERN } from "@shiplog/client/internal";
import { z } from "zod";
import { JITTER_FACTOR, LEASE_TIMING_RULES } from "../election/lease-timing.js";
import { parseLabelSelector } from "../kube/label-selector.js";
import { DEFAULT_DEPLOYMENT_NAME_TEMPLATE, DEPLOYMENT_NAME_PLACEHOLDERS, fromDeploymentTrackerTemplate } from "../mapping/pod-records.js";
import { DEFAULT_REGISTRY_HOST, parseImageRepositories, type ImageRepositoryRule } from "../mapping/repository-rules.js";
import { SETTING_MAX_LENGTHS, SETTING_PATTERNS } from "./rules.js";
import type { SettingRelation } from "./setting-relations.js";
import {
  boolean,
  bounded,
  custom,
  duration,
  integer,
  matching,
  namespaceList,
  objectName,
  oneOf,
  share,
  template,
  type JsonSchema,
  type SettingType,
} from "./values.js";

/** The chart value that sets a setting: its path under .Values and what values.yaml says of it. */
export interface ChartValue {
  path: string;
  /** values.yaml's comment on the key (and the schema's description). */
  description: string;
  /** Schema fields the chart adds to (or puts in place of) the type's own. */
  schema?: JsonSchema;
  /** A value path that must be set for the variable to be rendered (e.g. leaderElection.enabled). */
  when?: string;
}

/** One setting. `T` is the parsed value's type. */
export interface Setting<T = unknown> {
  flag: string;
  env: string;
  type: SettingType<T>;
  /** The value when the setting is not given; absent: unset (or `required`). */
  default?: T;
  /** The default in words, when it is no single value (e.g. derived from another setting). */
  defaultText?: string;
  required?: true;
  /** A flag that takes no value (`--dry-run`); its variable still takes true or false. */
  switch?: true;
  /** One line for --help (the default is added). */
  help: string;
  /** A value other than the default, as the operator writes it: the README shows it, the chart's tests set it. */
  example?: string;
  /** The chart value that sets it, or why the chart has none. */
  chart: ChartValue | { none: string };
}

const path = custom(z.string().min(1), { rule: "a file path", schema: { type: "string" } });

const imageRepositories = custom<ImageRepositoryRule[]>(
  z.string().transform((value, ctx) => {
    const parsed = parseImageRepositories(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: "custom", message: parsed.reason, params: { rule: "comma list of <image name prefix>=<repository>" } });
    return z.NEVER;
  }),
  {
    text: (rules) => rules.map((r) => `${r.prefix}=${r.repository}`).join(","),
    rule: "comma list of <image name prefix>=<repository>",
    schema: { type: "object" },
    kind: "map",
    chartValue: (rules) => Object.fromEntries(rules.map((r) => [r.prefix, r.repository])),
  },
);

/** The chart's schema of an image-repository mapping: image name prefixes (no tag or digest, the controller's grammar) to repository names. */
const IMAGE_REPOSITORIES_SCHEMA: JsonSchema = {
  propertyNames: { pattern: IMAGE_NAME_PREFIX_PATTERN },
  additionalProperties: { type: "string", pattern: "^[A-Za-z0-9._-]{1,100}$" },
};

const apiUrl = custom(
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = serviceUrlProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem.message, params: { rule: problem.rule } });
    })
    .transform((value) => value.replace(/\/+$/, "")),
  {
    rule: "https URL (http only to a loopback host); no credentials, query or fragment",
    schema: { type: "string", pattern: SETTING_PATTERNS.apiUrl },
  },
);

const labelSelector = custom(
  z.string().superRefine((value, ctx) => {
    const parsed = parseLabelSelector(value);
    if (!parsed.ok)
      ctx.addIssue({
        code: "custom",
        message: `not a valid Kubernetes label selector: ${parsed.reason}`,
        params: { rule: "label selector syntax" },
      });
  }),
  // The chart's template checks it with the grammar's pattern (_controller-rules.tpl), naming the controller's rule.
  { rule: "Kubernetes label selector syntax", schema: { type: "string" } },
);

const registryHost = custom(
  z
    .string()
    .refine((value) => new RegExp(SETTING_PATTERNS.registryHost).test(value), {
      message: 'must be a registry host name (with an optional :port) or "off"',
      params: { rule: "host[:port] or off" },
    })
    .transform((value) => (value === "off" ? "" : value.toLowerCase())),
  { text: (host) => host || "off", rule: "host[:port] or off", schema: { type: "string", pattern: SETTING_PATTERNS.registryHost } },
);

const httpHost = custom(
  z
    .string()
    .refine((value) => isIP(value) !== 0 || /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(value), {
      message: "must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name of this machine",
      params: { rule: "IP address or host name" },
    }),
  { rule: "IP address or host name", schema: { type: "string" } },
);

const httpPort = custom<number | "off">(
  z.string().transform((value, ctx) => {
    if (value === "off") return "off" as const;
    const port = Number(value);
    if (!/^\d+$/.test(value) || port > 65535) {
      ctx.addIssue({ code: "custom", message: `must be a port 0 to 65535 or "off" (got "${value}")`, params: { rule: "port" } });
      return z.NEVER;
    }
    return port;
  }),
  { rule: "port 0..65535 or off", schema: { type: "integer", minimum: 0, maximum: 65535 }, kind: "integer", chartValue: (port) => port },
);

/** Every setting, in the order they are documented. */
export const SETTINGS = {
  apiUrl: {
    flag: "api-url",
    env: "SHIPLOG_API_URL",
    example: "https://ghe.example.com/api/v3",
    type: apiUrl,
    default: "https://api.github.com",
    help: "service API base URL",
    chart: { path: "config.apiUrl", description: "Service API base URL." },
  },
  tokenFile: {
    ...CREDENTIAL_SETTINGS.tokenFile,
    example: "/var/run/secrets/shiplog/token",
    type: path,
    help: "file holding the API token (or set SHIPLOG_TOKEN)",
    chart: { none: "the chart mounts the token Secret at a fixed path" },
  },
  appId: {
    ...CREDENTIAL_SETTINGS.appId,
    example: "123456",
    type: matching(SETTING_PATTERNS.appId, "must be the App's numeric id or client id", "the App's numeric id or client id"),
    help: "App id (or client id), to authenticate as an App installation instead of with a token",
    chart: {
      path: "auth.app.id",
      description: "App id (or client id). Set it to authenticate as an App installation instead of with a token.",
      schema: { type: ["string", "integer"] },
    },
  },
  appInstallationId: {
    ...CREDENTIAL_SETTINGS.appInstallationId,
    example: "3001",
    type: custom(
      z.string().regex(new RegExp(SETTING_PATTERNS.appInstallationId), { message: "must be a positive integer" }).transform(Number),
      { rule: "positive integer", schema: { type: "string", pattern: SETTING_PATTERNS.appInstallationId } },
    ),
    defaultText: "found from --org",
    help: "the App's installation id",
    chart: {
      path: "auth.app.installationId",
      description: "The installation's id. Empty: found from config.org (GET /orgs/{org}/installation).",
      schema: { type: ["string", "integer"], minimum: 1 },
      when: "auth.app.id",
    },
  },
  appPrivateKeyFile: {
    ...CREDENTIAL_SETTINGS.appPrivateKeyFile,
    example: "/var/run/secrets/shiplog-app/private-key.pem",
    type: path,
    help: "file holding the App's private key (PEM)",
    chart: { none: "the chart mounts the App's key Secret at a fixed path" },
  },
  org: {
    flag: "org",
    env: "SHIPLOG_ORG",
    example: "acme-2",
    type: matching(
      SETTING_PATTERNS.org,
      "must be an organization name (letters, digits, '.', '-', '_', up to 100)",
      "organization name (letters, digits, '.', '-', '_', up to 100)",
      true,
    ),
    required: true,
    help: "organization that owns the records",
    chart: { path: "config.org", description: "Organization that owns the deployment records (required)." },
  },
  cluster: {
    flag: "cluster",
    env: "SHIPLOG_CLUSTER",
    example: "c-2",
    type: matching(
      SETTING_PATTERNS.cluster,
      "must be 1 to 128 letters, digits, '.', '-' or '_'",
      "1 to 128 letters, digits, '.', '-', '_'",
      true,
    ),
    required: true,
    help: "cluster name (letters, digits, . _ -)",
    chart: {
      path: "config.cluster",
      description: "Name of this cluster in the records (required): letters, digits, '.', '-', '_', up to 128.",
    },
  },
  logicalEnvironment: {
    flag: "logical-environment",
    env: "SHIPLOG_LOGICAL_ENVIRONMENT",
    example: "staging",
    type: bounded(1, SETTING_MAX_LENGTHS.logicalEnvironment),
    required: true,
    help: "stage, e.g. production",
    chart: { path: "config.logicalEnvironment", description: "Stage the records belong to, e.g. production (required)." },
  },
  physicalEnvironment: {
    flag: "physical-environment",
    env: "SHIPLOG_PHYSICAL_ENVIRONMENT",
    example: "eu-west-1",
    type: bounded(0, SETTING_MAX_LENGTHS.physicalEnvironment),
    help: "region, e.g. eu-west-1",
    chart: { path: "config.physicalEnvironment", description: "Where the cluster runs, e.g. eu-west-1." },
  },
  apiVersion: {
    flag: "api-version",
    env: "SHIPLOG_API_VERSION",
    example: "2022-11-28",
    type: oneOf(["2026-03-10", "2022-11-28"], "must be 2022-11-28 or 2026-03-10"),
    default: "2026-03-10",
    help: "service API version header",
    chart: { path: "config.apiVersion", description: "Service API version header: 2026-03-10 or 2022-11-28." },
  },
  namespaces: {
    flag: "namespaces",
    env: "SHIPLOG_NAMESPACES",
    example: "a,b",
    type: namespaceList,
    default: [] as string[],
    defaultText: "all",
    help: "comma list of namespaces to watch",
    chart: {
      path: "config.namespaces",
      description:
        "Namespaces to watch. Empty: the whole cluster, with a ClusterRole. Listed: one Role per namespace and no " +
        "cluster-wide read access; more than 50 listed: watched cluster-wide (a ClusterRole), only theirs kept.",
      schema: { uniqueItems: true },
    },
  },
  excludeNamespaces: {
    flag: "exclude-namespaces",
    env: "SHIPLOG_EXCLUDE_NAMESPACES",
    example: "c",
    type: namespaceList,
    default: [] as string[],
    defaultText: "none",
    help: "comma list of namespaces to ignore",
    chart: {
      path: "config.excludeNamespaces",
      description:
        "Namespaces to ignore. Beside namespaces (e.g. a shared values file excluding kube-system everywhere) only " +
        "the listed ones are watched anyway; a namespace both listed and excluded is refused, as the controller does.",
      schema: { uniqueItems: true },
    },
  },
  labelSelector: {
    flag: "label-selector",
    env: "SHIPLOG_LABEL_SELECTOR",
    example: "tier in (front, back),!legacy",
    type: labelSelector,
    defaultText: "every pod",
    help: "only pods matching this label selector",
    chart: {
      path: "config.labelSelector",
      description: 'Only pods matching this label selector get records, e.g. "shiplog.io/track=true".',
    },
  },
  deploymentNameTemplate: {
    flag: "deployment-name-template",
    env: "SHIPLOG_DEPLOYMENT_NAME_TEMPLATE",
    example: "{cluster}-{workload}-{container}",
    type: template(fromDeploymentTrackerTemplate),
    default: DEFAULT_DEPLOYMENT_NAME_TEMPLATE,
    help:
      `deployment name template; placeholders ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}; ` +
      "deployment-tracker's {{namespace}} {{deploymentName}} {{containerName}} are read as {namespace} {workload} {container}",
    chart: {
      path: "config.deploymentNameTemplate",
      description: `Deployment name of a record; placeholders ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}. Must contain {workload} and {container}.`,
    },
  },
  deploymentTrackerAnnotations: {
    flag: "deployment-tracker-annotations",
    env: "SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS",
    example: "true",
    type: boolean,
    default: false,
    switch: true,
    help: "also read github/deployment-tracker's metadata.github.com/<key> tags and metadata.github.com/runtime-risks (migration)",
    chart: { none: "not a chart value (extraEnv can set it)" },
  },
  imageRepositories: {
    flag: "image-repositories",
    env: "SHIPLOG_IMAGE_REPOSITORIES",
    example: "registry.example.com/team-a=web",
    type: imageRepositories,
    default: [] as ImageRepositoryRule[],
    defaultText: "none",
    help:
      "repository of images by name prefix, comma list of <prefix>=<repository>, e.g. registry.example.com/team-a=web " +
      "(after the workload's and the namespace's shiplog.dev/repository; the longest prefix wins)",
    chart: {
      path: "config.imageRepositories",
      description:
        'The repository of images by image name prefix, e.g. {"registry.example.com/team-a": web}: a record whose ' +
        "image no provenance attestation links is refused by the service (not_found) unless it names its repository. " +
        "Rules, first match wins: the workload's annotation shiplog.dev/repository, its namespace's label or annotation " +
        "shiplog.dev/repository, this mapping (longest prefix), then registryHost.",
      schema: IMAGE_REPOSITORIES_SCHEMA,
    },
  },
  registryHost: {
    flag: "registry-host",
    env: "SHIPLOG_REGISTRY_HOST",
    example: "registry.example.com",
    type: registryHost,
    default: DEFAULT_REGISTRY_HOST,
    help: "the service's container registry: its images <host>/<org>/<repository> name their repository (off disables)",
    chart: {
      path: "config.registryHost",
      description:
        "The service's container registry: its images <host>/<org>/<repository> name <repository> of config.org. " +
        '"off" disables the rule.',
    },
  },
  batchSize: {
    flag: "batch-size",
    env: "SHIPLOG_BATCH_SIZE",
    example: "250",
    type: integer(1, 1000),
    default: 1000,
    help: "entries per request",
    chart: { path: "config.batchSize", description: "Records per request to the cluster endpoint (the service takes at most 1000)." },
  },
  concurrency: {
    flag: "concurrency",
    env: "SHIPLOG_CONCURRENCY",
    example: "2",
    type: integer(1, 32),
    default: 4,
    help: "calls a round may make when writes are not serialized",
    chart: {
      path: "config.concurrency",
      description:
        "Calls a round may make when writes are not serialized (SHIPLOG_SERIALIZE_WRITES=false in extraEnv; each " +
        "still waits for the write budget). With serialized writes, the default, a round is up to 10 calls, one at a time.",
    },
  },
  serializeWrites: {
    flag: "serialize-writes",
    env: "SHIPLOG_SERIALIZE_WRITES",
    example: "false",
    type: boolean,
    default: true,
    switch: true,
    help: "send POSTs one at a time, as the service advises",
    chart: { none: "not a chart value (extraEnv can set it)" },
  },
  // Scheduling and the write budget: when rounds run and how many calls they may make.
  flushWindowMs: {
    flag: "flush-window",
    env: "SHIPLOG_FLUSH_WINDOW",
    example: "200ms",
    type: duration(0),
    default: 100,
    help: "a change is sent once the cluster has been quiet this long",
    chart: {
      path: "config.flushWindow",
      description:
        "A change is sent once the cluster has been quiet this long (a coalescing window: a lone change goes out " +
        "within it, a rollout gathers into full batches).",
    },
  },
  flushMaxWaitMs: {
    flag: "flush-max-wait",
    env: "SHIPLOG_FLUSH_MAX_WAIT",
    example: "2s",
    type: duration(1),
    default: 1000,
    help: "and at the latest this long after the first change (at least the flush window)",
    chart: {
      path: "config.flushMaxWait",
      description: "And at the latest this long after the first change of a window; at least flushWindow.",
    },
  },
  writeBudgetPerMinute: {
    flag: "write-budget-per-minute",
    env: "SHIPLOG_WRITE_BUDGET_PER_MINUTE",
    example: "60",
    type: integer(1, 60_000),
    // The service's published secondary limit on content-generating requests.
    default: 80,
    help: "cluster calls in any 60 s; the default is the service's published limit",
    chart: {
      path: "config.writeBudgetPerMinute",
      description:
        "The write budget: cluster calls in any 60 s (calls may go back to back within it). Default: the service's " +
        "published secondary limit on content-generating requests. Lower it when other clients share the token.",
    },
  },
  writeBudgetPerHour: {
    flag: "write-budget-per-hour",
    env: "SHIPLOG_WRITE_BUDGET_PER_HOUR",
    example: "400",
    type: integer(1, 3_600_000),
    // The service's published hourly limit on content-generating requests.
    default: 500,
    help: "cluster calls in any hour; the default is the service's published limit",
    chart: { path: "config.writeBudgetPerHour", description: "Cluster calls in any hour. Default: the service's published limit." },
  },
  writeMinIntervalMs: {
    flag: "write-min-interval",
    env: "SHIPLOG_WRITE_MIN_INTERVAL",
    example: "1s",
    type: duration(0),
    default: 0,
    help: "least time between two cluster calls' starts (1s follows the service's advice)",
    chart: {
      path: "config.writeMinInterval",
      description:
        'Least time between two cluster calls\' starts; "0": none beyond the budget. "1s" follows the service\'s advice ' +
        "of a second between mutating requests, at the cost of slower cold syncs and rollouts.",
    },
  },
  resyncIntervalMs: {
    flag: "resync-interval",
    env: "SHIPLOG_RESYNC_INTERVAL",
    example: "5m",
    type: duration(0),
    default: 600_000,
    help: "each interval resends a slice of the records (0 disables)",
    chart: {
      path: "config.resyncInterval",
      description:
        "Each interval resends a slice of the records (all of them over a few intervals), within " +
        'resyncBudgetShare of the hourly budget; "0" disables.',
    },
  },
  resyncBudgetShare: {
    flag: "resync-budget-share",
    env: "SHIPLOG_RESYNC_BUDGET_SHARE",
    example: "0.25",
    type: share,
    default: 0.5,
    help: "share of the hourly budget the resync may use",
    chart: { path: "config.resyncBudgetShare", description: "Share of writeBudgetPerHour the resync may use, above 0 up to 1." },
  },
  retryMinDelayMs: {
    flag: "retry-min-delay",
    env: "SHIPLOG_RETRY_MIN_DELAY",
    example: "2s",
    type: duration(1),
    default: 1000,
    help: "first backoff after a failed send",
    chart: { path: "config.retryMinDelay", description: "First backoff after a failed send." },
  },
  retryMaxDelayMs: {
    flag: "retry-max-delay",
    env: "SHIPLOG_RETRY_MAX_DELAY",
    example: "30s",
    type: duration(1),
    default: 60_000,
    help: "longest backoff after failed sends (at least the first)",
    chart: { path: "config.retryMaxDelay", description: "Longest backoff after failed sends." },
  },
  requestTimeoutMs: {
    flag: "request-timeout",
    env: "SHIPLOG_REQUEST_TIMEOUT",
    example: "10s",
    type: duration(100),
    default: 30_000,
    help: "timeout of one API or list request",
    chart: { path: "config.requestTimeout", description: "Timeout of one API or Kubernetes list request." },
  },
  watchTimeoutMs: {
    flag: "watch-timeout",
    env: "SHIPLOG_WATCH_TIMEOUT",
    example: "4m",
    type: duration(1000),
    default: 300_000,
    help: "server-side watch timeout",
    chart: { path: "config.watchTimeout", description: "Server-side timeout of a Kubernetes watch." },
  },
  watchIdleTimeoutMs: {
    flag: "watch-idle-timeout",
    env: "SHIPLOG_WATCH_IDLE_TIMEOUT",
    example: "5m",
    type: duration(100),
    defaultText: "watch timeout + 30s",
    help: "restart a watch silent this long",
    chart: { path: "config.watchIdleTimeout", description: "Reopen a watch that stays silent this long. Empty: watchTimeout + 30s." },
  },
  kubeconfig: {
    flag: "kubeconfig",
    env: "KUBECONFIG",
    example: "/etc/shiplog/kubeconfig",
    type: path,
    defaultText: "in-cluster, then ~/.kube/config",
    help: "kubeconfig file",
    chart: { none: "not a chart value (in-cluster)" },
  },
  httpHost: {
    flag: "http-host",
    env: "SHIPLOG_HTTP_HOST",
    example: "127.0.0.1",
    type: httpHost,
    default: "0.0.0.0",
    help: "address of /healthz /readyz /metrics",
    chart: { none: "not a chart value (the controller's default, 0.0.0.0, in a pod)" },
  },
  httpPort: {
    flag: "http-port",
    env: "SHIPLOG_HTTP_PORT",
    example: "9090",
    type: httpPort,
    default: 8080,
    help: "port of /healthz /readyz /metrics (off disables)",
    chart: {
      path: "config.httpPort",
      description: "Port of /healthz, /readyz and /metrics (probes, Service and ServiceMonitor use it).",
      // The probes and the Service need the port: the chart takes neither 0 nor off.
      schema: { minimum: 1 },
    },
  },
  logLevel: {
    flag: "log-level",
    env: "SHIPLOG_LOG_LEVEL",
    example: "debug",
    type: oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
    default: "info",
    help: "least level logged",
    chart: { path: "config.logLevel", description: "Least level logged: trace, debug, info, warn, error, fatal or silent." },
  },
  logFormat: {
    flag: "log-format",
    env: "SHIPLOG_LOG_FORMAT",
    example: "text",
    type: oneOf(["json", "text"], "must be json or text"),
    default: "json",
    help: "json: one object a line, for a log collector; text: one readable line an event, for a terminal",
    chart: {
      path: "config.logFormat",
      description:
        "json: one JSON object a line, for a log collector (Loki, Elasticsearch, Cloud Logging). text: one readable " +
        "line an event (time, level, message, then key=value), for kubectl logs read by a person.",
    },
  },
  dryRun: {
    flag: "dry-run",
    env: "SHIPLOG_DRY_RUN",
    example: "true",
    type: boolean,
    default: false,
    switch: true,
    help: "compute and log, send nothing",
    chart: { path: "config.dryRun", description: "Compute and log the records, send nothing." },
  },
  stateConfigMap: {
    flag: "state-configmap",
    env: "SHIPLOG_STATE_CONFIGMAP",
    example: "shiplog-controller-state",
    // Its shards are <name>-shard-<i>-a|b, which must be object names too (i < 64).
    type: objectName(253 - "-shard-63-b".length, {
      message: "must be at most 242 characters: its shard ConfigMaps are named <name>-shard-<i>-a and -b",
      rule: "at most 242 characters",
    }),
    defaultText: "memory only",
    help: "ConfigMap (in the pod namespace) keeping what the service acknowledged",
    chart: { none: "named by the chart from the release (<fullname>-state)" },
  },
  stateMaxShards: {
    flag: "state-max-shards",
    env: "SHIPLOG_STATE_MAX_SHARDS",
    example: "8",
    type: integer(1, 64),
    default: 16,
    help: "most shard ConfigMaps the state may spread over (about 25,000 records each with its own digest per shard)",
    chart: {
      path: "state.maxShards",
      description:
        "Most shards the state may spread over, 1 to 64. A shard holds about 25,000 records that each have their own " +
        "image digest (many more when images are shared), so 16 hold about 400,000. The Role grants exactly the " +
        "2 x maxShards slot names; beyond them, state writes fail with acknowledged_state_too_large.",
    },
  },
  leaseName: {
    flag: "lease-name",
    env: "SHIPLOG_LEASE_NAME",
    example: "shiplog-controller",
    type: objectName(),
    defaultText: "no election",
    help: "Lease (in the pod namespace) for leader election; set it to run several replicas",
    chart: { none: "named by the chart from the release (<fullname>)" },
  },
  leaseDurationMs: {
    flag: "lease-duration",
    env: "SHIPLOG_LEASE_DURATION",
    example: "20s",
    type: duration(1000),
    default: 15_000,
    help: "how long standbys wait on an unrenewed lease",
    chart: {
      path: "leaderElection.leaseDuration",
      description:
        "How long standbys wait on a Lease that is not renewed before taking it. client-go's rules: " +
        `leaseDuration > renewDeadline > ${JITTER_FACTOR} x retryPeriod, and leaseDuration at least 1s.`,
      when: "leaderElection.enabled",
    },
  },
  renewDeadlineMs: {
    flag: "renew-deadline",
    env: "SHIPLOG_RENEW_DEADLINE",
    example: "12s",
    type: duration(100),
    default: 10_000,
    help: "the leader stops posting when it could not renew for this long",
    chart: {
      path: "leaderElection.renewDeadline",
      description:
        "The leader stops sending when it could not renew for this long (shorter than leaseDuration, so a deposed " +
        "leader has stopped before anyone else can take the Lease).",
      when: "leaderElection.enabled",
    },
  },
  retryPeriodMs: {
    flag: "retry-period",
    env: "SHIPLOG_RETRY_PERIOD",
    example: "3s",
    type: duration(50),
    default: 2000,
    help: "interval of lease renewals and acquisition attempts",
    chart: {
      path: "leaderElection.retryPeriod",
      description: "Interval of renewals and acquisition attempts.",
      when: "leaderElection.enabled",
    },
  },
  readyWhenStandby: {
    flag: "ready-when-standby",
    env: "SHIPLOG_READY_WHEN_STANDBY",
    example: "false",
    type: boolean,
    default: true,
    help: "whether /readyz answers 200 on a synced standby",
    chart: { none: "not a chart value (extraEnv can set it)" },
  },
  shutdownTimeoutMs: {
    flag: "shutdown-timeout",
    env: "SHIPLOG_SHUTDOWN_TIMEOUT",
    example: "30s",
    type: duration(0),
    default: 10_000,
    help: "on SIGTERM, time to send what is pending before exiting",
    chart: { none: "not a chart value (extraEnv can set it)" },
  },
  podName: {
    flag: "pod-name",
    env: "POD_NAME",
    example: "shiplog-controller-7d9c8b6f5-x2x4q",
    type: bounded(0, 253),
    defaultText: "host name and a random suffix",
    help: "identity in the Lease",
    chart: { none: "the pod's own name (fieldRef)" },
  },
  podNamespace: {
    flag: "pod-namespace",
    env: "POD_NAMESPACE",
    example: "shiplog",
    type: custom(
      z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "must be a DNS label (lowercase letters, digits, '-')" })
        .max(63),
      { rule: "DNS label", schema: { type: "string" } },
    ),
    defaultText: "the kubeconfig's",
    help: "namespace of the Lease and the state ConfigMap",
    chart: { none: "the pod's own namespace (fieldRef)" },
  },
} satisfies Record<string, Setting<unknown>>;

/** The three leader-election settings, which an issue of client-go's lease rules names together. */
const LEASE_SETTINGS = ["leaseDurationMs", "renewDeadlineMs", "retryPeriodMs"] as const satisfies readonly SettingName[];

/**
 * Rules between two settings that no type states alone (config/setting-relations.ts), with the settings an issue
 * names and the rule's name: the configuration checks them, and the chart's checks are generated from them.
 */
export const SETTING_RELATIONS: readonly (SettingRelation<SettingName> & { fields: readonly SettingName[]; rule: string })[] = [
  {
    kind: "order",
    setting: "flushMaxWaitMs",
    than: "flushWindowMs",
    factor: 1,
    orEqual: true,
    fields: ["flushMaxWaitMs"],
    rule: "≥ flush-window",
    message: "must not be shorter than the flush window",
  },
  {
    kind: "order",
    setting: "retryMaxDelayMs",
    than: "retryMinDelayMs",
    factor: 1,
    orEqual: true,
    fields: ["retryMaxDelayMs"],
    rule: "≥ retry-min-delay",
    message: "must not be shorter than the retry minimum delay",
  },
  ...LEASE_TIMING_RULES.map((relation) => ({ ...relation, fields: LEASE_SETTINGS, rule: "lease timing" })),
  {
    kind: "disjoint",
    setting: "excludeNamespaces",
    than: "namespaces",
    fields: ["excludeNamespaces"],
    rule: "disjoint from namespaces",
    message: "both included and excluded",
  },
];

/** A setting's name: its key in SETTINGS, which is its field in the parsed configuration. */
export type SettingName = keyof typeof SETTINGS;

/** The parsed value of a setting. */
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K]["type"] extends SettingType<infer T> ? T : never;

/** Settings that always have a value once parsed: a default, or required. */
type Given = { [K in SettingName]: (typeof SETTINGS)[K] extends { default: unknown } | { required: true } ? K : never }[SettingName];

/** Every setting's parsed value (the parsed configuration's fields before what is computed from them). */
export type ParsedSettings = { [K in Given]: SettingValue<K> } & { [K in Exclude<SettingName, Given>]?: SettingValue<K> };

/** `--flag / VARIABLE`, as issues name a setting. */
export const settingField = (name: SettingName): string => `--${SETTINGS[name].flag} / ${SETTINGS[name].env}`;

/** Every setting as the generic Setting, with its name. */
export const settingEntries = (): [SettingName, Setting][] => Object.entries(SETTINGS) as [SettingName, Setting][];

/** A setting's default as the operator writes it, or in words; undefined when it has none. */
export function defaultText(setting: Setting): string | undefined {
  if (setting.defaultText !== undefined) return setting.defaultText;
  return setting.default === undefined ? undefined : setting.type.text(setting.default);
}
