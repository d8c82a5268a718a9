import type { DeclaredToken } from "./permissions/declared-token.js";
import type { TransportOptions } from "./transport/options.js";

/** How a ShiplogClient talks to the service: the transport's options, and what the caller knows of its token. */
export interface ClientOptions extends TransportOptions {
  /** The token's type (and scopes), when known: lets the client refuse calls the token cannot make. */
  tokenInfo?: DeclaredToken;
}
