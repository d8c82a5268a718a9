import type { AccessLevel } from "./permission-matrix.js";
import type { TokenKind } from "./token-rules.js";

/** What the caller says about its token: its type, and the scopes (classic) or permissions (the others) it holds. */
export interface DeclaredToken {
  type: TokenKind;
  /** Scopes of a classic token. Leave out when unknown: scopes are then not checked. */
  scopes?: readonly string[];
  /** Permissions of a fine-grained or app token by machine name (`contents: "write"`). Leave out when unknown. */
  permissions?: Readonly<Record<string, AccessLevel>>;
}
