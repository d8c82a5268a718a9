// App installation authentication: the App signs a short JWT (RS256) with its private key, finds its
// installation (given, or from the organization), and exchanges the JWT for an installation token that lives an
// hour. The token is cached until a margin before it expires and renewed then, or at once after a 401.
import { systemClock, type TransportClock } from "./timing/clock.js";
import { createPrivateKey } from "node:crypto";
import githubAppJwt from "universal-github-app-jwt";
import type { AuthContext, AuthStrategy } from "./transport/auth.js";
import { operationName, readAnswer, routeRequest } from "./endpoints/endpoint-call.js";
import { ENDPOINTS, type ParamsOf, type ResultOf } from "./endpoints/registry.js";
import { AuthenticationError, RequestValidationError, type FieldIssue } from "./errors/errors.js";
import { createInstallationTokenParams } from "./schemas/apps.js";
import type { CreateInstallationTokenParams } from "./model/apps.js";
import { parseRequest, toFieldIssues } from "./schemas/validation.js";

export interface AppInstallationAuthOptions {
  /** The App's id (or client id): the JWT's `iss`. */
  appId: string | number;
  /** The App's private key, PEM (PKCS#1 or PKCS#8). Never logged, never in an error. */
  privateKey: string;
  /** The installation to act as; without it, found from `org`. */
  installationId?: number;
  /** The organization whose installation to use (`GET /orgs/{org}/installation`) when no id is given. */
  org?: string;
  /** Narrow the token to these repositories (names in the installation's account). */
  repositories?: string[];
  /** Narrow the token to these permissions, e.g. `{ artifact_metadata: "write" }`. */
  permissions?: CreateInstallationTokenParams["permissions"];
  /** Renew this long before `expires_at`. Default 5 minutes. */
  refreshMarginMs?: number;
  /** The clock token lifetimes are read on. Default the system's. */
  clock?: Pick<TransportClock, "now">;
  /** Told of every token minted (never the token): for logs and the lifetime metric. */
  onToken?(info: InstallationTokenInfo): void;
}

/** What is known of the current installation token, without the token. */
export interface InstallationTokenInfo {
  installationId: number;
  /** When the token expires, on this process's clock. */
  expiresAt: Date;
  /** Why it was minted: the first, one due for renewal, or one after the service refused the last (401). */
  reason: "initial" | "expiring" | "rejected";
}

/** The App endpoints a JWT calls. */
type AppOperationId = "apps/get-org-installation" | "apps/create-installation-access-token";

/** An App installation's token strategy. */
export interface AppInstallationAuth extends AuthStrategy {
  /** The current token's expiry on this process's clock, if one is held; now or earlier once the service refused it. */
  readonly expiresAt: Date | undefined;
  /** The installation in use, once known. */
  readonly installationId: number | undefined;
}

const JWT_CLAIM_MESSAGE = /'(Issued at|Expiration time)' claim/i;

