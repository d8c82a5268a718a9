import { afterAll, beforeAll, expect, it } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { ROOT, blocksUnder, writeModule } from "./kit/readme.js";
import { runProcess } from "./kit/process.js";
import { join } from "node:path";

// The root README's "Quick start: the library and the command line", run as written against the emulator: the ts
// block by tsx with only SHIPLOG_API_URL and SHIPLOG_TOKEN set, importing the built client as a user's script does.
const README = "README.md";
const SECTION = "Quick start: the library and the command line";
const digest = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
  const admin = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
  await admin.artifacts.createStorageRecord({
    org: "acme",
    name: "ghcr.io/acme/web",
    digest,
    registry_url: "https://ghcr.io",
    github_repository: "web",
  });
  await admin.artifacts.setClusterDeploymentRecords({
    org: "acme",
    cluster: "prod-eu-1",
    logical_environment: "production",
    deployments: [{ name: "ghcr.io/acme/web", digest, deployment_name: "shop/web", github_repository: "web" }],
  });
});
afterAll(() => emu.stop());

it("the library example prints where the artifact is stored and where it runs, from SHIPLOG_API_URL and SHIPLOG_TOKEN", async () => {
  const [block] = blocksUnder(README, SECTION, "ts");
  const file = writeModule("quick-start-library", block!.code);
  const run = await runProcess(join(ROOT, "node_modules", ".bin", "tsx"), [file], {
    env: { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emu.url, SHIPLOG_TOKEN: emu.tokens.admin },
  });
  expect(run.stderr).toBe("");
  expect(run.stdout.split("\n").filter(Boolean)).toEqual(["ghcr.io/acme/web https://ghcr.io", "shop/web prod-eu-1"]);
  expect(run.code).toBe(0);
});
