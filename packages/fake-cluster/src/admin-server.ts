import { readFileSync } from "node:fs";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { FakeCluster } from "./fake-cluster.js";
import type { ClusterScript } from "./scripting.js";
import { ApiError } from "./status.js";
import type { FleetOptions } from "./workload-fleet.js";
import { WorkloadFleet } from "./workload-fleet.js";

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

const selectionShape = {
  count: z.number().int().min(0).optional(),
  percent: z.number().min(0).max(100).optional(),
  wait: z.boolean().optional(),
};
const oneOf = (s: { count?: number | undefined; percent?: number | undefined }) => (s.count === undefined) !== (s.percent === undefined);
const exactlyOne = { message: "give exactly one of count and percent", path: ["count"] };
const selection = z.strictObject(selectionShape).refine(oneOf, exactlyOne);
const scaling = z.strictObject({ ...selectionShape, replicas: z.number().int().min(0) }).refine(oneOf, exactlyOne);
const fleetShape = z.strictObject({
  workloads: z.number().int().min(0),
  replicas: z.number().int().min(0).optional(),
  namespaces: z.number().int().min(1).optional(),
  containers: z.number().int().min(1).optional(),
  registry: z.string().min(1).optional(),
  annotations: z.record(z.string(), z.array(z.string()).min(1)).optional(),
});

/** A request the admin endpoint refuses: 400 (or `status`) with one line naming the field and the rule. */
class AdminRequestError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

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
 * process, the synthetic fleet (built at start, or later with POST /fleet) and its bulk changes, and every scripting
 * call, over JSON on 127.0.0.1.
 */
export async function startAdminServer(
  cluster: FakeCluster,
  initialFleet: WorkloadFleet | undefined,
  port = 0,
): Promise<{ url: string; app: FastifyInstance }> {
  let fleet = initialFleet;
  const theFleet = (): WorkloadFleet => {
    if (fleet === undefined) throw new AdminRequestError("fleet: there is none yet; create it with POST /fleet", 409);
    return fleet;
  };
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 * 1024 });
  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof ApiError) return reply.code(error.code).send(error.toStatus());
    if (error instanceof AdminRequestError) return reply.code(error.status).send({ message: error.message });
    if (error instanceof TypeError || error instanceof SyntaxError) return reply.code(400).send({ message: error.message });
    const e = error as { statusCode?: number; message?: string };
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return reply.code(e.statusCode).send({ message: e.message });
    return reply.code(500).send({ message: e.message ?? String(error) });
  });

  app.get("/status", async (request) => {
    // ?gc=true: a full collection first, when the process runs with --expose-gc, so heapUsed is the live heap.
    const collect = (globalThis as { gc?: () => void }).gc;
    if ((request.query as Record<string, unknown>).gc === "true" && collect) collect();
    const memory = process.memoryUsage();
    return {
      url: cluster.url,
      resourceVersion: cluster.store.resourceVersion(),
      pods: cluster.store.count("pods"),
      fleet: fleet?.summary() ?? null,
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
  app.post("/fleet", async (request) => {
    const options = parse(fleetShape, request.body) as FleetOptions;
    if (fleet !== undefined) throw new AdminRequestError("fleet: there is one already", 409);
    fleet = new WorkloadFleet(cluster, options);
    return fleet.build();
  });
  app.post("/fleet/rollout", async (request) => ({ workloads: await theFleet().rollout(parse(selection, request.body)) }));
  app.post("/fleet/scale", async (request) => ({ workloads: await theFleet().scale(parse(scaling, request.body)) }));
  app.post("/fleet/delete", async (request) => ({ workloads: await theFleet().delete(parse(selection, request.body)) }));
  app.post("/script/:call", async (request, reply) => {
    const call = (request.params as { call: string }).call;
    if (!(SCRIPT_CALLS as readonly string[]).includes(call)) {
      return reply.code(404).send({ message: `call: unknown scripting call "${call}"` });
    }
    const args = parse(z.array(z.unknown()), request.body ?? []);
    const method = cluster.script[call as (typeof SCRIPT_CALLS)[number]] as (...a: unknown[]) => unknown;
    const result = await method.apply(cluster.script, args);
    return reply.type("application/json").send(JSON.stringify(result ?? null));
  });

  const address = await app.listen({ host: "127.0.0.1", port });
  return { url: address, app };
}
