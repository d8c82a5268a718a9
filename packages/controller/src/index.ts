// The public surface of @shiplog/controller, for embedding it (the process entry is main.ts, bin
// `shiplog-controller`): the controller, its configuration parser, the health server and the errors a caller meets.
// Pieces shiplog's own tests and benchmarks reach into are at `@shiplog/controller/internal`.
export { buildController, type ControllerOptions } from "./build-controller.js";
export { Controller, StateNotLoadedError, type ControllerStatus, type FlushSummary } from "./controller.js";
export { CONTROLLER_VERSION } from "./version.js";
export { loadConfig, redactedConfig, ConfigError, type ConfigIssue, type ControllerConfig } from "./config/config.js";
export { StartupError, type StartupErrorCode } from "./config/startup-error.js";
export { loadKubeConfig, type KubeConfigSources } from "./kube/config-loader.js";
export { startHealthServer, type HealthServer } from "./observability/health-server.js";
export {
  InMemoryAcknowledgedStore,
  type AcknowledgedRecord,
  type AcknowledgedStore,
  type PersistOptions,
} from "./state/acknowledged-state.js";
export type { ClusterRecordsApi } from "./flush/batch-sender.js";
export { ControllerMetrics } from "./observability/metrics.js";
export type { Clock } from "./clock.js";
export type { DesiredState, NameConflict } from "./mapping/desired-state.js";
