// `shiplog` authenticating as an App installation, as a subprocess against the emulator: the installation found from
// the organization the command names (or given), its token minted and used; every mistake in the App settings one
// usage line naming the setting, exit 2, nothing sent; and the key never printed, whatever happens.
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { runCli, type Run } from "./cli-process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const APP_ID = "1001001";
const digest = `sha256:${"4".repeat(64)}`;
let emulator: Emulator;
let dir: string;
let keyFile: string;
let key: string;

beforeAll(async () => {
  emulator = await startEmulator();
  dir = tempDir("shiplog-cli-app-");
  key = emulator.apps.privateKey(Number(APP_ID));
  keyFile = join(dir, "app.pem");
  writeFileSync(keyFile, key, { mode: 0o600 });
});
afterAll(async () => {
  await emulator.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => emulator.requests.clear());

/** Runs the CLI with the given environment only (no token unless given). */
const shiplog = (args: string[], env: Record<string, string> = {}) => runCli(args, { SHIPLOG_API_URL: emulator.url, ...env });
const sent = () => emulator.requests.list().map((r) => `${r.method} ${r.route} ${r.status} ${r.tokenName ?? "-"}`);
/** Neither the key (its armour or a line of it), nor a JWT it signed, nor an installation token may be printed. */
function expectNoSecret(run: Run): void {
  const output = run.stdout + run.stderr;
  expect(output).not.toContain("-----BEGIN");
  expect(output).not.toContain(key.split("\n")[1]!);
  expect(output).not.toMatch(/emu_ghs_|eyJ[\w-]{10,}/);
}

describe("App credentials", () => {
  it("--app-id and --app-private-key-file: the installation is found from --org, its token minted and used", async () => {
    const run = await shiplog(["records", "storage", "--org", "acme", digest, "--app-id", APP_ID, "--app-private-key-file", keyFile]);
    expect(run.stderr).toBe(`0 storage records of ${digest}\n`);
    expect(run.code).toBe(0);
    expect(sent()).toEqual([
      "GET /orgs/:org/installation 200 -",
      "POST /app/installations/:installation_id/access_tokens 201 -",
      "GET /orgs/:org/artifacts/:subject_digest/metadata/storage-records 200 installation-3001",
    ]);
    expectNoSecret(run);
  });

  it("the same from SHIPLOG_APP_* variables, the installation given: a write with --json, no lookup", async () => {
    const file = join(dir, "cluster.json");
    writeFileSync(
      file,
      JSON.stringify({
        logical_environment: "production",
        deployments: [{ name: "web", digest, deployment_name: "app/web", github_repository: "web" }],
      }),
    );
    const env = { SHIPLOG_APP_ID: APP_ID, SHIPLOG_APP_PRIVATE_KEY_FILE: keyFile, SHIPLOG_APP_INSTALLATION_ID: "3001" };
    const run = await shiplog(["records", "set-cluster", "--org", "acme", "--cluster", "app-1", "--file", file, "--json"], {
      ...env,
      NODE_DEBUG: "undici,fetch,http,net",
    });
    // NODE_DEBUG has Node trace its HTTP work on stderr: neither the key nor a token is in it.
    expect(run.stderr).toMatch(/^FETCH \d+: sending request to POST /m);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ total_count: 1 });
    expect(sent()).toEqual([
      "POST /app/installations/:installation_id/access_tokens 201 -",
      "POST /orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster 200 installation-3001",
    ]);
    expectNoSecret(run);
  });

  it("tag create finds the installation from the repository's owner, and says what the installation lacks", async () => {
    const commit = emulator.state.git.repository("acme", "web")!.head()!;
    const run = await shiplog([
      "tag",
      "create",
      "acme/web",
      "v9.9.9",
      "--object",
      commit,
      "--app-id",
      APP_ID,
      "--app-private-key-file",
      keyFile,
    ]);
    // The fixture App may read contents but not write them: the service's 403, with the permission named.
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^shiplog tag create: POST \/repos\/\{owner\}\/\{repo\}\/git\/tags answered 403: .*contents/);
    expect(sent()[0]).toBe("GET /orgs/:org/installation 200 -");
    expectNoSecret(run);
  });

  it("the inbox needs a classic token: refused before anything is sent (exit 1)", async () => {
    const run = await shiplog([
      "notifications",
      "list",
      "--app-id",
      APP_ID,
      "--app-private-key-file",
      keyFile,
      "--app-installation-id",
      "3001",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^shiplog notifications list: .*personal access token \(classic\).*nothing was sent\n$/);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("an organization without the App: exit 3 saying so; another App's key: exit 4 naming the settings", async () => {
    const missing = await shiplog([
      "records",
      "storage",
      "--org",
      "initech",
      digest,
      "--app-id",
      APP_ID,
      "--app-private-key-file",
      keyFile,
    ]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(
      /answered 404: .*the App is not installed on organization initech: install it there, or give --app-installation-id\n$/,
    );
    const otherKey = join(dir, "other.pem");
    writeFileSync(otherKey, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }));
    const refused = await shiplog(["records", "storage", "--org", "acme", digest, "--app-id", APP_ID, "--app-private-key-file", otherKey]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/answered 401: .*check --app-id, and that --app-private-key-file holds that App's current key\n$/);
    for (const run of [missing, refused]) expect(run.stderr.split("\n")).toHaveLength(2);
  });
});

describe("App credentials given wrong: one usage line naming the setting, exit 2, nothing sent", () => {
  const pem = () => keyFile;
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      "token and App",
      ["--app-id", APP_ID, "--app-private-key-file", "KEY"],
      { SHIPLOG_TOKEN: "emu_fg_admin_0000000000000000" },
      /SHIPLOG_TOKEN and --app-id, --app-private-key-file are both set: authenticate with a token or as an App, not both/,
    ],
    ["token file and App", ["--token-file", "KEY", "--app-id", APP_ID], {}, /--token-file and --app-id are both set/],
    [
      "an id without a key",
      ["--app-id", APP_ID],
      {},
      /--app-private-key-file \(or SHIPLOG_APP_PRIVATE_KEY_FILE\) is needed with --app-id: /,
    ],
    [
      "a key without an id",
      [],
      { SHIPLOG_APP_PRIVATE_KEY_FILE: "KEY" },
      /--app-id \(or SHIPLOG_APP_ID\) is needed with SHIPLOG_APP_PRIVATE_KEY_FILE/,
    ],
    [
      "an installation alone",
      ["--app-installation-id", "3001"],
      {},
      /--app-id \(or SHIPLOG_APP_ID\) and --app-private-key-file \(or SHIPLOG_APP_PRIVATE_KEY_FILE\) are needed with --app-installation-id/,
    ],
    [
      "a key file that does not exist",
      ["--app-id", APP_ID, "--app-private-key-file", "/nonexistent/app.pem"],
      {},
      /--app-private-key-file: "\/nonexistent\/app\.pem" does not exist \[rule: existing file\]/,
    ],
    [
      "a directory",
      ["--app-id", APP_ID],
      { SHIPLOG_APP_PRIVATE_KEY_FILE: "DIR" },
      /SHIPLOG_APP_PRIVATE_KEY_FILE: ".*" is a directory, not a regular file \[rule: regular file\]/,
    ],
    [
      "a public key",
      ["--app-id", APP_ID, "--app-private-key-file", "PUBLIC"],
      {},
      /--app-private-key-file ".*public\.pem": is not a PEM private key/,
    ],
    [
      "a key pasted into the variable",
      ["--app-id", APP_ID],
      { SHIPLOG_APP_PRIVATE_KEY_FILE: "PASTED" },
      /SHIPLOG_APP_PRIVATE_KEY_FILE: holds key content \(a PEM block\) where the path of a file belongs: put the App's private key in a file/,
    ],
    [
      "a bad installation id",
      ["--app-id", APP_ID, "--app-private-key-file", "KEY", "--app-installation-id", "12x"],
      {},
      /--app-installation-id: must be the installation's id, a positive whole number, got "12x"/,
    ],
    [
      "a bad App id",
      ["--app-private-key-file", "KEY"],
      { SHIPLOG_APP_ID: "my app" },
      /SHIPLOG_APP_ID: must be the App's numeric id or client id/,
    ],
  ];
  it.each(cases)("%s", async (_, args, env, message) => {
    mkdirSync(join(dir, "a-directory"), { recursive: true });
    const publicKey = join(dir, "public.pem");
    writeFileSync(publicKey, generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "pem" }));
    const fill = (value: string) => ({ KEY: pem(), DIR: join(dir, "a-directory"), PUBLIC: publicKey, PASTED: key })[value] ?? value;
    const run = await shiplog(
      ["records", "storage", "--org", "acme", digest, ...args.map(fill)],
      Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)])),
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(new RegExp(`^shiplog records storage: ${message.source}`));
    expect(run.stderr.split("\n")).toHaveLength(2);
    expectNoSecret(run);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("a command that names no organization needs the installation's id", async () => {
    const run = await shiplog(["events", "tail", "public", "--app-id", APP_ID, "--app-private-key-file", keyFile]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "shiplog events tail: --app-installation-id (or SHIPLOG_APP_INSTALLATION_ID) is needed here: shiplog events tail names no organization to " +
        "find the App's installation in (see shiplog events tail --help)\n",
    );
    expect(emulator.requests.list()).toEqual([]);
  });
});
