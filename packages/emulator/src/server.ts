import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { API_VERSIONS, type TransportClock } from "@shiplog/client";
import { AccessControl, acceptedPermissionsHeader, authenticate, decideAccess, type Principal } from "./access-control.js";
import { AppRegistry, type AppSettings } from "./app-registry.js";
import { registerAppRoutes } from "./routes/apps.js";
import { APP_JWT_ROUTES } from "./routes/route-table.js";
import { ArtifactStore } from "./artifact-store.js";
import { Clock } from "./clock.js";
import type { EmulatorContext, EmulatorState } from "./emulator-context.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { FaultInjector } from "./fault-injection.js";
import { GitStore } from "./git-store.js";
import { defaultFixture, fixtureSchema, type Fixture, type FixtureInput } from "./fixture.js";
import { ANONYMOUS_RATE_LIMIT, RateLimits } from "./rate-limits.js";
import { EXPOSED_HEADERS, PREFLIGHT_ROUTE, registerPreflight } from "./cors.js";
import { RATE_LIMIT_ROUTE, registerRateLimitRoute } from "./routes/rate-limit.js";
import { USER_ACCESS_RULE, USER_ROUTE, registerUserRoute } from "./routes/user.js";
import { SecondaryRateLimits, type SecondaryLimitSettings } from "./secondary-rate-limits.js";
import { applySecondaryRateLimits, sendSecondaryRateLimit } from "./secondary-rate-limit-answer.js";
import { RequestLog } from "./request-log.js";
import { registerArtifactMetadataRoutes } from "./routes/artifact-metadata.js";
import { registerGitRoutes } from "./routes/git.js";
import { registerSourceImportRoutes } from "./routes/source-imports.js";
import { SourceImportStore } from "./import-store.js";
import { sendError } from "./service-errors.js";
import { checkRequest, requireObjectBody } from "./request-checks.js";
import { startAdminApi } from "./admin-api.js";
import { readBodiesAsJson } from "./json-body-parser.js";
import { matrixAccessRule, uncoveredRoute } from "./permission-rules.js";
import { ActivityGenerator } from "./activity-generator.js";
import { EventFeeds } from "./event-feeds.js";
import { IssueEventStore } from "./issue-event-store.js";
import { NotificationStore } from "./notification-store.js";
import { registerActivityRoutes } from "./routes/activity.js";
import { registerIssueEventRoutes } from "./routes/issue-events.js";
import { registerNotificationRoutes } from "./routes/notifications.js";

/** The version answered when a request names none (the service's long-standing default). */
export const DEFAULT_REQUEST_API_VERSION = "2022-11-28";

export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Default 127.0.0.1: the emulator is for loopback use. */
  host?: string;
  /**
   * The time the emulator reads and waits on (shiplog's one clock interface, the client's `TransportClock`); default
   * the real one. A test's virtual clock drives the emulator's windows, expiries, timers and injected latency with
   * no real waits. An emulator `Clock` is used as it is (to start at a chosen time, or to share one clock between
   * the emulator and other doubles: `new Clock()`, then `set`, `advance`, `reset`); any other clock becomes the
   * source of a new `Clock`, `emulator.clock`, which moves it on from there.
   */
  clock?: TransportClock;
  /** The world to start with; default `defaultFixture`. */
  fixture?: FixtureInput;
  /** Core rate limit per caller with credentials per hour. Default 5000. */
  rateLimit?: number;
  /** Core rate limit per hour of callers without credentials, counted by IP address. Default 60, the service's. */
  anonymousRateLimit?: number;
  /**
   * The service's secondary rate limits (concurrency, points per endpoint, content creation), on by default as
   * the service enforces them; `false` turns them off, an object changes some (`PUBLISHED_SECONDARY_LIMITS`).
   */
  secondaryLimits?: boolean | Partial<SecondaryLimitSettings>;
  /**
   * The App settings (`AppSettings`): `{ installationTokenLifetimeSeconds: 540 }` mints installation tokens that
   * expire sooner than the service's hour; changeable later with `apps.configure`.
   */
  apps?: Partial<AppSettings>;
  /** Seed for fault injection's random choices. */
  faultSeed?: number;
  /** Log requests as JSON lines (pino; the Authorization header is redacted). Default false. */
  logger?: boolean;
  /** Where `RepositoryImportEvent` webhooks go (see import-webhooks.ts); settable later via `imports.webhooks`. */
  importWebhookUrl?: string;
  /** Advance source imports on a timer (for the demo); without it they advance by `imports.step`. */
  importStepIntervalMs?: number;
  /**
   * The admin API (clock, activity, faults, request log, imports) on its own port; off unless given.
   * `true` picks a free port on the emulator's host.
   */
  admin?: boolean | { port?: number; host?: string };
}

