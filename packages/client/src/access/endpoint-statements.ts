import { endpointList } from "../endpoints/registry.js";
import type { EndpointStatement } from "../permissions/statement.js";

/**
 * The permission statements of sections 4.1 to 4.5 (and 4.4b), one per endpoint whose section has one, in the
 * spec's order: taken from the endpoint registry, where each is part of its endpoint's entry.
 */
export const ENDPOINT_STATEMENTS: readonly EndpointStatement[] = endpointList().flatMap((endpoint) =>
  endpoint.statement ? [{ method: endpoint.method, path: endpoint.route, ...endpoint.statement }] : [],
);
