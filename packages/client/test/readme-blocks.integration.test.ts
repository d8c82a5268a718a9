// packages/client/README.md's code blocks run as written against the emulator seeded as `pnpm emulator` seeds it:
// each block is a module run by tsx importing the built client as a user's script does. A block that uses names its
// section introduced earlier (`client`, the parameters of the call it shows) gets them from a prelude written here,
// before the block's own text; the block itself is never edited. Every block of the README is run here or named
// below with the test that runs it, so a new or changed block without a test fails.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED_DIGESTS, seedDemoWorld, startEmulator, type Emulator } from "@shiplog/emulator";
import { runProcess } from "../../../test/kit/process.js";
import { ROOT, readmeBlocks, typecheck, writeModule, type ReadmeBlock } from "../../../test/kit/readme.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const README = "packages/client/README.md";
let emu: Emulator;
let keyFile: string;

beforeAll(async () => {
  emu = await startEmulator();
  seedDemoWorld(emu);
  // The Endpoints section reads refs/tags/v1.4.0 of acme/web.
  const web = emu.state.git.repository("acme", "web")!;
  web.createRef("refs/tags/v1.4.0", web.head()!);
  keyFile = join(tempDir("shiplog-client-readme-"), "app.pem");
  writeFileSync(keyFile, emu.apps.privateKey(1001001), { mode: 0o600 });
});
afterAll(() => emu.stop());

/** The blocks other tests run as written. */
const RUN_ELSEWHERE: Record<string, string> = {
  // `npm install` of the packed package into an empty project, then imported and type-checked.
  "Install sh": "packages/client/test/package-install.integration.test.ts",
  // Run by tsx until SIGINT, restarted, resumed from its checkpoint file.
  "Tailing events ts": "test/readme-tailing.integration.test.ts",
};

/** What a block may use that its section introduced before it: written before the block's own text. */
const CLIENT = 'import * as shiplog from "@shiplog/client";\nconst client = shiplog.ShiplogClient.fromEnv(process.env);\n';
const PRELUDES: Record<string, string> = {
  Authentication: [
    "const vault = { read: async () => process.env.SHIPLOG_TOKEN! };",
    "const inAnHour = new Date(Date.now() + 3_600_000);",
    "",
  ].join("\n"),
  Errors: [
    CLIENT,
    // A request the client refuses before sending: the `invalid_request` branch runs.
    'const params = { org: "acme", cluster: "prod-eu-1", logical_environment: "production", deployments: [{ name: "ghcr.io/acme/api", digest: "sha256:nope", deployment_name: "api" }] };',
    "const resend = async (_entries: unknown) => {};",
    "",
  ].join("\n"),
  Endpoints: CLIENT,
  Pagination: CLIENT,
  Types: CLIENT,
  Plugins: [
    'import { ShiplogClient, type TransportPlugin } from "@shiplog/client";',
    "const isLeader = () => true;",
    "class NotLeaderError extends Error {}",
    'const record = (route: string, ms: number) => console.log(route, ms >= 0 ? "timed" : "");',
    "const token = process.env.SHIPLOG_TOKEN;",
    "",
  ].join("\n"),
};

const blocks = readmeBlocks(README);
const block = (heading: string, lang = "ts"): ReadmeBlock => {
  const found = blocks.filter((b) => b.heading === heading && b.lang === lang);
  if (found.length !== 1) throw new Error(`${README}: expected one ${lang} block under "${heading}", found ${found.length}`);
  return found[0]!;
};

/** Runs a block (after its prelude) by tsx with the emulator's URL and a token; its exit code and output. */
async function runBlock(heading: string, token = emu.tokens.admin!, extraCode = "") {
  const file = writeModule(
    `client-readme-${heading.toLowerCase().replace(/\W+/g, "-")}`,
    `${PRELUDES[heading] ?? ""}${block(heading).code}${extraCode}`,
  );
  return runProcess(join(ROOT, "node_modules", ".bin", "tsx"), [file], {
    env: {
      PATH: process.env.PATH ?? "",
      SHIPLOG_API_URL: emu.url,
      SHIPLOG_TOKEN: token,
      // The Authentication section reads the App's key file; elsewhere a token and App settings together are refused.
      ...(heading === "Authentication" && { SHIPLOG_APP_PRIVATE_KEY_FILE: keyFile }),
    },
  });
}

