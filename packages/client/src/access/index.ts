// @shiplog/client/permissions: the permission matrix of the spec as data (5.3, and each endpoint's statement of
// section 4), the token rules of 5.1, what a call needs (`requiredPermissions`) and whether a token has it.
export {
  PERMISSIONS,
  PERMISSION_MATRIX,
  type AccessLevel,
  type AppTokenType,
  type MatrixEntry,
  type PermissionName,
  type PermissionScope,
} from "../permissions/permission-matrix.js";
export { ENDPOINT_STATEMENTS } from "./endpoint-statements.js";
export type { EndpointStatement, Statement, StatementGrant } from "../permissions/statement.js";
export {
  describeRequirements,
  requiredPermissions,
  type Combine,
  type PermissionLookup,
  type PermissionResolution,
  type Requirement,
  type UncoveredCall,
  type UncoveredReason,
} from "./required-permissions.js";
export { APP_TOKEN_KINDS, TOKEN_KINDS, TOKEN_KIND_TITLES, type TokenKind } from "../permissions/token-rules.js";
export type { DeclaredToken } from "../permissions/declared-token.js";
export {
  checkTokenGrants,
  type GrantCheck,
  type GrantsMissing,
  type GrantsSufficient,
  type MissingGrant,
} from "./permission-check.js";
export { formatAcceptedPermissions } from "../errors/accepted-permissions.js";
export type { AcceptedPermission, AcceptedPermissionSet } from "../errors/accepted-permissions.js";
