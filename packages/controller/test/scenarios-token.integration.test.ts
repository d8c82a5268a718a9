// The API token as Kubernetes delivers it: a mounted Secret file, updated in place while the controller runs.
import { renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startHealthServer, type HealthServer } from "@shiplog/controller";
import { TOKEN_REFUSED_FLUSHES_UNREADY } from "@shiplog/controller/internal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPO, converged, startHarness, type Harness } from "./scenario-harness.js";
import { WAIT } from "../../../test/kit/wait.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const CLUSTER_ROUTE = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";

let h: Harness | undefined;
let health: HealthServer | undefined;
afterEach(async () => {
  await health?.close();
  health = undefined;
  await h?.stop();
  h = undefined;
});

function tokenFile(token: string): string {
  const file = join(tempDir("shiplog-token-"), "token");
  writeFileSync(file, `${token}\n`);
  return file;
}

const clusterCalls = (h: Harness) => h.emulator.requests.list({ method: "POST", route: CLUSTER_ROUTE });

describe("token rotation", () => {
  it("a token file replaced mid-run (as the kubelet swaps a Secret): later calls carry the new token", async () => {
    const file = tokenFile("placeholder");
    h = await startHarness({
      flags: ["--token-file", file],
      // The harness gives SHIPLOG_TOKEN; beside a token file it is refused (one token source): emptied, it is unset.
      env: { SHIPLOG_TOKEN: "" },
      beforeStart: async (cluster, emulator) => {
        writeFileSync(file, `${emulator.tokens.admin}\n`);
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    await converged(h);
    expect(new Set(clusterCalls(h).map((r) => r.tokenName))).toEqual(new Set(["admin"]));

    // Written beside it and renamed over it: an atomic replacement, as the kubelet's ..data swap is.
    writeFileSync(`${file}.new`, `${h.emulator.tokens.installation}\n`);
    renameSync(`${file}.new`, file);
    const seen = clusterCalls(h).length;
    await h.cluster.script.createDeployment({ namespace: "shop", name: "api", image: "redis:7", annotations: REPO });
    await converged(h);
    const later = clusterCalls(h).slice(seen);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((r) => r.tokenName === "installation" && r.status < 300)).toBe(true);
  });

  it("a 401 makes the controller read the token file again (even when its stamp did not move) and retry once", async () => {
    const revoked = "emu_iat_revoked_00000000000000";
    const file = tokenFile(revoked);
    const stamp = 1_700_000_000; // whole seconds: set back exactly after the in-place write
    utimesSync(file, stamp, stamp);
    h = await startHarness({
      flags: ["--token-file", file],
      env: { SHIPLOG_TOKEN: "" },
      beforeStart: async (cluster) => {
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    await vi.waitFor(() => expect(clusterCalls(h!).some((r) => r.status === 401)).toBe(true), WAIT);
    // The flush that met the 401 is counted once it ends, a moment after the emulator logged the answer.
    await vi.waitFor(() => expect(h!.controller.status().requests).toBeGreaterThan(0), WAIT);

    // The new token has the same length, written in place, with the old modification time put back: only the 401
    // can tell the controller that the file holds something else now.
    const valid = h.emulator.tokens.installation!;
    expect(valid.length).toBe(revoked.length);
    const before = statSync(file);
    writeFileSync(file, `${valid}\n`);
    utimesSync(file, stamp, stamp);
    expect(statSync(file)).toMatchObject({ mtimeMs: before.mtimeMs, ino: before.ino, size: before.size });
    await converged(h);
    const calls = clusterCalls(h);
    const firstOk = calls.findIndex((r) => r.status < 300);
    expect(calls[firstOk]!.tokenName).toBe("installation");
    // The refused attempt and its retry with the new token are one call of the controller's.
    expect(calls[firstOk - 1]!.status).toBe(401);
  });
});

describe("readiness with a refused token", () => {
  it("/readyz fails after consecutive flushes whose every call was refused (403, then 401), without naming the token, and recovers", async () => {
    const file = tokenFile("placeholder");
    h = await startHarness({
      flags: ["--token-file", file],
      env: { SHIPLOG_TOKEN: "" },
      beforeStart: async (cluster, emulator) => {
        // Artifact metadata read only: the service answers 403 to every cluster call.
        writeFileSync(file, `${emulator.tokens.readOnly}\n`);
        await cluster.script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", annotations: REPO });
      },
    });
    health = await startHealthServer(h.controller, { host: "127.0.0.1", port: 0, staleAfterMs: 30_000 });
    const readyz = async () => {
      const response = await fetch(`${health!.url}/readyz`);
      return { status: response.status, body: await response.text() };
    };
    await vi.waitFor(async () => expect((await readyz()).body).toContain("refused the API token"), WAIT);
    const refused = await readyz();
    expect(refused.status).toBe(503);
    expect(refused.body).toContain(
      `the service refused the API token (403) on every call of the last ${TOKEN_REFUSED_FLUSHES_UNREADY} flushes`,
    );
    expect(refused.body).not.toContain(h.emulator.tokens.readOnly!);
    expect(clusterCalls(h).length).toBeGreaterThanOrEqual(TOKEN_REFUSED_FLUSHES_UNREADY);
    expect(clusterCalls(h).every((r) => r.status === 403)).toBe(true);

    // An unknown (expired) token: 401.
    writeFileSync(`${file}.new`, "emu_iat_expired_00000000000000\n");
    renameSync(`${file}.new`, file);
    await vi.waitFor(async () => expect((await readyz()).body).toContain("(401)"), WAIT);
    expect((await readyz()).status).toBe(503);

    // A valid token: the next call succeeds, and the pod is ready again.
    writeFileSync(`${file}.new`, `${h.emulator.tokens.installation}\n`);
    renameSync(`${file}.new`, file);
    await converged(h);
    await vi.waitFor(async () => expect(await readyz()).toEqual({ status: 200, body: "ok: leader\n" }), WAIT);
  });
});
