import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RequestValidationError, ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { tempDir } from "../../../test/kit/temp-dir.js";

// ShiplogClient.fromEnv(env, options): the environment convention the CLI and the controller share, read only from
// the object given, against the emulator over HTTP.
let emu: Emulator;
let dir: string;
const digest = `sha256:${"ab".repeat(32)}`;

beforeAll(async () => {
  emu = await startEmulator();
  dir = tempDir("shiplog-from-env-");
  await new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false }).artifacts.createStorageRecord({
    org: "acme",
    name: "ghcr.io/acme/web",
    digest,
    registry_url: "https://ghcr.io",
    github_repository: "web",
  });
});
afterAll(() => emu.stop());

const names = async (client: ShiplogClient) =>
  (await client.artifacts.listStorageRecords({ org: "acme", subject_digest: digest })).storage_records.map((r) => r.name);

/** The issues of the RequestValidationError `make` throws. */
function refused(make: () => unknown): { field: string; message: string }[] {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return (error as RequestValidationError).issues.map(({ field, message }) => ({ field, message }));
  }
  throw new Error("expected a RequestValidationError");
}

it("takes SHIPLOG_API_URL and SHIPLOG_TOKEN from the object given", async () => {
  const client = ShiplogClient.fromEnv({ SHIPLOG_API_URL: emu.url, SHIPLOG_TOKEN: emu.tokens.admin });
  expect(await names(client)).toEqual(["ghcr.io/acme/web"]);
  expect(emu.requests.list().at(-1)?.tokenName).toBe("admin");
});

it("reads the token from SHIPLOG_TOKEN_FILE (final newline ignored), which wins over SHIPLOG_TOKEN", async () => {
  const file = join(dir, "token");
  writeFileSync(file, `${emu.tokens.admin}\n`);
  const client = ShiplogClient.fromEnv({ SHIPLOG_API_URL: emu.url, SHIPLOG_TOKEN_FILE: file });
  expect(await names(client)).toEqual(["ghcr.io/acme/web"]);
  expect(refused(() => ShiplogClient.fromEnv({ SHIPLOG_TOKEN_FILE: join(dir, "missing") }))[0]?.field).toBe("SHIPLOG_TOKEN_FILE");
});

it("authenticates as an App's installation from SHIPLOG_APP_ID, SHIPLOG_APP_PRIVATE_KEY_FILE and SHIPLOG_ORG", async () => {
  const key = join(dir, "app.pem");
  writeFileSync(key, emu.apps.privateKey(1001001), { mode: 0o600 });
  const client = ShiplogClient.fromEnv({
    SHIPLOG_API_URL: emu.url,
    SHIPLOG_APP_ID: "1001001",
    SHIPLOG_APP_PRIVATE_KEY_FILE: key,
    SHIPLOG_ORG: "acme",
  });
  expect(await names(client)).toEqual(["ghcr.io/acme/web"]);
  expect(emu.requests.list().at(-1)?.tokenName).toMatch(/^installation-/);
});

it("lets options win over the variables, and empty variables count as unset", async () => {
  const client = ShiplogClient.fromEnv(
    { SHIPLOG_API_URL: "https://unused.example", SHIPLOG_TOKEN: " " },
    { baseUrl: emu.url, token: emu.tokens.admin },
  );
  expect(await names(client)).toEqual(["ghcr.io/acme/web"]);
});

it("refuses a token and an App together, half an App, and a plain-http URL the token would travel to, naming the variable", () => {
  expect(refused(() => ShiplogClient.fromEnv({ SHIPLOG_TOKEN: "t", SHIPLOG_APP_ID: "1" }))).toEqual([
    { field: "SHIPLOG_TOKEN", message: "SHIPLOG_TOKEN and SHIPLOG_APP_ID are both set: authenticate with a token or as an App, not both" },
  ]);
  expect(refused(() => ShiplogClient.fromEnv({ SHIPLOG_APP_ID: "1" }))[0]?.field).toBe("SHIPLOG_APP_PRIVATE_KEY_FILE");
  const [issue] = refused(() => ShiplogClient.fromEnv({ SHIPLOG_API_URL: "http://api.example", SHIPLOG_TOKEN: "secret-token" }));
  expect(issue?.field).toBe("SHIPLOG_API_URL");
  expect(issue?.message).toContain("https://");
  expect(JSON.stringify(issue)).not.toContain("secret-token");
});

it("reads nothing from process.env when given an object", async () => {
  process.env.SHIPLOG_TOKEN = emu.tokens.admin;
  try {
    const client = ShiplogClient.fromEnv({ SHIPLOG_API_URL: emu.url });
    await expect(names(client)).rejects.toMatchObject({ code: "authentication_required" });
    expect(emu.requests.list().at(-1)?.tokenName).toBeUndefined();
  } finally {
    delete process.env.SHIPLOG_TOKEN;
  }
});
