// Which credentials a command authenticates with: a token (SHIPLOG_TOKEN or a file), or App credentials (the App's
// id and private key file, and its installation, given or found from the organization the command names). Exactly
// one of the two; every mistake is a usage error naming the setting, made before anything is sent. Secrets are
// never options of their own and never appear in a message: a key or token is only ever read from a file or the
// environment.
import {
  APP_INSTALLATION_ID_PATTERN,
  BoundedFileError,
  CREDENTIAL_SETTINGS,
  MAX_SECRET_FILE_BYTES,
  readBoundedFile,
} from "@shiplog/client/internal";
import { UsageError } from "./cli-errors.js";

/** The options every command that talks to the service takes, beside `--api-url`. */
export interface CredentialOptions {
  tokenFile?: string;
  appId?: string;
  appPrivateKeyFile?: string;
  appInstallationId?: string;
}

/** Where a command finds its settings besides its options. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** App credentials as read: the key is the PEM text, checked by the client's App auth before any request. */
export interface AppCredentials {
  kind: "app";
  appId: string;
  privateKey: string;
  installationId?: number;
  /** The setting each value came from (`--app-id` or `SHIPLOG_APP_ID` ...), for messages. */
  settings: { appId: string; privateKeyFile: string; installationId: string };
}

export type Credentials = { kind: "token"; token: string } | AppCredentials | { kind: "none" };

/** One setting: its command-line flag and its environment variable. */
interface Setting {
  flag: string;
  env: string;
  option: keyof CredentialOptions;
}

/** The credential settings, named as every shiplog program names them (@shiplog/client's CREDENTIAL_SETTINGS). */
const SETTINGS = Object.fromEntries(
  (Object.keys(CREDENTIAL_SETTINGS) as (keyof typeof CREDENTIAL_SETTINGS)[]).map((option) => {
    const { flag, env } = CREDENTIAL_SETTINGS[option];
    return [option, { flag: `--${flag}`, env, option }];
  }),
) as Record<keyof typeof CREDENTIAL_SETTINGS, Setting>;

/** A setting's value and the name it was given by (the flag wins over the variable); empty counts as unset. */
function lookup(setting: Setting, options: CredentialOptions, env: Environment): { value: string; name: string } | undefined {
  const flagged = options[setting.option];
  if (flagged !== undefined && flagged.trim() !== "") return { value: flagged, name: setting.flag };
  const fromEnv = env[setting.env];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return { value: fromEnv, name: setting.env };
  return undefined;
}

/** How to name a setting that was not given: both its spellings. */
const either = (setting: Setting) => `${setting.flag} (or ${setting.env})`;

/**
 * A token or key file's text: a regular file of bounded size (the client's bounded-file rule), or a usage error
 * naming the setting and the rule. The path is quoted only when it cannot be the secret itself; a key or token
 * pasted where its file's path belongs is named as such, never echoed back.
 */
function readSettingFile(path: { value: string; name: string }, what: string): string {
  try {
    return readBoundedFile(path.value, { setting: path.name, holds: what, maxBytes: MAX_SECRET_FILE_BYTES, secret: true });
  } catch (error) {
    if (error instanceof BoundedFileError) throw new UsageError(error.message);
    throw error;
  }
}

/** A token as given, trimmed; white space inside (a line break, a space) is refused without showing the token. */
function checkedToken(text: string, setting: string): string {
  const token = text.trim();
  if (/\s/.test(token)) throw new UsageError(`${setting}: the token contains white space (a space or a line break) [rule: no whitespace]`);
  return token;
}

/** The credentials the settings give, or a usage error naming the settings to fix. */
export function readCredentials(options: CredentialOptions, env: Environment): Credentials {
  const tokenFile = lookup(SETTINGS.tokenFile, options, env);
  const tokenVariable = (env.SHIPLOG_TOKEN ?? "").trim() !== "" ? "SHIPLOG_TOKEN" : undefined;
  const appId = lookup(SETTINGS.appId, options, env);
  const keyFile = lookup(SETTINGS.appPrivateKeyFile, options, env);
  const installation = lookup(SETTINGS.appInstallationId, options, env);
  const appGiven = [appId, keyFile, installation].filter((s) => s !== undefined).map((s) => s.name);
  const tokenGiven = tokenFile?.name ?? tokenVariable;

  if (appGiven.length === 0) {
    if (tokenFile && tokenVariable) {
      // Which one would win is a guess either way: refused, not decided silently.
      throw new UsageError(
        `${tokenVariable} and ${tokenFile.name} are both set: give the token in one of them, not both [rule: one token source]`,
      );
    }
    if (tokenFile) return { kind: "token", token: checkedToken(readSettingFile(tokenFile, "the token"), tokenFile.name) };
    return tokenVariable ? { kind: "token", token: checkedToken(env.SHIPLOG_TOKEN!, tokenVariable) } : { kind: "none" };
  }
  if (tokenGiven) {
    throw new UsageError(
      `${tokenGiven} and ${appGiven.join(", ")} are both set: authenticate with a token or as an App, not both [rule: one of token or App]`,
    );
  }
  if (!appId || !keyFile) {
    const missing = [...(appId ? [] : [either(SETTINGS.appId)]), ...(keyFile ? [] : [either(SETTINGS.appPrivateKeyFile)])];
    throw new UsageError(
      `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} needed with ${appGiven.join(", ")}: ` +
        "an App authenticates with its id and its private key file",
    );
  }
  let installationId: number | undefined;
  if (installation) {
    if (!new RegExp(APP_INSTALLATION_ID_PATTERN).test(installation.value.trim())) {
      const got = JSON.stringify(installation.value);
      throw new UsageError(`${installation.name}: must be the installation's id, a positive whole number, got ${got}`);
    }
    installationId = Number(installation.value.trim());
  }
  return {
    kind: "app",
    appId: appId.value.trim(),
    privateKey: readSettingFile(keyFile, "the App's private key"),
    ...(installationId !== undefined && { installationId }),
    settings: {
      appId: appId.name,
      privateKeyFile: `${keyFile.name} ${JSON.stringify(keyFile.value)}`,
      installationId: either(SETTINGS.appInstallationId),
    },
  };
}
