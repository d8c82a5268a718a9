// @shiplog/client/permissions: the permission matrix of the spec as data (5.3, and each endpoint's statement of
// section 4), the token rules of 5.1, and what a call needs (`requiredPermissions`).
export * from "../permissions/permission-matrix.js";
export { ENDPOINT_STATEMENTS } from "./endpoint-statements.js";
export type { EndpointStatement, Statement, StatementGrant } from "../permissions/statement.js";
export * from "./required-permissions.js";
export * from "../permissions/token-rules.js";
export { checkTokenGrants, declaredTokenSchema, describeMissingGrant } from "./permission-check.js";
export type { DeclaredToken, GrantCheck, GrantsMissing, GrantsSufficient, MissingGrant } from "./permission-check.js";
export { matrixAcceptedPermissions } from "./declared-token-guard.js";
export { formatAcceptedPermissions, parseAcceptedPermissions } from "../errors/accepted-permissions.js";
export type { AcceptedPermission, AcceptedPermissionSet } from "../errors/accepted-permissions.js";
