// Every configuration the controller's config tests expect it to refuse at start, as one table: which variables are
// set (beside a valid base), and the field and rule the controller's issue names. config.test.ts and
// config-auth.test.ts check the controller against it; test/chart-validation.integration.test.ts renders each case through the
// Helm chart, which must refuse it first.
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Placeholders for files, made real by `materialize` (the chart mounts its own files, from Secrets). */
export const FILES = {
  keyFile: "<the App's private key file>",
  notPem: "<a file holding no PEM key>",
  missingKey: "<a missing key file>",
  tokenFile: "<a token file>",
  missingToken: "<a missing token file>",
} as const;

/** One refused configuration. */
export interface RefusedCase {
  /** The test file whose case it is. */
  source: "config.test.ts" | "config-auth.test.ts";
  /** Variables beside the base (org, cluster, stage, and a token unless `noToken`); "" unsets a base variable. */
  env: Record<string, string>;
  /** Command-line arguments, for the cases only a flag can make. */
  argv?: string[];
  /** Without the base's token (the App and authentication cases). */
  noToken?: boolean;
  /** The field and rule of the issue the controller reports (it may report others too). */
  field: string;
  rule: string;
}

const field = (flag: string, env: string) => `--${flag} / ${env}`;
const durations: [string, string][] = [
  ["flush-window", "SHIPLOG_FLUSH_WINDOW"],
  ["flush-max-wait", "SHIPLOG_FLUSH_MAX_WAIT"],
  ["write-min-interval", "SHIPLOG_WRITE_MIN_INTERVAL"],
  ["resync-interval", "SHIPLOG_RESYNC_INTERVAL"],
  ["retry-min-delay", "SHIPLOG_RETRY_MIN_DELAY"],
  ["retry-max-delay", "SHIPLOG_RETRY_MAX_DELAY"],
  ["request-timeout", "SHIPLOG_REQUEST_TIMEOUT"],
  ["watch-timeout", "SHIPLOG_WATCH_TIMEOUT"],
  ["watch-idle-timeout", "SHIPLOG_WATCH_IDLE_TIMEOUT"],
  ["lease-duration", "SHIPLOG_LEASE_DURATION"],
  ["renew-deadline", "SHIPLOG_RENEW_DEADLINE"],
  ["retry-period", "SHIPLOG_RETRY_PERIOD"],
  ["shutdown-timeout", "SHIPLOG_SHUTDOWN_TIMEOUT"],
];
const LEASE_FIELDS = [
  field("lease-duration", "SHIPLOG_LEASE_DURATION"),
  field("renew-deadline", "SHIPLOG_RENEW_DEADLINE"),
  field("retry-period", "SHIPLOG_RETRY_PERIOD"),
].join(", ");

const config = (env: Record<string, string>, f: string, rule: string, more: Partial<RefusedCase> = {}): RefusedCase => ({
  source: "config.test.ts",
  env,
  field: f,
  rule,
  ...more,
});
const auth = (env: Record<string, string>, f: string, rule: string): RefusedCase => ({
  source: "config-auth.test.ts",
  env,
  noToken: true,
  field: f,
  rule,
});

