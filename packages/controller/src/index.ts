// The public surface of @shiplog/controller, for embedding it (the process entry is main.ts, bin
// `shiplog-controller`): the controller, its configuration parser, the health server and the errors a caller meets.
// Pieces shiplog's own tests and benchmarks reach into are at `@shiplog/controller/internal`.
export { Controller, StateNotLoadedError, type ControllerOptions, type ControllerStatus, type FlushSummary } from "./controller.js";
export { CONTROLLER_VERSION } from "./version.js";
export { loadConfig, redactedConfig, ConfigError, type ConfigIssue, type ControllerConfig } from "./config.js";
export { StartupError, type StartupErrorCode } from "./startup-error.js";
export { loadKubeConfig, type KubeConfigSources } from "./kube-config-loader.js";
export { startHealthServer, type HealthServer } from "./health-server.js";
export {
  InMemoryAcknowledgedStore,
  type AcknowledgedRecord,
  type AcknowledgedStore,
  type PersistOptions,
} from "./acknowledged-state.js";
export type { ClusterRecordsApi } from "./batch-sender.js";
export { ControllerMetrics } from "./metrics.js";
export type { Clock } from "./clock.js";
export type { DesiredState, NameConflict } from "./desired-state.js";
