// The emulator in code: an injected clock drives what it answers (any TransportClock as its source: its windows and
// waits on a virtual clock), and seedDemoWorld fills the default world (and refuses a fixture that lacks what it
// seeds), over real HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { Clock, defaultFixture, EmulatorUsageError, SEEDED_DIGESTS, seedDemoWorld, startEmulator, type Emulator } from "@shiplog/emulator";
import { countingWaits } from "../../../test/kit/counted-clock.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.stop();
});

async function start(options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

const get = (emulator: Emulator, path: string, token: string | undefined) =>
  fetch(`${emulator.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe("an injected clock", () => {
  it("is the emulator's: the retired import endpoints answer before their cutoff and 410 after it", async () => {
    const clock = new Clock();
    clock.set("2024-03-01T12:00:00Z", { freeze: true });
    const emulator = await start({ clock });
    expect(emulator.clock).toBe(clock);
    const start1 = await fetch(`${emulator.url}/repos/acme/api/import`, {
      method: "PUT",
      headers: { authorization: `Bearer ${emulator.tokens.classic}` },
      body: JSON.stringify({ vcs_url: "https://svn.example.com/svn/x" }),
    });
    expect(start1.status).toBe(201);
    clock.set("2024-04-12T00:00:01Z", { freeze: true });
    expect((await get(emulator, "/repos/acme/api/import", emulator.tokens.classic)).status).toBe(410);
  });
});

describe("a TransportClock as the emulator's source of time", () => {
  const notifications = (emulator: Emulator) => get(emulator, "/notifications", emulator.tokens.classic);

  it("counts the primary limit's hour on it: spent, then a new window once it has moved an hour", async () => {
    const source = new VirtualClock(Date.parse("2024-03-01T12:00:00Z"));
    const emulator = await start({ clock: source, rateLimit: 2 });
    const first = await notifications(emulator);
    expect(first.headers.get("x-ratelimit-reset")).toBe(String(Date.parse("2024-03-01T13:00:00Z") / 1000));
    expect((await notifications(emulator)).status).toBe(200);
    await source.advance(3_599_999);
    expect((await notifications(emulator)).status).toBe(403);
    await source.advance(1);
    const renewed = await notifications(emulator);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("x-ratelimit-remaining")).toBe("1");
  });

  it("waits on it: an injected latency holds the answer until the clock has moved that far", async () => {
    const source = new VirtualClock();
    const { clock, waits } = countingWaits(source);
    const emulator = await start({ clock });
    emulator.faults.add({ kind: "latency", latencyMs: 30_000, route: "/notifications", times: 1 });
    let status: number | undefined;
    const answered = notifications(emulator).then((response) => (status = response.status));
    // The request is held once its wait is on the clock.
    await waits.reached(1);
    await source.advance(29_999);
    expect(status).toBeUndefined();
    await source.advance(1);
    await answered;
    expect(status).toBe(200);
  });
});

describe("seedDemoWorld", () => {
  it("writes the READMEs' records at their fixed time and leaves the clock on real time", async () => {
    const emulator = await start();
    const before = Date.now();
    const summary = seedDemoWorld(emulator);
    expect(summary.digests).toEqual([SEEDED_DIGESTS.web, SEEDED_DIGESTS.api]);
    expect(Math.abs(emulator.clock.now() - before)).toBeLessThan(3_600_000);
    const storage = await get(emulator, `/orgs/acme/artifacts/${SEEDED_DIGESTS.api}/metadata/storage-records`, emulator.tokens.admin);
    expect(await storage.json()).toEqual({
      storage_records: [
        expect.objectContaining({
          name: "ghcr.io/acme/api",
          registry_url: "https://ghcr.io",
          repository: "acme/api",
          status: "active",
          created_at: "2026-11-25T01:26:56Z",
        }),
      ],
    });
    const deployments = (await (
      await get(emulator, `/orgs/acme/artifacts/${SEEDED_DIGESTS.web}/metadata/deployment-records`, emulator.tokens.admin)
    ).json()) as { total_count: number; deployment_records: { cluster: string; deployment_name: string }[] };
    expect(deployments.total_count).toBe(1);
    expect(deployments.deployment_records[0]).toMatchObject({ cluster: "prod-eu-1", deployment_name: "shop/web" });
    const threads = (await (await get(emulator, "/notifications", emulator.tokens.classic)).json()) as { id: string; unread: boolean }[];
    expect(threads.map((t) => [t.id, t.unread])).toEqual([["2", true]]);
  });

  it("refuses a fixture without acme/web and acme/api, naming why", async () => {
    const emulator = await start({ fixture: { ...defaultFixture, orgs: [{ login: "acme", id: 5001 }], tokens: [], attestations: [] } });
    expect(() => seedDemoWorld(emulator)).toThrow(EmulatorUsageError);
    expect(() => seedDemoWorld(emulator)).toThrow(/acme\/web with commits and acme\/api/);
  });
});
