// The controller's client for the service: the client's own engine (so HTTPS_PROXY / NO_PROXY apply), with the
// controller's needs added as plugins of its pipeline: leader fencing outermost, the rotating token as the auth
// strategy, and mutating calls sent one at a time behind the client's shared rate-limit gate.
import { ShiplogClient, type AuthStrategy, type ClientOptions, type TransportPlugin } from "@shiplog/client";
import { NotLeaderError } from "./batch-sender.js";
import type { TokenSource } from "./token-source.js";

/**
 * The token source as an auth strategy: read on every attempt (a file is re-read when it changes), and read again
 * after a 401, in case the token was replaced without the file's stamp showing it.
 */
export function tokenSourceAuth(tokens: TokenSource): AuthStrategy {
  return {
    kind: "token",
    authorization: () => `Bearer ${tokens.current()}`,
    invalidate: () => tokens.refresh(),
  };
}

/** Fencing at the lowest level: no HTTP attempt (a client retry or a token renewal included) leaves unless leading. */
export function leaderFence(mayPost: () => boolean): TransportPlugin {
  return {
    name: "leader fence",
    before: () => {
      if (!mayPost()) throw new NotLeaderError();
    },
  };
}

export interface ServiceClientOptions extends Omit<ClientOptions, "auth" | "plugins" | "token"> {
  auth: AuthStrategy;
  mayPost: () => boolean;
  /** Send POST/PATCH/PUT/DELETE one at a time (the service's advice). Default true. */
  serializeMutations?: boolean;
}

/** The controller's ShiplogClient: fenced, authenticated by its strategy, mutations serialised by default. */
export function createServiceClient(options: ServiceClientOptions): ShiplogClient {
  const { auth, mayPost, serializeMutations, ...rest } = options;
  return new ShiplogClient({
    ...rest,
    auth,
    plugins: [leaderFence(mayPost)],
    throttle: { serializeMutations: serializeMutations ?? true },
  });
}
