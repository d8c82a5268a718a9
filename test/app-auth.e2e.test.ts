// App installation auth end to end: the emulator's App endpoints checked against the official schemas with JWTs
// signed here by node:crypto (a second opinion, not the client's signer), then the client's strategy against them.
import { createSign, generateKeyPairSync } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  appInstallationAuth,
  AuthenticationError,
  RequestValidationError,
  ShiplogClient,
  type InstallationTokenInfo,
} from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { JWT_MESSAGES } from "@shiplog/emulator/internal";
import { validateResponse } from "./support/openapi-contract.js";
import { callJson, SERVICE_HEADERS } from "./kit/service-call.js";

const APP_ID = 1_001_001;
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const storage = (n: number) => ({
  org: "acme",
  name: "web",
  digest: digest(n),
  registry_url: "https://ghcr.io/",
  github_repository: "web",
});

let emulator: Emulator;
let privateKey: string;
beforeAll(async () => {
  emulator = await startEmulator();
  privateKey = emulator.apps.privateKey(APP_ID);
});
afterAll(() => emulator.stop());
afterEach(() => {
  emulator.clock.reset();
  emulator.requests.clear();
});

/** A JWT signed with node:crypto; claims relative to the emulator's clock unless given. */
function jwt(claims: Record<string, unknown> = {}, key = privateKey): string {
  const now = Math.floor(emulator.clock.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({ iat: now - 60, exp: now + 540, iss: APP_ID, ...claims })}`;
  return `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(key).toString("base64url")}`;
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const answer = await callJson(`${emulator.url}${path}`, method, {
    headers: { authorization: `Bearer ${token}`, accept: SERVICE_HEADERS.accept },
    body,
  });
  return { status: answer.status, body: answer.body as Record<string, unknown>, date: answer.headers.get("date") };
}

describe("the emulator's App endpoints", () => {
  it("answer GET /app, the organization's and a repository's installation, and a token, as the official schemas say", async () => {
    const app = await call("GET", "/app", jwt());
    expect(app.status).toBe(200);
    expect(validateResponse("GET", "/app", 200, app.body)).toEqual([]);
    const org = await call("GET", "/orgs/acme/installation", jwt());
    expect(validateResponse("GET", "/orgs/{org}/installation", 200, org.body)).toEqual([]);
    expect(org.body).toMatchObject({ id: 3001, app_id: APP_ID, repository_selection: "all" });
    const repo = await call("GET", "/repos/globex/portal/installation", jwt());
    expect(validateResponse("GET", "/repos/{owner}/{repo}/installation", 200, repo.body)).toEqual([]);
    expect((await call("GET", "/repos/acme/nowhere/installation", jwt())).status).toBe(404);
    // Frozen, so that the answer's Date and the token's expiry are read in the same second.
    emulator.clock.set(new Date(), { freeze: true });
    const token = await call("POST", "/app/installations/3001/access_tokens", jwt(), {
      repositories: ["web"],
      permissions: { artifact_metadata: "write" },
    });
    expect(token.status).toBe(201);
    expect(validateResponse("POST", "/app/installations/{installation_id}/access_tokens", 201, token.body)).toEqual([]);
    expect(token.body).toMatchObject({ permissions: { artifact_metadata: "write" }, repository_selection: "selected" });
    // One hour on the emulator's clock.
    expect(Date.parse(token.body.expires_at as string) - Date.parse(token.date!)).toBe(3_600_000);
  });

  it("refuse a narrowing beyond the installation's grant", async () => {
    expect((await call("POST", "/app/installations/3002/access_tokens", jwt(), { repositories: ["portal", "other"] })).status).toBe(422);
    expect((await call("POST", "/app/installations/3001/access_tokens", jwt(), { permissions: { administration: "write" } })).status).toBe(
      422,
    );
  });

  it("refuse JWTs as the service does: signature, issuer, dates with 60 s of clock skew, 10 minutes at most", async () => {
    const now = Math.floor(emulator.clock.now() / 1000);
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const refusals: [string, string][] = [
      [jwt({}, otherKey), JWT_MESSAGES.undecodable],
      ["not.a-jwt", JWT_MESSAGES.undecodable],
      [jwt({ iss: 999 }), JWT_MESSAGES.unknownApp],
      [jwt({ iat: now + 120, exp: now + 600 }), JWT_MESSAGES.issuedAt],
      [jwt({ iat: now - 700, exp: now - 100 }), JWT_MESSAGES.expired],
      [jwt({ iat: now - 30, exp: now + 900 }), JWT_MESSAGES.tooLong],
    ];
    for (const [token, message] of refusals) expect(await call("GET", "/app", token)).toMatchObject({ status: 401, body: { message } });
    // Within the allowances: dated 50 s ahead (clock drift), living exactly 10 minutes; the client id as issuer.
    expect((await call("GET", "/app", jwt({ iat: now + 50, exp: now + 600 }))).status).toBe(200);
    expect((await call("GET", "/app", jwt({ iss: "Iv23emuShiplogApp0001" }))).status).toBe(200);
  });

  it("refuse an installation token an hour after it was made: Bad credentials", async () => {
    const { body } = await call("POST", "/app/installations/3001/access_tokens", jwt());
    const token = body.token as string;
    expect((await call("POST", "/orgs/acme/artifacts/metadata/storage-record", token, { ...storage(1), org: undefined })).status).toBe(200);
    emulator.clock.advance(3_600_000);
    expect(await call("POST", "/orgs/acme/artifacts/metadata/storage-record", token, { ...storage(2), org: undefined })).toMatchObject({
      status: 401,
      body: { message: "Bad credentials" },
    });
  });
});

describe("the client's App installation auth", () => {
  it("finds the installation, mints one token for many calls, renews it before it expires, and after a 401", async () => {
    const minted: InstallationTokenInfo[] = [];
    const auth = appInstallationAuth({
      appId: APP_ID,
      privateKey,
      org: "acme",
      clock: emulator.clock,
      onToken: (t) => minted.push(t),
    });
    const client = new ShiplogClient({ baseUrl: emulator.url, auth });
    for (let i = 0; i < 3; i++) await client.artifacts.createStorageRecord(storage(10 + i));
    expect(minted.map((m) => m.reason)).toEqual(["initial"]);
    expect(auth.installationId).toBe(3001);
    expect(minted[0]!.expiresAt.getTime() - emulator.clock.now()).toBeGreaterThan(3_590_000);

    // 56 minutes on: within the 5-minute margin, renewed before use.
    emulator.clock.advance(56 * 60_000);
    await client.artifacts.createStorageRecord(storage(20));
    expect(minted.map((m) => m.reason)).toEqual(["initial", "expiring"]);

    // A client whose clock does not move (the emulator's does): the token dies under it, the 401 renews it.
    const frozen = appInstallationAuth({ appId: APP_ID, privateKey, installationId: 3001, onToken: (t) => minted.push(t) });
    const stale = new ShiplogClient({ baseUrl: emulator.url, auth: frozen });
    await stale.artifacts.createStorageRecord(storage(30));
    emulator.clock.advance(61 * 60_000);
    emulator.requests.clear();
    await stale.artifacts.createStorageRecord(storage(31));
    // This clock is now two hours behind the service's: its first JWT is refused as expired, and it signs again
    // on the service's clock (from the answer's Date).
    expect(emulator.requests.list().map((r) => `${r.method} ${r.route} ${r.status}`)).toEqual([
      "POST /orgs/:org/artifacts/metadata/storage-record 401",
      "POST /app/installations/:installation_id/access_tokens 401",
      "POST /app/installations/:installation_id/access_tokens 201",
      "POST /orgs/:org/artifacts/metadata/storage-record 200",
    ]);
    expect(minted.at(-1)!.reason).toBe("rejected");
  });

  it("a token the service refuses counts as expired while its renewal fails, and as renewed once it succeeds", async () => {
    const auth = appInstallationAuth({ appId: APP_ID, privateKey, installationId: 3001, clock: emulator.clock });
    const client = new ShiplogClient({ baseUrl: emulator.url, auth, retry: false });
    await client.artifacts.createStorageRecord(storage(40));
    expect(auth.expiresAt!.getTime() - emulator.clock.now()).toBeGreaterThan(3_590_000);
    // The stored record's token is refused (401), and the App's token endpoint fails: the token is dead for the service.
    const refused = emulator.faults.add({ kind: "status", status: 401, route: "/orgs/:org/artifacts/metadata/storage-record", times: 1 });
    const failing = emulator.faults.add({ kind: "status", status: 500, route: "/app/installations/:installation_id/access_tokens" });
    try {
      await expect(client.artifacts.createStorageRecord(storage(41))).rejects.toThrow();
      expect(auth.expiresAt!.getTime()).toBeLessThanOrEqual(emulator.clock.now());
    } finally {
      emulator.faults.remove(failing);
      emulator.faults.remove(refused);
    }
    await client.artifacts.createStorageRecord(storage(42));
    expect(auth.expiresAt!.getTime() - emulator.clock.now()).toBeGreaterThan(3_590_000);
  });

  it("signs again on the service's clock when the service refuses the JWT's dates", async () => {
    emulator.clock.advance(2 * 3_600_000);
    const client = new ShiplogClient({ baseUrl: emulator.url, auth: appInstallationAuth({ appId: APP_ID, privateKey, org: "acme" }) });
    await client.artifacts.createStorageRecord(storage(40));
    const statuses = emulator.requests.list().map((r) => `${r.route} ${r.status}`);
    expect(statuses).toEqual([
      "/orgs/:org/installation 401",
      "/orgs/:org/installation 200",
      "/app/installations/:installation_id/access_tokens 201",
      "/orgs/:org/artifacts/metadata/storage-record 200",
    ]);
  });

  it("a narrowing the service would refuse (a permission level, a repository name) is refused when the strategy is built", () => {
    emulator.requests.clear();
    const refused = (() => {
      try {
        appInstallationAuth({
          appId: APP_ID,
          privateKey,
          org: "acme",
          permissions: { contents: "wirte" as "write" },
          repositories: ["web", "../api"],
        });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect((refused as RequestValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ["repositories[1]", "pattern /^(?!\\.\\.?$)[A-Za-z0-9._-]+$/"],
      ["permissions.contents", "one of read, write, admin"],
    ]);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("never shows the private key or a token in an error", async () => {
    const badKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIsecretsecretsecret\n-----END RSA PRIVATE KEY-----";
    const refused = (() => {
      try {
        appInstallationAuth({ appId: APP_ID, privateKey: badKey, org: "acme" });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(JSON.stringify(refused) + String(refused)).not.toContain("secretsecret");

    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      retry: false,
      auth: appInstallationAuth({ appId: APP_ID, privateKey: other, installationId: 3001 }),
    });
    const error = await client.artifacts.createStorageRecord(storage(50)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const shown = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`;
    expect(shown).not.toContain(other.split("\n")[1]!);
    expect(shown).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
  });
});