export const REFUSED: RefusedCase[] = [
  config({ SHIPLOG_LEASE_DURATION: "10s", SHIPLOG_RETRY_PERIOD: "9s" }, LEASE_FIELDS, "lease timing"),
  // client-go's jitter factor, at its edge: 2.4s is not longer than 1.2 × 2s.
  config({ SHIPLOG_RENEW_DEADLINE: "2.4s", SHIPLOG_RETRY_PERIOD: "2s" }, LEASE_FIELDS, "lease timing"),
  config({ SHIPLOG_LEASE_NAME: "Not_A_Name" }, field("lease-name", "SHIPLOG_LEASE_NAME"), "invalid_format"),
  config({ SHIPLOG_STATE_MAX_SHARDS: "0" }, field("state-max-shards", "SHIPLOG_STATE_MAX_SHARDS"), "integer 1..64"),
  config({ SHIPLOG_STATE_CONFIGMAP: "s".repeat(243) }, field("state-configmap", "SHIPLOG_STATE_CONFIGMAP"), "at most 242 characters"),
  config({ SHIPLOG_TOKEN: "", SHIPLOG_TOKEN_FILE: FILES.missingToken }, field("token-file", "SHIPLOG_TOKEN_FILE"), "existing file"),
  config({ SHIPLOG_BATCH_SIZE: "1001" }, field("batch-size", "SHIPLOG_BATCH_SIZE"), "integer 1..1000"),
  config({ SHIPLOG_FLUSH_WINDOW: "soon" }, field("flush-window", "SHIPLOG_FLUSH_WINDOW"), "duration"),
  config({ SHIPLOG_WRITE_MIN_INTERVAL: "often" }, field("write-min-interval", "SHIPLOG_WRITE_MIN_INTERVAL"), "duration"),
  config(
    { SHIPLOG_DEPLOYMENT_NAME_TEMPLATE: "{namespace}-{pod}" },
    field("deployment-name-template", "SHIPLOG_DEPLOYMENT_NAME_TEMPLATE"),
    "known placeholders",
  ),
  config(
    { SHIPLOG_DEPLOYMENT_NAME_TEMPLATE: "{namespace}-{pod}" },
    field("deployment-name-template", "SHIPLOG_DEPLOYMENT_NAME_TEMPLATE"),
    "contains {workload}",
  ),
  config({ SHIPLOG_CLUSTER: "bad name" }, field("cluster", "SHIPLOG_CLUSTER"), "invalid_format"),
  config({ SHIPLOG_ORG: "" }, field("org", "SHIPLOG_ORG"), "invalid_type"),
  config({ SHIPLOG_LOG_FORMAT: "xml" }, field("log-format", "SHIPLOG_LOG_FORMAT"), "invalid_value"),
  config({ SHIPLOG_FLUSH_WINDOW: "2s", SHIPLOG_FLUSH_MAX_WAIT: "1s" }, field("flush-max-wait", "SHIPLOG_FLUSH_MAX_WAIT"), "≥ flush-window"),
  config(
    { SHIPLOG_RETRY_MIN_DELAY: "10s", SHIPLOG_RETRY_MAX_DELAY: "5s" },
    field("retry-max-delay", "SHIPLOG_RETRY_MAX_DELAY"),
    "≥ retry-min-delay",
  ),
  config({}, "arguments", "known flags", { argv: ["--tokn", "x"] }),
  config(
    { SHIPLOG_NAMESPACES: "a", SHIPLOG_EXCLUDE_NAMESPACES: "a" },
    field("exclude-namespaces", "SHIPLOG_EXCLUDE_NAMESPACES"),
    "disjoint from namespaces",
  ),
  config({ SHIPLOG_FLUSH_WINDOW: "5" }, field("flush-window", "SHIPLOG_FLUSH_WINDOW"), "duration with a unit"),
  ...[",,", "a,,b", "a,"].map((list) => config({ SHIPLOG_NAMESPACES: list }, field("namespaces", "SHIPLOG_NAMESPACES"), "no empty names")),
  config({ SHIPLOG_TOKEN_FILE: FILES.tokenFile }, "SHIPLOG_TOKEN, --token-file / SHIPLOG_TOKEN_FILE", "one token source"),
  ...["https://api.example/?x=1", "https://api.example/#f", "https://api.example/api?"].map((url) =>
    config({ SHIPLOG_API_URL: url }, field("api-url", "SHIPLOG_API_URL"), "no query or fragment"),
  ),
  ...["tier in (a", "!!!", "a b", "Bad_Prefix/app=x"].map((selector) =>
    config({ SHIPLOG_LABEL_SELECTOR: selector }, field("label-selector", "SHIPLOG_LABEL_SELECTOR"), "label selector syntax"),
  ),
  ...durations.map(([flag, env]) => config({ [env]: "1000h" }, field(flag, env), "maximum 2147483647ms")),
  config(
    { SHIPLOG_API_URL: "https://robot:hunter2-secret@api.service.example" },
    field("api-url", "SHIPLOG_API_URL"),
    "no credentials in the URL",
  ),
  config({ SHIPLOG_API_URL: "not a url" }, field("api-url", "SHIPLOG_API_URL"), "absolute http(s) URL"),
  ...["http://service.example.com", "http://10.0.0.5:8080", "http://127.0.0.1.example.com", "http://web.localhost"].map((url) =>
    config({ SHIPLOG_API_URL: url }, field("api-url", "SHIPLOG_API_URL"), "https unless loopback"),
  ),
  {
    ...auth(
      { SHIPLOG_TOKEN: "ghs_x", SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: FILES.keyFile },
      "SHIPLOG_TOKEN / --token-file / SHIPLOG_TOKEN_FILE, --app-id / SHIPLOG_APP_ID",
      "one of token or App",
    ),
  },
  auth({ SHIPLOG_APP_ID: "123456" }, field("app-private-key-file", "SHIPLOG_APP_PRIVATE_KEY_FILE"), "required with an App"),
  auth({ SHIPLOG_APP_PRIVATE_KEY_FILE: FILES.keyFile }, field("app-id", "SHIPLOG_APP_ID"), "required with an App"),
  auth(
    { SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: FILES.notPem },
    field("app-private-key-file", "SHIPLOG_APP_PRIVATE_KEY_FILE"),
    "PEM RSA private key",
  ),
  auth(
    { SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: FILES.missingKey },
    field("app-private-key-file", "SHIPLOG_APP_PRIVATE_KEY_FILE"),
    "existing file",
  ),
  auth({ SHIPLOG_APP_ID: "12 34", SHIPLOG_APP_PRIVATE_KEY_FILE: FILES.keyFile }, field("app-id", "SHIPLOG_APP_ID"), "invalid_format"),
  auth({}, "SHIPLOG_TOKEN / --token-file", "required"),
];

/** The valid base of every case. */
export const BASE_ENV = {
  SHIPLOG_TOKEN: "ghs_secret_token_value",
  SHIPLOG_ORG: "acme",
  SHIPLOG_CLUSTER: "prod-eu",
  SHIPLOG_LOGICAL_ENVIRONMENT: "production",
};

/** A case's environment, its file placeholders made real files in `dir` (the PEM key is written once per dir). */
export function materialize(c: RefusedCase, dir: string): Record<string, string> {
  const { SHIPLOG_TOKEN: _token, ...base } = BASE_ENV;
  const env: Record<string, string> = { ...(c.noToken ? base : BASE_ENV), ...c.env };
  const files: Record<string, () => string | undefined> = {
    [FILES.keyFile]: () =>
      generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    [FILES.notPem]: () => "not a key\n",
    [FILES.tokenFile]: () => "file_token\n",
    [FILES.missingKey]: () => undefined,
    [FILES.missingToken]: () => undefined,
  };
  for (const [name, value] of Object.entries(env)) {
    const content = files[value];
    if (!content) continue;
    const path = join(dir, value.replace(/[^a-z]+/gi, "-"));
    const text = content();
    if (text !== undefined) writeFileSync(path, text);
    env[name] = path;
  }
  return env;
}
