// The installation token lifetime as a setting of a run (`apps.installationTokenLifetimeSeconds`): a token minted
// under it answers `expires_at` that far ahead on the emulator's clock and is refused (401) from then on; a change
// applies to tokens minted afterwards; a value outside the rule is refused naming the setting, before anything runs.
import { ShiplogClient, appInstallationAuth } from "@shiplog/client";
import { EmulatorUsageError, startEmulator, type Emulator } from "@shiplog/emulator";
import { afterEach, describe, expect, it } from "vitest";

const APP_ID = 1_001_001;
let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.stop();
  emulator = undefined;
});

/** A client acting as acme's installation of the fixture App. */
function appClient(emu: Emulator) {
  // On its own clock, as a client is: moving the emulator's clock makes the token expire under it.
  const auth = appInstallationAuth({ appId: APP_ID, privateKey: emu.apps.privateKey(APP_ID), org: "acme" });
  return { client: new ShiplogClient({ baseUrl: emu.url, auth, retry: false }) };
}

const list = (client: ShiplogClient) => client.git.listMatchingRefs({ owner: "acme", repo: "web", ref: "tags" });

describe("installation token lifetime", () => {
  it("defaults to the service's hour", async () => {
    emulator = await startEmulator();
    expect(emulator.apps.settings).toEqual({ installationTokenLifetimeSeconds: 3600 });
    await list(appClient(emulator).client);
    expect(emulator.apps.minted.map((m) => m.expiresAtMs - m.atMs)).toEqual([3_600_000]);
  });

  it("set for a run: tokens expire that soon on the emulator's clock, and are refused after it", async () => {
    emulator = await startEmulator({ apps: { installationTokenLifetimeSeconds: 540 } });
    const { client } = appClient(emulator);
    await list(client);
    const minted = emulator.apps.minted[0]!;
    expect(minted.expiresAtMs - minted.atMs).toBe(540_000);
    // Nine minutes on: the service calls it expired (401), and the client mints another.
    emulator.clock.advance(540_000);
    await list(client);
    const answers = emulator.requests.list().map((r) => `${r.method} ${r.route} ${r.status}`);
    expect(answers.filter((a) => a.includes("matching-refs"))).toEqual([
      "GET /repos/:owner/:repo/git/matching-refs/* 200",
      "GET /repos/:owner/:repo/git/matching-refs/* 401",
      "GET /repos/:owner/:repo/git/matching-refs/* 200",
    ]);
    expect(emulator.apps.minted).toHaveLength(2);
  });

  it("changed while running: tokens minted afterwards follow it, those minted before keep their expiry", async () => {
    emulator = await startEmulator();
    await list(appClient(emulator).client);
    expect(emulator.apps.configure({ installationTokenLifetimeSeconds: 120 })).toEqual({ installationTokenLifetimeSeconds: 120 });
    await list(appClient(emulator).client);
    expect(emulator.apps.minted.map((m) => m.expiresAtMs - m.atMs)).toEqual([3_600_000, 120_000]);
  });

  it("refuses a lifetime that is not 1 to 3600 whole seconds, naming the setting", async () => {
    for (const [value, words] of [
      [0, "at least 1 second"],
      [3601, "at most 3600 seconds"],
      [1.5, "whole number of seconds"],
    ] as const) {
      const error = await startEmulator({ apps: { installationTokenLifetimeSeconds: value } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmulatorUsageError);
      expect((error as EmulatorUsageError).message).toContain("apps.installationTokenLifetimeSeconds");
      expect((error as EmulatorUsageError).message).toContain(words);
    }
    emulator = await startEmulator();
    expect(() => emulator!.apps.configure({ installationTokenLifetime: 5 } as never)).toThrow(/settings/);
    expect(emulator.apps.settings.installationTokenLifetimeSeconds).toBe(3600);
  });
});