/** App installation auth: App id and private key in, installation tokens out, renewed before they expire. */
export function appInstallationAuth(options: AppInstallationAuthOptions): AppInstallationAuth {
  checkAppOptions(options);
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const marginMs = options.refreshMarginMs ?? 5 * 60_000;
  const appId = String(options.appId);
  const privateKey = options.privateKey;
  let installationId = options.installationId;
  let cached: { value: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let rejected = false;
  /** The service's clock minus ours, learned from its Date header when it refuses a JWT's times. */
  let skewMs = 0;

  const jwt = async (): Promise<string> => {
    const { token } = await githubAppJwt({ id: appId, privateKey, now: Math.floor((now() + skewMs) / 1000) });
    return `Bearer ${token}`;
  };

  /** One JWT call, sent again once when the service refused the JWT's times and its Date shows our clock is off. */
  const withJwt = async <K extends AppOperationId>(
    context: AuthContext,
    id: K,
    params: ParamsOf<K>,
  ): Promise<{ data: ResultOf<K>; headers: Headers }> => {
    const endpoint = ENDPOINTS[id];
    const request = routeRequest(endpoint, parseRequest(endpoint.params, params, operationName(endpoint)));
    const send = async () => {
      const answer = await context.request(request, await jwt());
      return { data: readAnswer(endpoint, answer.data) as ResultOf<K>, headers: answer.headers };
    };
    try {
      return await send();
    } catch (error) {
      const serverDate = error instanceof AuthenticationError ? Date.parse(error.serviceDate ?? "") : NaN;
      if (!(error instanceof AuthenticationError) || !JWT_CLAIM_MESSAGE.test(error.serviceMessage) || Number.isNaN(serverDate)) throw error;
      skewMs = serverDate - now();
      return send();
    }
  };

  const mint = async (context: AuthContext): Promise<string> => {
    const reason: InstallationTokenInfo["reason"] = rejected ? "rejected" : cached ? "expiring" : "initial";
    if (installationId === undefined) {
      installationId = (await withJwt(context, "apps/get-org-installation", { org: options.org! })).data.id;
    }
    const answer = await withJwt(context, "apps/create-installation-access-token", {
      installation_id: installationId,
      ...(options.repositories ? { repositories: options.repositories } : {}),
      ...(options.permissions ? { permissions: options.permissions } : {}),
    });
    const serverExpiry = Date.parse(answer.data.expires_at);
    // The lifetime as the service counts it, placed on our clock: a skewed clock neither renews early nor late.
    const serverNow = Date.parse(answer.headers.get("date") ?? "");
    const expiresAt = Number.isNaN(serverNow) ? serverExpiry : now() + (serverExpiry - serverNow);
    cached = { value: `Bearer ${answer.data.token}`, expiresAt };
    rejected = false;
    options.onToken?.({ installationId, expiresAt: new Date(expiresAt), reason });
    return cached.value;
  };

  return {
    kind: "app-installation",
    get expiresAt() {
      if (!cached) return undefined;
      // The service refused it (401): it has expired as the service counts, whatever its stamp said, until renewed.
      return new Date(rejected ? Math.min(cached.expiresAt, now()) : cached.expiresAt);
    },
    get installationId() {
      return installationId;
    },
    authorization(context) {
      if (cached && !rejected && now() < cached.expiresAt - marginMs) return cached.value;
      pending ??= mint(context).finally(() => (pending = undefined));
      return pending;
    },
    invalidate(value) {
      // Only the token that was refused is dropped: a renewal already made by a concurrent request stands.
      if (cached?.value === value) rejected = true;
      return true;
    },
  };
}

/** Every rule the options break, named, before anything is sent; the key is never quoted. */
function checkAppOptions(options: AppInstallationAuthOptions): void {
  const issues: FieldIssue[] = [];
  const appId = String(options.appId ?? "");
  if (!/^[A-Za-z0-9.]+$/.test(appId))
    issues.push({ field: "appId", rule: "an App id or client id", message: "must be the App's numeric id or client id" });
  try {
    const key = createPrivateKey(String(options.privateKey ?? ""));
    if (key.asymmetricKeyType !== "rsa")
      issues.push({ field: "privateKey", rule: "RSA private key", message: "must be the App's RSA private key (PEM)" });
  } catch {
    issues.push({
      field: "privateKey",
      rule: "PEM private key",
      message: "is not a PEM private key (the App's .pem file, BEGIN RSA PRIVATE KEY)",
    });
  }
  if (options.installationId === undefined && !options.org) {
    issues.push({
      field: "installationId",
      rule: "installationId or org",
      message: "give the installation id, or the organization to find it from",
    });
  }
  if (options.installationId !== undefined && !(Number.isInteger(options.installationId) && options.installationId > 0)) {
    issues.push({ field: "installationId", rule: "positive integer", message: "must be a positive integer" });
  }
  // The narrowing goes into every token request: checked now, not at the first call.
  const narrowing = createInstallationTokenParams.safeParse({
    installation_id: 1,
    ...(options.repositories !== undefined && { repositories: options.repositories }),
    ...(options.permissions !== undefined && { permissions: options.permissions }),
  });
  if (!narrowing.success) issues.push(...toFieldIssues(narrowing.error));
  if (options.refreshMarginMs !== undefined && !(options.refreshMarginMs >= 0 && options.refreshMarginMs < 3_600_000)) {
    issues.push({ field: "refreshMarginMs", rule: "0 to 1 hour", message: "must be at least 0 and less than an hour" });
  }
  if (issues.length > 0) throw new RequestValidationError("app installation auth", issues);
}
