// The controller's client for the service: the client's own engine (so HTTPS_PROXY / NO_PROXY apply), with the
// controller's needs added as plugins of its pipeline: leader fencing outermost, the rotating token as the auth
// strategy, and mutating calls sent one at a time behind the client's shared rate-limit gate.
import { appInstallationAuth, ShiplogClient, type AuthStrategy, type ClientOptions, type TransportPlugin } from "@shiplog/client";
import type { Logger } from "pino";
import { NotLeaderError } from "./batch-sender.js";
import type { ControllerConfig } from "./config.js";
import type { ControllerMetrics } from "./metrics.js";
import type { TokenSource } from "./token-source.js";

/** What an operator is told, in one line, when the token is a classic one (the chart's README and NOTES say the same). */
export const CLASSIC_TOKEN_REFUSED =
  "the API token is a personal access token (classic), which the artifact-metadata endpoints refuse: use a fine-grained " +
  "personal access token or an App installation, with the Artifact metadata permission (write) on every repository the controller records";

/**
 * The token source as an auth strategy: read on every attempt (a file is re-read when it changes), and read again
 * after a 401, in case the token was replaced without the file's stamp showing it.
 */
export function tokenSourceAuth(tokens: TokenSource): AuthStrategy {
  return {
    kind: "token",
    authorization: () => `Bearer ${tokens.current()}`,
    invalidate: () => tokens.refresh(),
  };
}

/** Fencing at the lowest level: no HTTP attempt (a client retry or a token renewal included) leaves unless leading. */
export function leaderFence(mayPost: () => boolean): TransportPlugin {
  return {
    name: "leader fence",
    before: () => {
      if (!mayPost()) throw new NotLeaderError();
    },
  };
}

/**
 * The controller's auth strategy from its configuration: an App installation (tokens minted and renewed here, their
 * remaining lifetime exported as a metric) or the token source. Logs the mode once, never the secret.
 */
export function controllerAuth(config: ControllerConfig, tokens: TokenSource, logger: Logger, metrics: ControllerMetrics): AuthStrategy {
  if (!config.app) {
    logger.info({ auth: "token", source: config.tokenFile ? "file" : "variable", tokenFile: config.tokenFile ?? null }, "authenticating with an API token");
    return tokenSourceAuth(tokens);
  }
  const { appId, installationId, privateKey, privateKeyFile } = config.app;
  const auth = appInstallationAuth({
    appId,
    privateKey,
    ...(installationId !== undefined ? { installationId } : { org: config.org }),
    onToken: ({ installationId: id, expiresAt, reason }) =>
      logger.info({ auth: "app-installation", installationId: id, expiresAt: expiresAt.toISOString(), reason }, "installation token minted"),
  });
  metrics.watchTokenExpiry(() => auth.expiresAt?.getTime());
  logger.info(
    { auth: "app-installation", tokenKind: "app installation token", appId, installationId: installationId ?? `found from organization ${config.org}`, privateKeyFile },
    "authenticating as an App installation",
  );
  return auth;
}

/**
 * Looks at the first answer once: a classic token shows itself by `X-OAuth-Scopes`, and cannot work here, which
 * the operator is told in one line.
 */
export function tokenKindProbe(logger: Logger): TransportPlugin {
  let seen = false;
  return {
    name: "token kind probe",
    after(response) {
      if (seen || response.status === 401) return;
      seen = true;
      if (response.headers.has("x-oauth-scopes")) logger.error({ tokenKind: "classic" }, CLASSIC_TOKEN_REFUSED);
      else logger.info({ tokenKind: "fine-grained or App token" }, "API token kind");
    },
  };
}

export interface ServiceClientOptions extends Omit<ClientOptions, "auth" | "token"> {
  auth: AuthStrategy;
  mayPost: () => boolean;
  logger: Logger;
  /** Send POST/PATCH/PUT/DELETE one at a time (the service's advice). Default true. */
  serializeMutations?: boolean;
}

/** The controller's ShiplogClient: fenced, authenticated by its strategy, mutations serialised by default. */
export function createServiceClient(options: ServiceClientOptions): ShiplogClient {
  const { auth, mayPost, logger, serializeMutations, plugins, ...rest } = options;
  return new ShiplogClient({
    ...rest,
    auth,
    plugins: [leaderFence(mayPost), tokenKindProbe(logger), ...(plugins ?? [])],
    throttle: { serializeMutations: serializeMutations ?? true },
  });
}
