import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { z } from "zod";
import type { ActivityGenerator } from "./activity-generator.js";
import type { AppRegistry, AppSettings } from "./app-registry.js";
import type { ArtifactStore, StoredDeploymentRecord } from "./artifact-store.js";
import type { Clock } from "./clock.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { readBodiesAsJson } from "./json-body-parser.js";
import type { FaultInjector, FaultRule } from "./fault-injection.js";
import type { SourceImportStore } from "./import-store.js";
import type { RequestLog } from "./request-log.js";
import type { SecondaryLimitSettings, SecondaryRateLimits } from "./secondary-rate-limits.js";

/** What the admin API steers: the same handles `startEmulator` returns to tests. */
export interface AdminTargets {
  clock: Clock;
  faults: FaultInjector;
  requests: RequestLog;
  activity: ActivityGenerator;
  imports: SourceImportStore;
  secondaryLimits: SecondaryRateLimits;
  artifacts: ArtifactStore;
  apps: AppRegistry;
  /** The fixture's tokens, values included: the admin API is where a user reads them (GET /tokens). */
  tokens: readonly { name: string; type: string; token: string; user?: string; scopes?: readonly string[] }[];
}

const RECORD_FIELDS = [
  "id",
  "org",
  "cluster",
  "logical_environment",
  "physical_environment",
  "deployment_name",
  "name",
  "version",
  "digest",
  "status",
  "tags",
  "runtime_risks",
  "repository",
  "attestation_id",
  "created",
  "updated_at",
  "writes",
] as const satisfies readonly (keyof StoredDeploymentRecord)[];

/** The query of the record reads: which records, and for a page, where it starts, how many and which fields. */
const recordQuery = z.strictObject({
  org: z.string().min(1).optional(),
  cluster: z.string().min(1).optional(),
  status: z.enum(["deployed", "decommissioned"]).optional(),
  digest: z.string().min(1).optional(),
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  fields: z
    .string()
    .transform((list) => list.split(","))
    .pipe(z.array(z.enum(RECORD_FIELDS)))
    .optional(),
});

/** The activity kinds the admin API may generate, by the generator's method names. */
const ACTIVITY_KINDS = [
  "push",
  "star",
  "createBranch",
  "watch",
  "unwatch",
  "openIssue",
  "comment",
  "mention",
  "closeIssue",
  "reopenIssue",
  "label",
  "unlabel",
  "assign",
  "deleteIssue",
] as const;
type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * The emulator's admin API: a separate HTTP server (its own port, loopback by default) so none of its paths can
 * collide with the service's, and so a user's code pointed at the service address cannot reach it. Off unless
 * asked for (`admin` option, `--admin` flag). Documented with curl examples in the emulator README.
 */