describe("packages/client/README.md, as written", () => {
  it("every block is run here or by the test named for it", () => {
    const covered = new Set([
      "Install ts",
      "A first call ts",
      "Authentication ts",
      "The environment ts",
      "Errors ts",
      "Endpoints ts",
      "Pagination ts",
      "Types ts",
      "Plugins ts",
      ...Object.keys(RUN_ELSEWHERE),
    ]);
    expect(blocks.map((b) => `${b.heading} ${b.lang}`).filter((name) => !covered.has(name))).toEqual([]);
    expect(blocks).toHaveLength(covered.size);
  });

  it("every ts block type-checks (strict, NodeNext) against the built client's types, after its prelude", {
    timeout: 120_000,
  }, async () => {
    const modules: Record<string, string> = {};
    for (const b of blocks.filter((b) => b.lang === "ts")) {
      const name = b.heading.toLowerCase().replace(/\W+/g, "-");
      if (b.heading === "Install") {
        // One line for ES modules, one for CommonJS: each in a file of its kind.
        const [esm, cjs] = b.code.trimEnd().split("\n");
        modules[`${name}.mts`] = `${esm}\nexport const made = new ShiplogClient();\n`;
        modules[`${name}.cts`] = `${cjs}\nexport const made = new ShiplogClient();\n`;
      } else {
        modules[`${name}.mts`] = `export {};\n${PRELUDES[b.heading] ?? ""}${b.code}`;
      }
    }
    expect(await typecheck(modules)).toBe("");
  });

  it("Install: the ESM import and the CommonJS require, each line in plain Node", async () => {
    const [esm, cjs] = block("Install").code.trimEnd().split("\n");
    for (const [line, ext] of [
      [esm!, "mjs"],
      [cjs!, "cjs"],
    ] as const) {
      const file = writeModule(`client-readme-install-${ext}`, `${line}\nconsole.log(typeof ShiplogClient);\n`).replace(
        /\.mts$/,
        `.${ext}`,
      );
      writeFileSync(file, `${line}\nconsole.log(typeof ShiplogClient);\n`);
      const run = await runProcess(process.execPath, [file], { env: { PATH: process.env.PATH ?? "" } });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("function\n");
    }
  });

  it("A first call: sets a cluster's records from SHIPLOG_TOKEN and SHIPLOG_API_URL", async () => {
    const run = await runBlock("A first call");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("1 records set\n");
  });

  it("Authentication: a fixed token, a token provider and an App installation, each client made as shown", async () => {
    // The clients the block makes send nothing by themselves; the provider and the App's key are checked when made.
    const run = await runBlock("Authentication", emu.tokens.admin, "\nconsole.log('made');\n");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("made\n");
  });

  it("The environment: fromEnv with an option, the storage records of the seeded digest", async () => {
    const run = await runBlock("The environment");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("1 storage records\n");
    expect(block("The environment").code).toContain(SEEDED_DIGESTS.api);
  });

  it("Errors: a request the client refuses lands in the invalid_request branch, nothing sent", async () => {
    const before = emu.requests.list().length;
    const run = await runBlock("Errors");
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/deployments\[0\]\.digest/);
    expect(emu.requests.list()).toHaveLength(before);
  });

  it("Endpoints: call and paginate by operation id", async () => {
    const run = await runBlock("Endpoints");
    expect(run.stderr).toBe("");
    expect(run.stdout.split("\n").filter(Boolean)).toContain("mentioned");
  });

  it("Pagination: the organization's public events, one type a line", async () => {
    const run = await runBlock("Pagination");
    expect(run.stderr).toBe("");
    expect(run.stdout.split("\n").filter(Boolean)).toEqual(expect.arrayContaining(["PushEvent", "WatchEvent", "CreateEvent"]));
  });

  it("Types: a switch on an event's type, each branch reading its own payload", async () => {
    const run = await runBlock("Types");
    expect(run.stderr).toBe("");
    const lines = run.stdout.split("\n").filter(Boolean);
    expect(lines.find((line) => line.startsWith("push "))).toMatch(/^push refs\/heads\/\S+ [0-9a-f]{7}$/);
    expect(lines.find((line) => line.startsWith("create "))).toMatch(/^create (branch|tag|repository)$/);
  });

  it("Plugins: a client with a fence and a timing plugin is made; its calls pass through both", async () => {
    // After the block: a call through a client with the block's plugins (the block's own client calls nothing).
    const call = [
      "",
      "const used = new ShiplogClient({ baseUrl: process.env.SHIPLOG_API_URL, token, plugins: [fence, timing] });",
      'await used.git.getRef({ owner: "acme", repo: "web", ref: "tags/v1" });',
      "",
    ].join("\n");
    const run = await runBlock("Plugins", emu.tokens.admin, call);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/git\/ref\/\{ref\} timed\n$/);
    expect(run.code).toBe(0);
  });
});
