// Controller configuration from environment variables and command-line flags (flags win), validated at start.
// Every setting is an entry of config/settings.ts, which gives its flag, variable, rule and default; this module reads
// them, checks the rules between settings, reads the credentials, and computes once what other modules derive from
// settings (the write budget's limits, the resync's share of it). Every problem is reported at once, naming the flag,
// the variable and the rule; the token is never echoed.
import { ShiplogError } from "@shiplog/client";
import { parseArgs } from "node:util";
import { z } from "zod";
import { BoundedFileError } from "@shiplog/client/internal";
import { readAppSettings } from "./app-settings.js";
import { readTokenFile } from "../service/token-source.js";
import { relationProblem } from "./setting-relations.js";
import {
  defaultText,
  type ParsedSettings,
  SETTING_RELATIONS,
  settingEntries,
  settingField,
  SETTINGS,
  type SettingName,
} from "./settings.js";
import { MAX_TIMER_MS, type ConfigIssue } from "./values.js";
import { resyncCallsPerHour, resyncCallsPerInterval, type WriteBudgetLimits } from "../flush/write-budget.js";

export { MAX_TIMER_MS, parseDuration, type ConfigIssue } from "./values.js";
export { SETTINGS } from "./settings.js";

/** The validated configuration: every setting's value (config/settings.ts), the credentials, and what is computed from them. */
export interface ControllerConfig extends Omit<ParsedSettings, "appId" | "appInstallationId" | "appPrivateKeyFile" | "watchIdleTimeoutMs"> {
  /** The token as read at start (empty with `app`); with `tokenFile` the controller reads the file again when it changes. */
  token: string;
  /** App installation auth, instead of a token. */
  app?: { appId: string; installationId?: number; privateKeyFile: string; privateKey: string };
  /** Restart a watch silent this long (default: the watch timeout + 30 s, within a timer's limit). */
  watchIdleTimeoutMs: number;
  /** The watch timeout in whole seconds, as the API server takes it (at least 1). */
  watchTimeoutSeconds: number;
  /** The write budget's limits (flush/write-budget.ts), from the three write-budget settings. */
  writeBudget: Required<WriteBudgetLimits>;
  /** Calls the resync may make in an hour: its share of the hourly budget. */
  resyncCallsPerHour: number;
  /** Records one resync interval's slice may resend: its calls within the share, times the batch size. */
  resyncSliceRecords: number;
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

/** Each setting's parser: its type's, with its default, or optional unless required. */
const schema = z.object(
  Object.fromEntries(
    settingEntries().map(([name, s]) => {
      const parser = s.type.parser;
      return [name, s.default !== undefined ? parser.default(s.default) : s.required ? parser : parser.optional()];
    }),
  ),
);

/** Usage text listing every flag and variable, with its default. */
export function usage(): string {
  const lines = settingEntries().map(([, s]) => {
    // Numbers show their bounds; other rules are the help's words, and the refusal names them in full.
    const parts = [
      ...(s.type.kind === "integer" || s.type.kind === "number" ? [s.type.rule] : []),
      ...(s.required ? ["required"] : []),
      ...(s.defaultText !== undefined ? [`default: ${s.defaultText}`] : s.default !== undefined ? [`default ${defaultText(s)}`] : []),
    ];
    return `  --${s.flag.padEnd(26)} ${s.env.padEnd(34)} ${s.help}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
  });
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
  for (const [, setting] of settingEntries()) options[setting.flag] = { type: setting.switch ? "boolean" : "string" };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    const reason = (error as Error).message.split(". ")[0];
    throw new ConfigError([{ field: "arguments", rule: "known flags", message: `${reason}; see --help for every flag` }]);
  }

  const raw: Record<string, string> = {};
  const fieldName = settingField;
  for (const [name, setting] of settingEntries()) {
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
    const c = parsed.data as ParsedSettings;
    for (const relation of SETTING_RELATIONS) {
      const problem = relationProblem(relation, c);
      if (problem !== undefined) issues.push({ field: relation.fields.map(fieldName).join(", "), rule: relation.rule, message: problem });
    }
  }
  if (issues.length > 0 || !parsed.success || token === undefined) throw new ConfigError(issues);

  const { appId, appInstallationId, appPrivateKeyFile: _keyFile, watchIdleTimeoutMs, ...settings } = parsed.data as ParsedSettings;
  const writeBudget = {
    perMinute: settings.writeBudgetPerMinute,
    perHour: settings.writeBudgetPerHour,
    minIntervalMs: settings.writeMinIntervalMs,
  };
  const config: ControllerConfig = {
    ...settings,
    token,
    watchTimeoutSeconds: Math.max(1, Math.round(settings.watchTimeoutMs / 1000)),
    // The default idle timeout must fit a timer too.
    watchIdleTimeoutMs: watchIdleTimeoutMs ?? Math.min(MAX_TIMER_MS, settings.watchTimeoutMs + 30_000),
    writeBudget,
    resyncCallsPerHour: resyncCallsPerHour(writeBudget, settings.resyncBudgetShare),
    resyncSliceRecords: resyncCallsPerInterval(writeBudget, settings.resyncBudgetShare, settings.resyncIntervalMs) * settings.batchSize,
  };
  if (app !== undefined && appId !== undefined) {
    config.app = { appId, privateKeyFile: app.privateKeyFile, privateKey: app.privateKey };
    if (appInstallationId !== undefined) config.app.installationId = appInstallationId;
  }
  return config;
}

/** The configuration with the token masked, for logs. */
export function redactedConfig(config: ControllerConfig): Omit<ControllerConfig, "token"> & { token: "[redacted]" } {
  const { app, ...rest } = config;
  return { ...rest, token: "[redacted]", ...(app && { app: { ...app, privateKey: "[redacted]" } }) };
}