/** A running emulator and the handles tests use to steer and inspect it. */
export interface Emulator {
  url: string;
  port: number;
  /** Fixture token strings by name (`tokens.admin`). */
  tokens: Record<string, string>;
  fixture: Fixture;
  /** The emulator's clock: its time shifted or frozen by a test (`set`, `advance`, `reset`). */
  clock: Clock;
  faults: FaultInjector;
  requests: RequestLog;
  rateLimits: RateLimits;
  /** The secondary limits: settings (`configure`), counters of refusals per limit (`counts`), `reset`. */
  secondaryLimits: SecondaryRateLimits;
  /** Apps, installations and the installation tokens minted (an App's private key: `apps.privateKey(id)`). */
  apps: AppRegistry;
  state: EmulatorState;
  /** Source imports: step the simulated importer, inject failures, maintenance, webhooks. */
  imports: SourceImportStore;
  /** Generates activity (pushes, stars, branches, issues, comments, mentions, closes) into feeds, notifications and issue events. */
  activity: ActivityGenerator;
  app: FastifyInstance;
  /** The admin API's address when `admin` was asked for. */
  adminUrl: string | undefined;
  stop(): Promise<void>;
}

/** Starts the service emulator on loopback and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const parsed = fixtureSchema.safeParse(options.fixture === undefined ? defaultFixture : options.fixture, { reportInput: true });
  if (!parsed.success) throw EmulatorUsageError.fromZod("startEmulator", "fixture", parsed.error);
  const fixture = parsed.data;
  const clock = options.clock instanceof Clock ? options.clock : new Clock(options.clock);
  const apps = new AppRegistry(fixture, clock, options.apps);
  const access = new AccessControl(fixture);
  const routes = new Set<string>();
  const faults = new FaultInjector(options.faultSeed, routes);
  const requests = new RequestLog();
  const rateLimits = new RateLimits(
    options.rateLimit ?? 5000,
    3_600_000,
    () => clock.now(),
    options.anonymousRateLimit ?? ANONYMOUS_RATE_LIMIT,
  );
  const secondarySettings = options.secondaryLimits === true ? {} : options.secondaryLimits;
  const secondaryLimits = new SecondaryRateLimits(secondarySettings, () => clock.now());
  const state: EmulatorState = {
    artifacts: new ArtifactStore(clock),
    git: new GitStore(fixture),
    imports: new SourceImportStore(clock, { webhookUrl: options.importWebhookUrl }),
    events: new EventFeeds(clock),
    notifications: new NotificationStore(clock),
    issueEvents: new IssueEventStore(clock),
  };
  const activity = new ActivityGenerator(fixture, clock, state.events, state.notifications, state.issueEvents);
  const ctx: EmulatorContext = { fixture, access, clock, state };

  const app = Fastify({
    bodyLimit: 16 * 1024 * 1024,
    // Log lines carry the emulator's time, as its answers and its request log do.
    logger: options.logger ? { redact: ["req.headers.authorization"], timestamp: () => `,"time":${clock.now()}` } : false,
    // Organization and repository names are case-insensitive; paths are matched as sent.
    // Path parameters reach the handlers' own checks (a cluster name may be 128 characters; fastify's default stops at 100).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    forceCloseConnections: true,
  });

  // Every endpoint is checked against the permission matrix: one it does not cover would go unchecked.
  const unchecked: string[] = [];
  app.addHook("onRoute", (route) => {
    routes.add(route.url);
    for (const method of [route.method].flat()) {
      // App endpoints are authenticated by the App's JWT, outside the permission matrix.
      // So are GET /rate_limit (any caller) and GET /user (its own rule, USER_ACCESS_RULE).
      const outside = APP_JWT_ROUTES.has(route.url) || route.url === RATE_LIMIT_ROUTE || route.url === USER_ROUTE;
      const missing = outside ? undefined : uncoveredRoute(method, route.url);
      if (missing) unchecked.push(missing);
    }
  });

  installHooks(app, { access, faults, requests, rateLimits, secondaryLimits, fixture, apps, clock });
  registerPreflight(app);
  registerRateLimitRoute(
    app,
    rateLimits,
    (request) => callerKey(request.principal, request),
    () => clock.now(),
  );
  registerUserRoute(app, ctx);
  registerAppRoutes(app, ctx, apps);
  registerArtifactMetadataRoutes(app, ctx);
  registerGitRoutes(app, ctx);
  registerSourceImportRoutes(app, ctx);
  registerNotificationRoutes(app, ctx);
  registerActivityRoutes(app, ctx);
  registerIssueEventRoutes(app, ctx);
  app.addHook("onClose", async () => state.notifications.stop());
  if (options.importStepIntervalMs) state.imports.startTimer(options.importStepIntervalMs);

  // Like the service, an empty body is no body (an empty PATCH restarts an import), and a body is read as JSON
  // whatever its content type says (`curl -d` sends form encoding; octokit sends empty text/plain bodies).
  readBodiesAsJson(app, "Problems parsing JSON");

  if (unchecked.length > 0) throw new Error(`emulator routes the permission matrix does not cover: ${unchecked.join(", ")}`);
  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, "Not Found"));
  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || error.statusCode === 400) {
      return sendError(reply, 400, "Problems parsing JSON");
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendError(reply, 413, "Payload too large");
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return sendError(reply, 415, "Unsupported media type");
    request.log.error(error);
    return sendError(reply, 500, "Server Error");
  });

  const address = await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  const port = Number(new URL(address).port);
  let admin: Awaited<ReturnType<typeof startAdminApi>> | undefined;
  if (options.admin) {
    const adminOptions = options.admin === true ? {} : options.admin;
    try {
      const targets = {
        clock,
        faults,
        requests,
        activity,
        imports: state.imports,
        secondaryLimits,
        artifacts: state.artifacts,
        apps,
        tokens: fixture.tokens,
      };
      admin = await startAdminApi(targets, { host: options.host, ...adminOptions });
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    tokens: Object.fromEntries(fixture.tokens.map((t) => [t.name, t.token])),
    fixture,
    clock,
    faults,
    requests,
    rateLimits,
    secondaryLimits,
    apps,
    state,
    imports: state.imports,
    activity,
    app,
    adminUrl: admin?.url,
    stop: async () => {
      await admin?.app.close();
      await app.close();
    },
  };
}

interface HookDeps {
  access: AccessControl;
  faults: FaultInjector;
  requests: RequestLog;
  rateLimits: RateLimits;
  secondaryLimits: SecondaryRateLimits;
  fixture: Fixture;
  apps: AppRegistry;
  clock: Clock;
}

/** How the service words a spent primary rate limit. */
const PRIMARY_RATE_LIMIT_MESSAGE = "API rate limit exceeded. Check the rate-limit headers for when it resets.";

