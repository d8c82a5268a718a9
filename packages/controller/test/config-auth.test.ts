// The controller's authentication settings: exactly one of a token or an App, the App's key read and checked at
// start and never echoed; mutating calls serialised unless switched off.
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, redactedConfig } from "../src/config/config.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { materialize, REFUSED } from "./config-refusals.js";

const BASE = { SHIPLOG_ORG: "acme", SHIPLOG_CLUSTER: "prod-eu", SHIPLOG_LOGICAL_ENVIRONMENT: "production" };
const dir = tempDir("shiplog-config-auth-");
const keyFile = join(dir, "app.pem");
const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
writeFileSync(keyFile, pem);
const keyLine = pem.split("\n")[1]!;

function issuesOf(env: Record<string, string>): { field: string; rule: string; message: string }[] {
  try {
    loadConfig([], { ...BASE, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(JSON.stringify(error) + (error as Error).message).not.toContain(keyLine);
    return (error as ConfigError).issues as never;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig: authentication", () => {
  it("an App: id and key file, installation found from the organization unless given; the key redacted in logs", () => {
    const config = loadConfig([], { ...BASE, SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: keyFile });
    expect(config.app).toEqual({ appId: "123456", privateKeyFile: keyFile, privateKey: pem });
    expect(config.token).toBe("");
    expect(JSON.stringify(redactedConfig(config))).not.toContain(keyLine);
    expect(
      loadConfig(["--app-installation-id", "3001"], { ...BASE, SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: keyFile }).app
        ?.installationId,
    ).toBe(3001);
  });

  it("names a key file that is not a PEM RSA key, without showing it", () => {
    const notPem = join(dir, "not.pem");
    writeFileSync(notPem, `${keyLine}\n`);
    expect(issuesOf({ SHIPLOG_APP_ID: "123456", SHIPLOG_APP_PRIVATE_KEY_FILE: notPem })).toEqual([
      {
        field: "--app-private-key-file / SHIPLOG_APP_PRIVATE_KEY_FILE",
        rule: "PEM RSA private key",
        message: `${JSON.stringify(notPem)} does not hold a PEM RSA private key (the App's .pem file)`,
      },
    ]);
  });

  // Every refusal of the shared table (config-refusals.ts) that is this file's (a token beside an App, what an App
  // lacks, its key file missing or not a key, a bad App id, no credentials at all): exactly the issue named.
  it.each(REFUSED.filter((c) => c.source === "config-auth.test.ts").map((c) => [`${JSON.stringify(c.env)} -> ${c.rule}`, c] as const))(
    "refuses %s",
    (_name, c) => {
      expect(issuesOf(materialize(c, tempDir("shiplog-config-auth-refused-")))).toEqual([
        expect.objectContaining({ field: c.field, rule: c.rule }),
      ]);
    },
  );

  it("serialises writes by default; --serialize-writes=false switches it off", () => {
    expect(loadConfig([], { ...BASE, SHIPLOG_TOKEN: "t" }).serializeWrites).toBe(true);
    expect(loadConfig([], { ...BASE, SHIPLOG_TOKEN: "t", SHIPLOG_SERIALIZE_WRITES: "false" }).serializeWrites).toBe(false);
  });
});
