import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { ActivityGenerator } from "./activity-generator.js";
import type { Clock } from "./clock.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { readBodiesAsJson } from "./json-body-parser.js";
import type { FaultInjector, FaultRule } from "./fault-injection.js";
import type { SourceImportStore } from "./import-store.js";
import type { RequestLog } from "./request-log.js";

/** What the admin API steers: the same handles `startEmulator` returns to tests. */
export interface AdminTargets {
  clock: Clock;
  faults: FaultInjector;
  requests: RequestLog;
  activity: ActivityGenerator;
  imports: SourceImportStore;
}

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
  const { clock, faults, requests, activity, imports } = targets;
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

  app.get("/clock", async () => ({ now: clock.timestamp() }));
  // {"set": "2026-03-10T08:00:00Z", "freeze": true} or {"advance_ms": 3600000} or {"reset": true}
  app.post("/clock", async (request, reply) => {
    const body = objectBody(request.body);
    if (body["reset"] === true) clock.reset();
    else if (typeof body["set"] === "string") {
      if (Number.isNaN(Date.parse(body["set"]))) return bad(reply, "set must be an ISO 8601 timestamp");
      clock.set(body["set"], { freeze: body["freeze"] === true });
    } else if (typeof body["advance_ms"] === "number" && Number.isFinite(body["advance_ms"])) clock.advance(body["advance_ms"]);
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

  // {"owner": "acme", "repo": "api"} steps once; {"...", "to_completion": true} runs it to its end.
  app.post("/imports/step", async (request, reply) => {
    const body = objectBody(request.body);
    if (typeof body["owner"] !== "string" || typeof body["repo"] !== "string") return bad(reply, "give owner and repo (strings)");
    const [owner, repo] = [body["owner"], body["repo"]];
    const status = body["to_completion"] === true ? imports.runToCompletion(owner, repo) : imports.step(owner, repo);
    return { status };
  });

  const host = options.host ?? "127.0.0.1";
  const address = await app.listen({ port: options.port ?? 0, host });
  return { url: `http://${host}:${new URL(address).port}`, app };
}
