import {
  RequestValidationError,
  ShiplogClient,
  appInstallationAuth,
  serviceUrlProblem,
  type AuthStrategy,
  type TransportHooks,
} from "@shiplog/client";
import { UsageError } from "./cli-errors.js";
import { readCredentials, type AppCredentials, type CredentialOptions, type Credentials, type Environment } from "./credentials.js";

/** The options every command that talks to the service takes. */
export interface ConnectionOptions extends CredentialOptions {
  apiUrl?: string;
}

/** What a command names, so an App finds its installation and a 404 says what may not exist. */
export interface CommandScope {
  /** The organization (or repository owner) the command acts in. */
  org?: string;
  /** What a 404 would be about, in words: `repository acme/web`, `thread 42`. */
  subject?: string;
}

/** The scope of a command on an organization. */
export const orgScope = (org: string): CommandScope => ({ org, subject: `organization ${org}` });

/** The scope of a command on a repository: its owner is where an App's installation is looked for. */
export const repositoryScope = (r: { owner: string; repo: string }): CommandScope => ({
  org: r.owner,
  subject: `repository ${r.owner}/${r.repo}`,
});

/** A client and how it authenticates. */
export interface Connection {
  client: ShiplogClient;
  credentials: Credentials["kind"];
}

/** The App's installation auth, or a usage error naming the setting the client's checks refused. */
function appAuth(app: AppCredentials, scope: CommandScope, command: string): AuthStrategy {
  if (app.installationId === undefined && !scope.org) {
    throw new UsageError(
      `${app.settings.installationId} is needed here: ${command} names no organization to find the App's installation in`,
    );
  }
  const where = app.installationId !== undefined ? { installationId: app.installationId } : { org: scope.org! };
  try {
    return appInstallationAuth({ appId: app.appId, privateKey: app.privateKey, ...where });
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    // The client names its own fields; the user knows the settings. Its messages never quote the key.
    const setting = { appId: app.settings.appId, privateKey: app.settings.privateKeyFile, installationId: app.settings.installationId };
    const issue = error.issues[0]!;
    throw new UsageError(`${setting[issue.field as keyof typeof setting] ?? issue.field}: ${issue.message} [rule: ${issue.rule}]`);
  }
}

/** A client for the service named by `--api-url` (or SHIPLOG_API_URL), with the token or the App's credentials. */
export function connect(
  options: ConnectionOptions,
  env: Environment,
  userAgent: string,
  scope: CommandScope,
  command: string,
  hooks?: TransportHooks,
): Connection {
  const baseUrl = options.apiUrl ?? env.SHIPLOG_API_URL;
  // The token goes to this URL: the rule the action and the controller apply (https unless loopback, no user:password@).
  const problem = baseUrl ? serviceUrlProblem(baseUrl) : undefined;
  if (problem) throw new UsageError(`${options.apiUrl === undefined ? "SHIPLOG_API_URL" : "--api-url"}: ${problem.message}`);
  const credentials = readCredentials(options, env);
  const auth =
    credentials.kind === "token"
      ? { token: credentials.token }
      : credentials.kind === "app"
        ? {
            auth: appAuth(credentials, scope, command),
            // An installation token's type is known: a call it cannot make (the inbox) is refused before it is sent.
            tokenInfo: { type: "app_installation" as const },
          }
        : {};
  try {
    const client = new ShiplogClient({ ...(baseUrl && { baseUrl }), ...auth, userAgent, ...(hooks && { hooks }) });
    return { client, credentials: credentials.kind };
  } catch (error) {
    // The client refuses a bad base URL before anything is sent: that is the user's --api-url.
    const message = error instanceof Error ? error.message.split("\n").join("; ") : String(error);
    throw new UsageError(`--api-url: ${message.replace(/^.*?baseUrl:?\s*/, "")}`);
  }
}