/** The service's usual message for an injected status. */
const STATUS_MESSAGES: Record<number, string> = {
  401: "Bad credentials",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  422: "Validation Failed",
  500: "Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const callerKey = (principal: Principal | null, request: FastifyRequest) =>
  principal?.kind === "token" ? `token:${principal.token.name}` : `ip:${request.ip}`;

/** An OPTIONS request answered by the preflight route (cors.ts). */
const isPreflight = (request: FastifyRequest) => request.method === "OPTIONS" && request.routeOptions.url === PREFLIGHT_ROUTE;

/** The cross-cutting behaviour of every endpoint: versions, authentication, secondary limits, faults, rate limits, permissions, logging. */
function installHooks(app: FastifyInstance, deps: HookDeps): void {
  app.decorateRequest("principal", null as never);
  app.decorateRequest("apiVersion", "");
  app.decorateRequest("accessRule", undefined);
  app.decorateRequest("dropAfterHandler", false);

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-service-request-id", request.id);
    // A CORS preflight is answered before anything else (cors.ts): no version, credentials or limits.
    if (isPreflight(request)) return;
    const version = request.headers["x-service-api-version"];
    const requested = Array.isArray(version) ? version[0] : version;
    request.apiVersion = requested ?? DEFAULT_REQUEST_API_VERSION;
    if (requested !== undefined && !(API_VERSIONS as readonly string[]).includes(requested)) {
      return sendError(
        reply,
        400,
        `Unsupported 'X-Service-Api-Version' header: '${requested}'. The supported values are: ${[...API_VERSIONS].sort().join(", ")}`,
        { docs: "/overview/api-versions" },
      );
    }
    reply.header("x-service-api-version-selected", request.apiVersion);

    // An App's JWT is checked by its routes; it is not a token.
    const jwtRoute = APP_JWT_ROUTES.has(request.routeOptions.url ?? "");
    const minted = jwtRoute ? null : deps.apps.principalFor(request.headers.authorization);
    const principal: Principal | null = jwtRoute
      ? { kind: "anonymous" }
      : minted
        ? { kind: "token", token: minted }
        : authenticate(request.headers.authorization, deps.fixture);
    if (principal === null) {
      request.principal = { kind: "anonymous" };
      return sendError(reply, 401, "Bad credentials", { docs: "/authentication" });
    }
    request.principal = principal;
    const limited = applySecondaryRateLimits(deps.secondaryLimits, request, reply);
    if (limited) return limited;

    for (const fault of deps.faults.pick(request.method, request.routeOptions.url)) {
      if (fault.kind === "latency") await deps.clock.sleep(fault.latencyMs ?? 100);
      if (fault.kind === "drop") {
        request.raw.socket.destroy();
        return reply.hijack();
      }
      if (fault.kind === "drop_after") request.dropAfterHandler = true;
      if (fault.kind === "status") {
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
        const status = fault.status ?? 503;
        return sendError(reply, status, fault.message ?? STATUS_MESSAGES[status] ?? "Server Error", { headers });
      }
      if (fault.kind === "secondary_rate_limit") {
        return sendSecondaryRateLimit(reply, { status: fault.status, retryAfterSeconds: fault.retryAfterSeconds });
      }
      if (fault.kind === "rate_limit") {
        return sendError(reply, 403, PRIMARY_RATE_LIMIT_MESSAGE, {
          docs: "/overview/rate-limits-for-the-rest-api",
          headers: { "retry-after": String(fault.retryAfterSeconds ?? 1), "x-ratelimit-remaining": "0" },
        });
      }
    }

    // GET /rate_limit answers even when the limit is spent: it is how a caller learns when it resets.
    if (request.routeOptions.url !== RATE_LIMIT_ROUTE && deps.rateLimits.exhausted(callerKey(principal, request))) {
      return sendError(reply, 403, PRIMARY_RATE_LIMIT_MESSAGE, {
        docs: "/overview/rate-limits-for-the-rest-api",
      });
    }
  });

  app.addHook("preValidation", requireObjectBody);
  app.addHook("preHandler", async (request, reply) => {
    if (isPreflight(request)) return;
    if (!APP_JWT_ROUTES.has(request.routeOptions.url ?? "")) return authorize(request, reply, deps.access);
  });
  // After the access decision (401/403/404 come first, as the service answers), the official request schemas.
  app.addHook("preHandler", checkRequest);

  app.addHook("onSend", async (request, reply, payload) => {
    if (request.dropAfterHandler) {
      // The handler ran (its writes are applied); the answer is lost on the way. Neither onResponse nor
      // onRequestAbort fires for it, so it is logged here.
      deps.requests.record(logEntry(request, 0, deps.clock));
      request.raw.socket.destroy();
      return payload;
    }
    reply.header("access-control-allow-origin", "*");
    if (isPreflight(request)) return payload;
    reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    const principal = request.principal ?? { kind: "anonymous" };
    // A 304 and GET /rate_limit cost nothing (spec 6.1, 6.2, 8; the OpenAPI's rate-limit/get).
    const free = reply.statusCode === 304 || request.routeOptions.url === RATE_LIMIT_ROUTE;
    for (const [name, value] of Object.entries(deps.rateLimits.charge(callerKey(principal, request), free))) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    const rule = request.accessRule;
    // Classic tokens: the token's scopes and the scopes the endpoint accepts (empty when it needs none).
    if (principal.kind === "token" && principal.token.type === "classic") {
      reply.header("x-oauth-scopes", principal.token.scopes.join(", "));
      if (!reply.hasHeader("x-accepted-oauth-scopes")) reply.header("x-accepted-oauth-scopes", (rule?.classicScopes ?? []).join(", "));
    }
    if (rule && rule.anyOf.length > 0 && !reply.hasHeader("x-accepted-service-permissions")) {
      reply.header("x-accepted-service-permissions", acceptedPermissionsHeader(rule));
    }
    return payload;
  });

  app.addHook("onResponse", async (request, reply) => {
    if (!request.dropAfterHandler) deps.requests.record(logEntry(request, reply.statusCode, deps.clock));
  });
  // Dropped connections never reach onResponse; log them too.
  app.addHook("onRequestAbort", async (request) => {
    if (!request.dropAfterHandler) deps.requests.record(logEntry(request, 0, deps.clock));
  });
}

function logEntry(request: FastifyRequest, status: number, clock: Clock) {
  const principal = request.principal;
  return {
    method: request.method,
    url: request.url,
    route: request.routeOptions.url,
    status,
    tokenName: principal?.kind === "token" ? principal.token.name : undefined,
    apiVersion: request.apiVersion || undefined,
    userAgent: request.headers["user-agent"],
    accept: request.headers.accept,
    time: new Date(clock.now()).toISOString(),
  };
}

/** Applies the access decision for this call under the permission matrix's rule. */
async function authorize(request: FastifyRequest, reply: FastifyReply, access: AccessControl): Promise<unknown> {
  const principal = request.principal;
  const rule =
    request.routeOptions.url === USER_ROUTE
      ? USER_ACCESS_RULE
      : matrixAccessRule(request.method, request.url.split("?")[0] ?? "/", principal);
  request.accessRule = rule;
  const decision = decideAccess(access, { principal, rule, params: request.params as Record<string, string | undefined> });
  if (decision.allow) return;
  return sendError(reply, decision.status, decision.message, { docs: decision.docs, headers: decision.headers });
}
