// Every setting of the controller: its flag, its environment variable and its help line, in the order they are
// documented (data; config/config.ts reads and validates them).
import { DEFAULT_DEPLOYMENT_NAME_TEMPLATE, DEPLOYMENT_NAME_PLACEHOLDERS } from "../mapping/pod-records.js";
import { DEFAULT_REGISTRY_HOST } from "../mapping/repository-rules.js";

/** One configuration setting: its flag, its environment variable and what it means. */
export interface Setting {
  flag: string;
  env: string;
  boolean?: boolean;
  help: string;
}

/** Every setting, in the order they are documented. */
export const SETTINGS = {
  apiUrl: { flag: "api-url", env: "SHIPLOG_API_URL", help: "service API base URL (default https://api.github.com)" },
  tokenFile: { flag: "token-file", env: "SHIPLOG_TOKEN_FILE", help: "file holding the API token (or set SHIPLOG_TOKEN)" },
  appId: {
    flag: "app-id",
    env: "SHIPLOG_APP_ID",
    help: "App id (or client id), to authenticate as an App installation instead of with a token",
  },
  appInstallationId: {
    flag: "app-installation-id",
    env: "SHIPLOG_APP_INSTALLATION_ID",
    help: "the App's installation id (default: found from --org)",
  },
  appPrivateKeyFile: {
    flag: "app-private-key-file",
    env: "SHIPLOG_APP_PRIVATE_KEY_FILE",
    help: "file holding the App's private key (PEM)",
  },
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
    help:
      `deployment name template (default ${DEFAULT_DEPLOYMENT_NAME_TEMPLATE}); ` +
      `placeholders ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}; ` +
      "deployment-tracker's {{namespace}} {{deploymentName}} {{containerName}} are read as {namespace} {workload} {container}",
  },
  deploymentTrackerAnnotations: {
    flag: "deployment-tracker-annotations",
    env: "SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS",
    boolean: true,
    help: "also read github/deployment-tracker's metadata.github.com/<key> tags and metadata.github.com/runtime-risks (migration)",
  },
  imageRepositories: {
    flag: "image-repositories",
    env: "SHIPLOG_IMAGE_REPOSITORIES",
    help:
      "repository of images by name prefix, comma list of <prefix>=<repository>, e.g. registry.example.com/team-a=web " +
      "(after the workload's and the namespace's shiplog.dev/repository; the longest prefix wins)",
  },
  registryHost: {
    flag: "registry-host",
    env: "SHIPLOG_REGISTRY_HOST",
    help: `the service's container registry: its images <host>/<org>/<repository> name their repository (default ${DEFAULT_REGISTRY_HOST}; off disables)`,
  },
  batchSize: { flag: "batch-size", env: "SHIPLOG_BATCH_SIZE", help: "entries per request, 1 to 1000 (default 1000)" },
  concurrency: {
    flag: "concurrency",
    env: "SHIPLOG_CONCURRENCY",
    help: "calls a round may make when writes are not serialized, 1 to 32 (default 4)",
  },
  serializeWrites: {
    flag: "serialize-writes",
    env: "SHIPLOG_SERIALIZE_WRITES",
    boolean: true,
    help: "send POSTs one at a time, as the service advises (default true)",
  },
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
    help: "cluster calls in any 60 s (default 80, the service's limit)",
  },
  writeBudgetPerHour: {
    flag: "write-budget-per-hour",
    env: "SHIPLOG_WRITE_BUDGET_PER_HOUR",
    help: "cluster calls in any hour (default 500, the service's limit)",
  },
  writeMinInterval: {
    flag: "write-min-interval",
    env: "SHIPLOG_WRITE_MIN_INTERVAL",
    help: "least time between two cluster calls' starts (default 0; 1s follows the service's advice)",
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
  watchIdleTimeout: {
    flag: "watch-idle-timeout",
    env: "SHIPLOG_WATCH_IDLE_TIMEOUT",
    help: "restart a watch silent this long (default watch timeout + 30s)",
  },
  kubeconfig: { flag: "kubeconfig", env: "KUBECONFIG", help: "kubeconfig file (default: in-cluster, then ~/.kube/config)" },
  apiVersion: { flag: "api-version", env: "SHIPLOG_API_VERSION", help: "service API version header (default 2026-03-10)" },
  httpHost: { flag: "http-host", env: "SHIPLOG_HTTP_HOST", help: "address of /healthz /readyz /metrics (default 0.0.0.0)" },
  httpPort: { flag: "http-port", env: "SHIPLOG_HTTP_PORT", help: "port of /healthz /readyz /metrics (default 8080; off disables)" },
  logLevel: { flag: "log-level", env: "SHIPLOG_LOG_LEVEL", help: "trace, debug, info, warn, error (default info)" },
  dryRun: { flag: "dry-run", env: "SHIPLOG_DRY_RUN", boolean: true, help: "compute and log, send nothing" },
  stateConfigMap: {
    flag: "state-configmap",
    env: "SHIPLOG_STATE_CONFIGMAP",
    help: "ConfigMap (in the pod namespace) keeping what the service acknowledged (default: memory only)",
  },
  stateMaxShards: {
    flag: "state-max-shards",
    env: "SHIPLOG_STATE_MAX_SHARDS",
    help: "most shard ConfigMaps the state may spread over, 1 to 64 (default 16: about 25,000 records each with its own digest per shard)",
  },
  leaseName: {
    flag: "lease-name",
    env: "SHIPLOG_LEASE_NAME",
    help: "Lease (in the pod namespace) for leader election; set it to run several replicas",
  },
  leaseDuration: {
    flag: "lease-duration",
    env: "SHIPLOG_LEASE_DURATION",
    help: "how long standbys wait on an unrenewed lease (default 15s)",
  },
  renewDeadline: {
    flag: "renew-deadline",
    env: "SHIPLOG_RENEW_DEADLINE",
    help: "the leader stops posting when it could not renew for this long (default 10s)",
  },
  retryPeriod: {
    flag: "retry-period",
    env: "SHIPLOG_RETRY_PERIOD",
    help: "interval of lease renewals and acquisition attempts (default 2s)",
  },
  readyWhenStandby: {
    flag: "ready-when-standby",
    env: "SHIPLOG_READY_WHEN_STANDBY",
    help: "whether /readyz answers 200 on a synced standby (default true)",
  },
  shutdownTimeout: {
    flag: "shutdown-timeout",
    env: "SHIPLOG_SHUTDOWN_TIMEOUT",
    help: "on SIGTERM, time to send what is pending before exiting (default 10s)",
  },
  podName: { flag: "pod-name", env: "POD_NAME", help: "identity in the Lease (default: host name and a random suffix)" },
  podNamespace: {
    flag: "pod-namespace",
    env: "POD_NAMESPACE",
    help: "namespace of the Lease and the state ConfigMap (default: the kubeconfig's)",
  },
} satisfies Record<string, Setting>;
