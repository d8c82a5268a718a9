// The patterns and lengths of the controller's settings that other checkers reuse (the Helm chart's values schema is
// generated from them, through config/settings.ts, by `pnpm generate:settings`). Bounds of one setting alone (an
// integer's range, a duration's least value) are in its entry of config/settings.ts.
import { APP_ID_PATTERN, APP_INSTALLATION_ID_PATTERN } from "@shiplog/client/internal";

/** Patterns (anchored, in the syntax JavaScript and Go's RE2 share) of the settings checked by one regex. */
export const SETTING_PATTERNS = {
  org: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$",
  cluster: "^[a-zA-Z0-9._-]{1,128}$",
  appId: APP_ID_PATTERN,
  appInstallationId: APP_INSTALLATION_ID_PATTERN,
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
