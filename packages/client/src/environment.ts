// The one environment convention of shiplog's library, command line and controller: the service's URL, and a token
// or an App's credentials. The client never reads the environment by itself; `ShiplogClient.fromEnv(env)` (or
// `clientOptionsFromEnv`) reads it when asked, from the object it is given.
import { appInstallationAuth } from "./app-installation-auth.js";
import { BoundedFileError, readBoundedFile } from "./bounded-file.js";
import { RequestValidationError } from "./errors/errors.js";
import { serviceUrlProblem } from "./transport/loopback.js";
import type { ClientOptions } from "./client-options.js";

/** The variables shiplog reads, by what they hold. An empty variable counts as unset. */
export const ENVIRONMENT_VARIABLES = {
  /** The service's REST API base URL (default: the public service). */
  apiUrl: "SHIPLOG_API_URL",
  /** A token, sent as `Authorization: Bearer`. */
  token: "SHIPLOG_TOKEN",
  /** A file holding the token (its final newline ignored); wins over SHIPLOG_TOKEN. */
  tokenFile: "SHIPLOG_TOKEN_FILE",
  /** An App's id (or client id): authenticate as its installation instead of with a token. */
  appId: "SHIPLOG_APP_ID",
  /** The App's private key, a PEM file. */
  appPrivateKeyFile: "SHIPLOG_APP_PRIVATE_KEY_FILE",
  /** The App's installation; else the one on SHIPLOG_ORG. */
  appInstallationId: "SHIPLOG_APP_INSTALLATION_ID",
  /** The organization (the controller's and the CLI's default; where an App's installation is looked for). */
  org: "SHIPLOG_ORG",
} as const;

export type Environment = Readonly<Record<string, string | undefined>>;

const OPERATION = "ShiplogClient.fromEnv";

function refuse(variable: string, rule: string, message: string): never {
  throw new RequestValidationError(OPERATION, [{ field: variable, rule, message }]);
}

/** A variable's value, trimmed; empty is unset. */
function read(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** Most bytes a token or key file may hold (a 4096-bit RSA key in PEM is about 3.3 KiB). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** A file a variable names, under the bounded-file rule; the path is quoted only when it cannot be the secret itself. */
function readFileOf(env: Environment, name: string, what: string): string {
  try {
    return readBoundedFile(env[name]!.trim(), { setting: name, holds: what, maxBytes: MAX_SECRET_FILE_BYTES, secret: true });
  } catch (error) {
    if (error instanceof BoundedFileError) refuse(name, error.rule, error.detail);
    throw error;
  }
}

/**
 * The client options the environment gives: `baseUrl` from SHIPLOG_API_URL, and a token (SHIPLOG_TOKEN_FILE, else
 * SHIPLOG_TOKEN) or an App installation (SHIPLOG_APP_ID and SHIPLOG_APP_PRIVATE_KEY_FILE, with
 * SHIPLOG_APP_INSTALLATION_ID or SHIPLOG_ORG). `options` win: a `baseUrl`, `token` or `auth` given there is used and
 * the variable for it is not read. A token and App settings together, half an App, an unreadable file, or a URL the
 * token must not go to (not https, unless loopback; `user:password@`) is a `RequestValidationError` naming the
 * variable; no message shows a token, a key or the URL.
 */
export function clientOptionsFromEnv(env: Environment = process.env, options: ClientOptions = {}): ClientOptions {
  const V = ENVIRONMENT_VARIABLES;
  const baseUrl = options.baseUrl ?? read(env, V.apiUrl);
  let credentials: Pick<ClientOptions, "token" | "auth" | "tokenInfo"> = {};
  if (options.token === undefined && options.auth === undefined) {
    const app = [V.appId, V.appPrivateKeyFile, V.appInstallationId].filter((name) => read(env, name) !== undefined);
    const token = [V.tokenFile, V.token].find((name) => read(env, name) !== undefined);
    if (token && app.length > 0) {
      refuse(token, "a token or an App", `${token} and ${app.join(", ")} are both set: authenticate with a token or as an App, not both`);
    }
    if (token) {
      const value = token === V.tokenFile ? readFileOf(env, V.tokenFile, "a token").trim() : read(env, V.token)!;
      if (value === "") refuse(V.tokenFile, "not empty", "the file is empty: put the token in it");
      credentials = { token: value };
    } else if (app.length > 0) {
      const appId = read(env, V.appId);
      if (!appId || !read(env, V.appPrivateKeyFile)) {
        const missing = appId ? V.appPrivateKeyFile : V.appId;
        refuse(
          missing,
          "required with an App",
          `is needed with ${app.join(", ")}: an App authenticates with its id and its private key file`,
        );
      }
      const installation = read(env, V.appInstallationId);
      if (installation !== undefined && !/^[1-9]\d{0,15}$/.test(installation)) {
        refuse(V.appInstallationId, "a positive whole number", `must be the installation's id, a positive whole number`);
      }
      const org = read(env, V.org);
      if (installation === undefined && org === undefined) {
        refuse(
          V.appInstallationId,
          "required with an App",
          `or ${V.org} is needed: the installation to act as, or the organization it is on`,
        );
      }
      const auth = appInstallationAuth({
        appId,
        privateKey: readFileOf(env, V.appPrivateKeyFile, "a key"),
        ...(installation !== undefined ? { installationId: Number(installation) } : { org: org! }),
      });
      credentials = { auth, tokenInfo: { type: "app_installation" } };
    }
  }
  // The token goes to this URL: https unless loopback, and no user:password@ (the rule of the CLI and the controller).
  const sendsCredentials =
    credentials.token !== undefined || credentials.auth !== undefined || options.token !== undefined || options.auth !== undefined;
  if (baseUrl !== undefined && options.baseUrl === undefined) {
    const problem = serviceUrlProblem(baseUrl);
    if (problem && (sendsCredentials || problem.rule !== "https unless loopback")) refuse(V.apiUrl, problem.rule, problem.message);
  }
  return { ...credentials, ...options, ...(baseUrl !== undefined && { baseUrl }) };
}
