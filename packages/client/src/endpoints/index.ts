// @shiplog/client/endpoints: the endpoint registry, every endpoint shiplog speaks as data (method, route,
// parameters and answer schemas, retry safety, pages, permission statement, OpenAPI operation id). The emulator's
// route table and validators and the contract tests are derived from it.
export { ENDPOINTS, endpointList } from "./registry.js";
export type { OperationId } from "./registry.js";
export type { Endpoint, PageLimits, Retirement } from "./endpoint.js";
