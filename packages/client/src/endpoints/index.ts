// @shiplog/client/endpoints: the endpoint registry, every endpoint shiplog speaks as data (method, route,
// parameters and answer schemas, retry safety, pages, permission statement, OpenAPI operation id). The emulator's
// route table and validators and the contract tests are derived from it.
export { ENDPOINTS, SOURCE_IMPORTS_WARNING_CODE, endpointList } from "./registry.js";
export type { CheckedOf, EndpointOf, ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./registry.js";
export type { Endpoint, PageLimits, Retirement } from "./endpoint.js";
export { operationName } from "./endpoint-call.js";
