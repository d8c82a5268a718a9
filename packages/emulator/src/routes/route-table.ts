// The emulator's route table, derived from the client's endpoint registry: each handler is registered under its
// operation id at the method and path the registry gives. The handlers, and the request checks against the
// official OpenAPI schemas (request-checks.ts), stay the emulator's own.
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from "fastify";
import { ENDPOINTS, endpointList, type OperationId } from "@shiplog/client/endpoints";

/** The fastify path of a registry route: `{name}` → `:name`, and a `{ref}` that ends it (it keeps its slashes) → `*`. */
export function fastifyPath(route: string): string {
  return route.replace(/\/\{ref\}$/, "/*").replace(/\{(\w+)\}/g, ":$1");
}

/** The OpenAPI path of a fastify route, back again: `:name` → `{name}`, a trailing `*` → `{ref}`. */
export function openApiPath(routeUrl: string): string {
  return routeUrl.replace(/:(\w+)/g, "{$1}").replace(/\/\*$/, "/{ref}");
}

/** Options a handler's route may add: hooks of its own (a gate, a redirect before the lookup). */
export type ServeOptions = Pick<RouteShorthandOptions, "onRequest" | "preHandler">;

type Handler<G extends RouteGenericInterface> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  G
>;

/** Registers the emulator's handler of a registry endpoint at the method and path its entry gives (and its hooks). */
export function serve<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  operationId: OperationId,
  handler: Handler<G>,
): void;
export function serve<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  operationId: OperationId,
  options: ServeOptions,
  handler: Handler<G>,
): void;
export function serve<G extends RouteGenericInterface>(
  app: FastifyInstance,
  operationId: OperationId,
  ...args: [Handler<G>] | [ServeOptions, Handler<G>]
): void {
  const [options, handler] = args.length === 1 ? [{}, args[0]] : args;
  const { method, route } = ENDPOINTS[operationId];
  app.route<G>({ ...(options as object), method, url: fastifyPath(route), handler });
}

/** The fastify paths of the endpoints an App's JWT authenticates: outside the permission matrix. */
export const APP_JWT_ROUTES: ReadonlySet<string> = new Set(
  endpointList()
    .filter((endpoint) => endpoint.auth === "app_jwt")
    .map((endpoint) => fastifyPath(endpoint.route)),
);
