// Apps, their installations, and the installation tokens they mint, as the service keeps them: an App proves
// itself with a JWT signed RS256 by its private key; an installation token lives one hour on the emulator's clock
// and is refused ("Bad credentials") after that. Key pairs are made when first needed, so a test asks the
// emulator for an App's private key instead of the project keeping one. The lifetime is a setting so a test can
// hand out tokens that are about to expire (a client's expiry alerts, its renewal) without waiting an hour.
import { createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from "node:crypto";
import { z } from "zod";
import type { Clock } from "./clock.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import type { AccessLevel, Fixture, TokenFixture } from "./fixture.js";

/** An installation token lives this long (the service's rule). */
export const INSTALLATION_TOKEN_LIFETIME_MS = 3_600_000;

/** The App settings a run may change: tokens minted from then on follow them. */
export interface AppSettings {
  /**
   * How long an installation token minted from now on lives, in whole seconds: 1 to 3600 (default 3600, the
   * service's hour; the service never mints a longer one).
   */
  installationTokenLifetimeSeconds: number;
}

/** The checks `configure` applies: every field optional, unknown fields refused (a typo would change nothing). */
const settingsSchema = z
  .strictObject({
    installationTokenLifetimeSeconds: z
      .number()
      .int({ message: "must be a whole number of seconds" })
      .min(1, { message: "must be at least 1 second" })
      .max(INSTALLATION_TOKEN_LIFETIME_MS / 1000, { message: "must be at most 3600 seconds (the service's hour)" }),
  })
  .partial();
/** A JWT may be dated this far ahead of the service's clock (clock drift between machines). */
export const JWT_CLOCK_SKEW_S = 60;
/** A JWT may live at most this long. */
export const JWT_MAX_LIFETIME_S = 600;

/** The service's messages for a JWT it refuses (401). */
export const JWT_MESSAGES = {
  undecodable: "A JSON web token could not be decoded",
  issuedAt: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
  expired: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
  tooLong: "'Expiration time' claim ('exp') is too far in the future",
  issuer: "'Issuer' claim ('iss') must be an Integer",
  unknownApp: "Integration not found",
} as const;

export type FixtureApp = Fixture["apps"][number];
export type FixtureInstallation = Fixture["installations"][number];

/** An installation token the emulator minted. */
export interface MintedToken {
  token: string;
  installation: FixtureInstallation;
  expiresAtMs: number;
  permissions: Record<string, AccessLevel>;
  /** `all`, or the repositories it is narrowed to. */
  repositories: "all" | string[];
  principal: TokenFixture;
}

export class AppRegistry {
  readonly #keys = new Map<number, { privateKey: string; publicKey: KeyObject }>();
  readonly #tokens = new Map<string, MintedToken>();
  /** Every token minted, for tests: when and for whom (never refused as evidence). */
  readonly minted: { installationId: number; atMs: number; expiresAtMs: number }[] = [];
  #settings: AppSettings = { installationTokenLifetimeSeconds: INSTALLATION_TOKEN_LIFETIME_MS / 1000 };

  /** `settings`: as `configure` takes them, checked the same way (`startEmulator`'s option). */
  constructor(
    private readonly fixture: Fixture,
    private readonly clock: Clock,
    settings: Partial<AppSettings> = {},
  ) {
    this.configure(settings, "startEmulator", "apps");
  }

  /** The settings in force (a copy). */
  get settings(): AppSettings {
    return { ...this.#settings };
  }

  /**
   * Changes settings while the emulator runs: tokens minted from then on follow them, tokens already minted keep
   * their expiry. Throws `EmulatorUsageError` naming the field.
   */
  configure(changes: Partial<AppSettings>, operation = "apps.configure", argument = "settings"): AppSettings {
    const checked = settingsSchema.safeParse(changes, { reportInput: true });
    if (!checked.success) throw EmulatorUsageError.fromZod(operation, argument, checked.error);
    this.#settings = { ...this.#settings, ...(checked.data as Partial<AppSettings>) };
    return this.settings;
  }

  findApp(idOrClientId: string | number): FixtureApp | undefined {
    return this.fixture.apps.find((a) => String(a.id) === String(idOrClientId) || a.client_id === String(idOrClientId));
  }

  installation(id: number): FixtureInstallation | undefined {
    return this.fixture.installations.find((i) => i.id === id);
  }

  installationFor(appId: number, account: string): FixtureInstallation | undefined {
    return this.fixture.installations.find((i) => i.app_id === appId && i.account.toLowerCase() === account.toLowerCase());
  }

  /** The App's private key (PEM, PKCS#8), made on first use: what its owner would download. */
  privateKey(appId: number): string {
    return this.#keyPair(appId).privateKey;
  }

  #keyPair(appId: number): { privateKey: string; publicKey: KeyObject } {
    let pair = this.#keys.get(appId);
    if (!pair) {
      const app = this.findApp(appId);
      if (app?.public_key) {
        pair = { privateKey: "", publicKey: createPublicKey(app.public_key) };
      } else {
        const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
        pair = { privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(), publicKey };
      }
      this.#keys.set(appId, pair);
    }
    return pair;
  }

  /** Checks an `Authorization: Bearer <jwt>` header: the App, or the service's 401 message. */
  verifyJwt(header: string | undefined): { app: FixtureApp } | { error: string } {
    const match = /^bearer\s+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/i.exec(header?.trim() ?? "");
    if (!match) return { error: JWT_MESSAGES.undecodable };
    const [, head, body, signature] = match as unknown as [string, string, string, string];
    let claims: { iat?: unknown; exp?: unknown; iss?: unknown };
    try {
      const parsedHead = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { alg?: unknown };
      if (parsedHead.alg !== "RS256") return { error: JWT_MESSAGES.undecodable };
      claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as typeof claims;
    } catch {
      return { error: JWT_MESSAGES.undecodable };
    }
    if (typeof claims.iss !== "number" && typeof claims.iss !== "string") return { error: JWT_MESSAGES.issuer };
    const app = this.findApp(claims.iss);
    if (!app) return { error: JWT_MESSAGES.unknownApp };
    const signed = Buffer.from(`${head}.${body}`);
    if (!verify("RSA-SHA256", signed, this.#keyPair(app.id).publicKey, Buffer.from(signature, "base64url"))) {
      return { error: JWT_MESSAGES.undecodable };
    }
    const now = Math.floor(this.clock.now() / 1000);
    if (!Number.isInteger(claims.iat) || (claims.iat as number) > now + JWT_CLOCK_SKEW_S) return { error: JWT_MESSAGES.issuedAt };
    if (typeof claims.exp !== "number" || claims.exp <= now) return { error: JWT_MESSAGES.expired };
    if (claims.exp - (claims.iat as number) > JWT_MAX_LIFETIME_S || claims.exp > now + JWT_MAX_LIFETIME_S + JWT_CLOCK_SKEW_S) {
      return { error: JWT_MESSAGES.tooLong };
    }
    return { app };
  }

  /** Mints an installation token, narrowed as asked (the caller has checked the narrowing). */
  mint(installation: FixtureInstallation, narrowed: { repositories?: string[]; permissions?: Record<string, AccessLevel> }): MintedToken {
    const token = `emu_ghs_${randomBytes(18).toString("hex")}`;
    const nowMs = this.clock.now();
    const permissions = narrowed.permissions ?? installation.permissions;
    const repositories = narrowed.repositories ?? installation.repositories;
    const principal: TokenFixture = {
      name: `installation-${installation.id}`,
      token,
      type: "app_installation",
      scopes: [],
      grants: [{ org: installation.account, repositories, permissions }],
    };
    const minted: MintedToken = {
      token,
      installation,
      expiresAtMs: nowMs + this.#settings.installationTokenLifetimeSeconds * 1000,
      permissions,
      repositories,
      principal,
    };
    this.#tokens.set(token, minted);
    this.minted.push({ installationId: installation.id, atMs: nowMs, expiresAtMs: minted.expiresAtMs });
    return minted;
  }

  /** The principal of a minted token still alive on the emulator's clock; null for an expired or unknown one. */
  principalFor(header: string | undefined): TokenFixture | null {
    const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header?.trim() ?? "");
    const minted = match ? this.#tokens.get(match[1]!) : undefined;
    if (!minted) return null;
    if (this.clock.now() >= minted.expiresAtMs) {
      this.#tokens.delete(minted.token);
      return null;
    }
    return minted.principal;
  }
}
