// The rules of the controller's settings that other checkers reuse (the Helm chart's values schema and template
// checks are generated from them by `pnpm chart:generate`): patterns, lengths, integer bounds and the least each
// duration may be. config/config.ts builds its parsers from these, so the controller and the chart cannot drift apart.
/** Patterns (anchored, in the syntax JavaScript and Go's RE2 share) of the settings checked by one regex. */
export const SETTING_PATTERNS = {
  org: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$",
  cluster: "^[a-zA-Z0-9._-]{1,128}$",
  appId: "^[A-Za-z0-9.]+$",
  appInstallationId: "^[1-9][0-9]{0,15}$",
  namespace: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
  registryHost: "^(off|[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*(:[0-9]{1,5})?)$",
  /**
   * The URLs @shiplog/client's serviceUrlProblem accepts, as one pattern for the chart (the controller runs that
   * function): https, or http to a loopback host; no query, fragment or credentials. A little stricter: lowercase
   * schemes only.
   */
  apiUrl: "^(https://[^\\s/?#@]+|http://(localhost|127(\\.[0-9]{1,3}){3}|\\[::1\\])(:[0-9]{1,5})?)(/[^\\s?#]*)?$",
  /** What parseDuration reads, less a number without a unit (other than 0); surrounding spaces are trimmed first. */
  duration: "^([0-9]+(\\.[0-9]+)?(ms|s|m|h)|0+(\\.0+)?)$",
} as const;

/** Most characters of the settings bounded by length. */
export const SETTING_MAX_LENGTHS = { logicalEnvironment: 128, physicalEnvironment: 128, namespace: 63 } as const;

/** The integer settings' bounds, inclusive. */
export const INTEGER_BOUNDS = {
  writeBudgetPerMinute: [1, 60_000],
  writeBudgetPerHour: [1, 3_600_000],
  batchSize: [1, 1000],
  concurrency: [1, 32],
  stateMaxShards: [1, 64],
} as const satisfies Record<string, readonly [number, number]>;

/** The least each duration setting may be, in ms; every duration is at most MAX_TIMER_MS (config/values.ts). */
export const DURATION_MINIMUMS = {
  flushWindow: 0,
  flushMaxWait: 1,
  writeMinInterval: 0,
  resyncInterval: 0,
  retryMinDelay: 1,
  retryMaxDelay: 1,
  requestTimeout: 100,
  watchTimeout: 1000,
  watchIdleTimeout: 100,
  leaseDuration: 1000,
  renewDeadline: 100,
  retryPeriod: 50,
  shutdownTimeout: 0,
} as const;