export async function startAdminApi(
  targets: AdminTargets,
  options: { port?: number; host?: string },
): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const { clock, faults, requests, activity, imports, secondaryLimits, artifacts, apps, tokens } = targets;
  readBodiesAsJson(app, "the body is not JSON");

  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error instanceof EmulatorUsageError) {
      return reply.code(400).send({ message: error.message, code: error.code, issues: error.issues });
    }
    return reply.code(error.statusCode && error.statusCode < 500 ? error.statusCode : 500).send({ message: error.message });
  });
  const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ message, code: "emulator_usage" });
  const objectBody = (body: unknown): Record<string, unknown> =>
    body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

  // The fixture's tokens with their values, for a user who started the emulator without --show-tokens.
  app.get("/tokens", async () => ({
    tokens: tokens.map((t) => ({
      name: t.name,
      type: t.type,
      user: t.user ?? null,
      ...(t.scopes && { scopes: t.scopes }),
      token: t.token,
    })),
  }));

  app.get("/clock", async () => ({ now: clock.timestamp() }));
  // {"set": "2026-03-10T08:00:00Z", "freeze": true} or {"advance_ms": 3600000} or {"reset": true}
  app.post("/clock", async (request, reply) => {
    const body = objectBody(request.body);
    if (body.reset === true) clock.reset();
    else if (typeof body.set === "string") {
      if (Number.isNaN(Date.parse(body.set))) return bad(reply, "set must be an ISO 8601 timestamp");
      clock.set(body.set, { freeze: body.freeze === true });
    } else if (typeof body.advance_ms === "number" && Number.isFinite(body.advance_ms)) clock.advance(body.advance_ms);
    else return bad(reply, "give set (ISO 8601, optional freeze), advance_ms (number) or reset: true");
    return { now: clock.timestamp() };
  });

  // {"kind": "push", "actor": "octo", "repo": "acme/web"}: one of the generator's kinds and its input.
  app.post("/activity", async (request, reply) => {
    const { kind, ...input } = objectBody(request.body);
    if (!ACTIVITY_KINDS.includes(kind as ActivityKind)) return bad(reply, `kind must be one of ${ACTIVITY_KINDS.join(", ")}`);
    const generate = activity[kind as ActivityKind] as (input: unknown) => unknown;
    const result = generate.call(activity, input);
    return reply.code(201).send({ kind, result: result ?? null });
  });

  app.get("/faults", async () => ({ faults: faults.list() }));
  app.post("/faults", async (request, reply) => reply.code(201).send({ id: faults.add(objectBody(request.body) as unknown as FaultRule) }));
  app.delete<{ Params: { id: string } }>("/faults/:id", async (request, reply) => {
    faults.remove(Number(request.params.id));
    return reply.code(204).send();
  });
  app.delete("/faults", async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });

  app.get<{ Querystring: { method?: string; route?: string } }>("/requests", async (request) => {
    const filter = { method: request.query.method, route: request.query.route };
    return { requests: requests.list(filter) };
  });
  app.delete("/requests", async (_request, reply) => {
    requests.clear();
    return reply.code(204).send();
  });

  // The secondary limits: settings and counters; {"contentPerMinute": 10} changes one, {"reset": true} empties the windows.
  const limitsView = () => ({ settings: secondaryLimits.settings, ...secondaryLimits.counts() });
  app.get("/secondary-limits", async () => limitsView());
  app.post("/secondary-limits", async (request) => {
    const { reset, ...changes } = objectBody(request.body);
    secondaryLimits.configure(changes as Partial<SecondaryLimitSettings>, "POST /secondary-limits", "body");
    if (reset === true) secondaryLimits.reset();
    return limitsView();
  });

  // The App settings: {"installationTokenLifetimeSeconds": 540} mints tokens that expire sooner (those minted stay).
  const appsView = () => ({ settings: apps.settings, minted: apps.minted.length });
  app.get("/apps", async () => appsView());
  app.post("/apps", async (request) => {
    apps.configure(objectBody(request.body) as Partial<AppSettings>, "POST /apps", "body");
    return appsView();
  });

  // Deployment records read back without sending them all: counts per status and cluster, or one page at a time.
  const readQuery = (query: unknown, operation: string) => {
    const checked = recordQuery.safeParse(query, { reportInput: true });
    if (!checked.success) throw EmulatorUsageError.fromZod(operation, "query", checked.error);
    return checked.data;
  };
  app.get("/deployment-records/counts", async (request) => {
    const { org, cluster, status, digest } = readQuery(request.query, "GET /deployment-records/counts");
    return artifacts.countDeployments({ org, cluster, status, digest });
  });
  app.get("/deployment-records", async (request) => {
    const { after, limit, fields, ...filter } = readQuery(request.query, "GET /deployment-records");
    const page = artifacts.deploymentPage(filter, after, limit);
    const records = fields ? page.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]]))) : page;
    // `next_after` continues the listing; absent on the last page.
    return { records, ...(page.length === limit && { next_after: page[page.length - 1]!.id }) };
  });

  // {"owner": "acme", "repo": "api"} steps once; {"...", "to_completion": true} runs it to its end.
  app.post("/imports/step", async (request, reply) => {
    const body = objectBody(request.body);
    if (typeof body.owner !== "string" || typeof body.repo !== "string") return bad(reply, "give owner and repo (strings)");
    const [owner, repo] = [body.owner, body.repo];
    const status = body.to_completion === true ? imports.runToCompletion(owner, repo) : imports.step(owner, repo);
    return { status };
  });

  const host = options.host ?? "127.0.0.1";
  const address = await app.listen({ port: options.port ?? 0, host });
  return { url: `http://${host}:${new URL(address).port}`, app };
}
