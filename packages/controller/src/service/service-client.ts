// The controller's client for the service: the client's own engine (so HTTPS_PROXY / NO_PROXY apply), with the
// controller's needs added as plugins of its pipeline: leader fencing outermost, the rotating token as the auth
// strategy, and mutating calls sent one at a time behind the client's shared rate-limit gate.
import {
  appInstallationAuth,
  ShiplogClient,
  type ApiVersion,
  type AuthStrategy,
  type ClientOptions,
  type TransportClock,
  type TransportPlugin,
} from "@shiplog/client";
import type { Logger } from "pino";
import type { ClusterRecordsApi } from "../flush/batch-sender.js";
import { NotLeaderError, type LeadershipFence } from "../election/fence.js";
import { budgetPacer } from "../flush/budget-pacer.js";
import { systemClock, type Clock } from "../clock.js";
import type { ControllerConfig } from "../config/config.js";
import type { ControllerMetrics } from "../observability/metrics.js";
import { FileTokenSource, StaticTokenSource, type TokenSource } from "./token-source.js";
import type { WriteBudget } from "../flush/write-budget.js";

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
export function leaderFence(fence: LeadershipFence): TransportPlugin {
  return {
    name: "leader fence",
    before: () => {
      if (!fence.leading()) throw new NotLeaderError();
    },
  };
}

/**
 * The controller's auth strategy from its configuration: an App installation (tokens minted and renewed here, their
 * remaining lifetime exported as a metric) or the token source. Logs the mode once, never the secret.
 */
export function controllerAuth(
  config: ControllerConfig,
  tokens: TokenSource,
  logger: Logger,
  metrics: ControllerMetrics,
  clock: Pick<Clock, "now">,
): AuthStrategy {
  if (!config.app) {
    logger.info(
      { auth: "token", source: config.tokenFile ? "file" : "variable", tokenFile: config.tokenFile ?? null },
      "authenticating with an API token",
    );
    return tokenSourceAuth(tokens);
  }
  const { appId, installationId, privateKey, privateKeyFile } = config.app;
  const auth = appInstallationAuth({
    appId,
    privateKey,
    clock,
    ...(installationId !== undefined ? { installationId } : { org: config.org }),
    onToken: ({ installationId: id, expiresAt, reason }) =>
      logger.info(
        { auth: "app-installation", installationId: id, expiresAt: expiresAt.toISOString(), reason },
        "installation token minted",
      ),
  });
  metrics.watchTokenRemaining(() => {
    const at = auth.expiresAt?.getTime();
    return at === undefined ? undefined : at - clock.now();
  });
  logger.info(
    {
      auth: "app-installation",
      tokenKind: "app installation token",
      appId,
      installationId: installationId ?? `found from organization ${config.org}`,
      privateKeyFile,
    },
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

export interface ServiceClientOptions extends Omit<ClientOptions, "auth" | "token" | "clock"> {
  auth: AuthStrategy;
  /** Every HTTP attempt is fenced by leadership. */
  fence: LeadershipFence;
  logger: Logger;
  /** Send POST/PATCH/PUT/DELETE one at a time (the service's advice). Default true. */
  serializeMutations?: boolean;
  /** Every cluster call's attempt waits for a slot of this budget (outermost, so fencing is checked after the wait). */
  budget?: WriteBudget;
  /** The clock of the client's waits and of the budget's pacing. */
  clock?: TransportClock;
  /** Told when a cluster call's attempt takes its budget slot and leaves. */
  onBudgetCall?: () => void;
}

/** The controller's ShiplogClient: paced by the write budget, fenced, authenticated by its strategy, mutations serialised. */
export function createServiceClient(options: ServiceClientOptions): ShiplogClient {
  const { auth, fence, logger, serializeMutations, plugins, budget, clock, onBudgetCall, ...rest } = options;
  const serialize = serializeMutations ?? true;
  let client: ShiplogClient | undefined;
  const pacer = budget
    ? [
        budgetPacer({
          budget,
          clock: clock ?? systemClock,
          serialize,
          gateOpensAt: () => client?.transport.throttle.notBefore ?? 0,
          ...(onBudgetCall ? { onCall: onBudgetCall } : {}),
        }),
      ]
    : [];
  client = new ShiplogClient({
    ...rest,
    ...(clock ? { clock } : {}),
    auth,
    plugins: [...pacer, leaderFence(fence), tokenKindProbe(logger), ...(plugins ?? [])],
    throttle: { serializeMutations: serialize },
  });
  return client;
}

/** What the controller's cluster endpoint is built from, besides its configuration. */
export interface ControllerApiOptions {
  config: ControllerConfig;
  /** The user agent names the replica, so the service's logs tell replicas apart. */
  userAgent: string;
  logger: Logger;
  metrics: ControllerMetrics;
  fence: LeadershipFence;
  clock: Clock;
  budget: WriteBudget;
  onBudgetCall?: () => void;
}

/** The controller's cluster endpoint from its configuration: token or App auth, fencing, the budget's pacing, metrics. */
export function controllerApi(options: ControllerApiOptions): ClusterRecordsApi {
  const { config, logger, metrics } = options;
  const tokens = config.tokenFile ? new FileTokenSource(config.tokenFile, config.token, logger) : new StaticTokenSource(config.token);
  return createServiceClient({
    baseUrl: config.apiUrl,
    // Asked on every attempt, so a rotated token (a Secret updated in place, an installation token renewed) is used
    // without a restart.
    auth: controllerAuth(config, tokens, logger, metrics, options.clock),
    fence: options.fence,
    logger,
    serializeMutations: config.serializeWrites,
    apiVersion: config.apiVersion as ApiVersion,
    userAgent: options.userAgent,
    timeoutMs: config.requestTimeoutMs,
    retry: { retries: 2, minDelayMs: config.retryMinDelayMs, maxDelayMs: config.retryMaxDelayMs },
    budget: options.budget,
    clock: options.clock,
    ...(options.onBudgetCall ? { onBudgetCall: options.onBudgetCall } : {}),
    hooks: {
      onRetry: ({ reason }) => metrics.retries.inc({ reason }),
      onAuthRetry: ({ renewed }) => {
        if (renewed) logger.info("the service refused the token (401) and the token source holds another: retrying with it");
      },
      onRateLimited: ({ method, route, status, waitMs, secondary }) =>
        logger.warn({ method, route, status, waitMs, secondary }, "rate limited by the service: every call waits until the limit passes"),
    },
  }).artifacts;
}
