import { readFileSync } from "node:fs";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { FakeCluster } from "./fake-cluster.js";
import type { ClusterScript } from "./scripting.js";
import { ApiError } from "./status.js";
import type { WorkloadFleet } from "./workload-fleet.js";

/** The scripting calls the admin endpoint forwards (`POST /script/<name>` with the arguments as a JSON array). */
export const SCRIPT_CALLS = [
  "ensureNamespace",
  "create",
  "createDeployment",
  "createDeployments",
  "createStatefulSet",
  "createDaemonSet",
  "createJob",
  "createCronJob",
  "createPod",
  "setImage",
  "setWorkloadImage",
  "scale",
  "delete",
  "removeFinalizers",
  "triggerCronJob",
  "completePod",
  "setImageDigest",
  "repullImage",
  "setContainerImageId",
  "addEphemeralContainer",
  "pauseKubelet",
  "resumeKubelet",
] as const satisfies readonly (keyof ClusterScript)[];

const selectionShape = { count: z.number().int().min(0).optional(), percent: z.number().min(0).max(100).optional(), wait: z.boolean().optional() };
const oneOf = (s: { count?: number | undefined; percent?: number | undefined }) => (s.count === undefined) !== (s.percent === undefined);
const exactlyOne = { message: "give exactly one of count and percent", path: ["count"] };
const selection = z.strictObject(selectionShape).refine(oneOf, exactlyOne);
const scaling = z.strictObject({ ...selectionShape, replicas: z.number().int().min(0) }).refine(oneOf, exactlyOne);

/** A request the admin endpoint refuses: 400 with one line naming the field and the rule. */
class AdminRequestError extends Error {}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new AdminRequestError(`${issue.path.join(".") || "body"}: ${issue.message}`);
}

/** Peak resident set size of this process in bytes (Linux), or undefined. */
function peakRss(): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * The fake cluster's admin endpoint for benchmarks that run it as its own process: the state of the cluster and the
 * process, the synthetic fleet's bulk changes, and every scripting call, over JSON on 127.0.0.1.
 */
export async function startAdminServer(cluster: FakeCluster, fleet: WorkloadFleet, port = 0): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 * 1024 });
  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof ApiError) return reply.code(error.code).send(error.toStatus());
    if (error instanceof AdminRequestError || error instanceof TypeError || error instanceof SyntaxError) return reply.code(400).send({ message: error.message });
    const e = error as { statusCode?: number; message?: string };
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return reply.code(e.statusCode).send({ message: e.message });
    return reply.code(500).send({ message: e.message ?? String(error) });
  });

  app.get("/status", async () => {
    const memory = process.memoryUsage();
    return {
      url: cluster.url,
      resourceVersion: cluster.store.resourceVersion(),
      pods: cluster.store.count("pods"),
      fleet: fleet.summary(),
      watches: cluster.watches(),
      memory: { rss: memory.rss, peakRss: peakRss(), heapUsed: memory.heapUsed, heapTotal: memory.heapTotal },
    };
  });
  app.post("/settle", async () => {
    await cluster.settle();
    return { resourceVersion: cluster.store.resourceVersion() };
  });
  app.get("/image-id", async (request) => {
    const image = (request.query as Record<string, unknown>).image;
    if (typeof image !== "string" || image === "") throw new AdminRequestError("image: required query parameter");
    return { imageID: cluster.imageIdFor(image) };
  });
  app.post("/fleet/rollout", async (request) => ({ workloads: await fleet.rollout(parse(selection, request.body)) }));
  app.post("/fleet/scale", async (request) => ({ workloads: await fleet.scale(parse(scaling, request.body)) }));
  app.post("/fleet/delete", async (request) => ({ workloads: await fleet.delete(parse(selection, request.body)) }));
  app.post("/script/:call", async (request, reply) => {
    const call = (request.params as { call: string }).call;
    if (!(SCRIPT_CALLS as readonly string[]).includes(call)) return reply.code(404).send({ message: `call: unknown scripting call "${call}"` });
    const args = parse(z.array(z.unknown()), request.body ?? []);
    const method = cluster.script[call as (typeof SCRIPT_CALLS)[number]] as (...a: unknown[]) => unknown;
    const result = await method.apply(cluster.script, args);
    return reply.type("application/json").send(JSON.stringify(result ?? null));
  });

  const address = await app.listen({ host: "127.0.0.1", port });
  return { url: address, app };
}
