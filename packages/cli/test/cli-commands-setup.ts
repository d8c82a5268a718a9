// The setup the CLI's command tests share: one emulator per file, seeded with a storage record and a deployment
// record of `digest`, and `shiplog` run against it. `emulator`, `dir` and `commits` are live bindings, set once the
// hooks have run.
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { runCli, type Run } from "./cli-process.js";

/** The image digest the emulator holds records of. */
export const digest = `sha256:${createHash("sha256").update("web image").digest("hex")}`;

export let emulator: Emulator;
/** A temporary directory for the file's input files. */
export let dir: string;
/** The commits of acme/web, oldest first. */
export let commits: string[];

/** Registers the file's hooks: start and seed the emulator, make the directory; stop and remove them at the end. */
export function useCliEmulator(): void {
  beforeAll(async () => {
    emulator = await startEmulator();
    dir = tempDir("shiplog-cli-");
    commits = emulator.state.git
      .repository("acme", "web")!
      .commits()
      .map((c) => c.sha);
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    await client.artifacts.createStorageRecord({
      org: "acme",
      name: "ghcr.io/acme/web",
      digest,
      registry_url: "https://ghcr.io",
      repository: "acme/web",
      github_repository: "web",
    });
    await client.artifacts.setClusterDeploymentRecords({
      org: "acme",
      cluster: "prod-eu-1",
      logical_environment: "production",
      deployments: [{ name: "ghcr.io/acme/web", digest, deployment_name: "shop/web", github_repository: "web" }],
    });
  });
  afterAll(async () => {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** Runs the CLI with a token (the admin's unless given; null: none). */
export function shiplog(args: string[], given?: string | null): Promise<Run> {
  const token = given === null ? undefined : (given ?? emulator.tokens.admin);
  return runCli(args, { SHIPLOG_API_URL: emulator.url, ...(token && { SHIPLOG_TOKEN: token }) });
}
