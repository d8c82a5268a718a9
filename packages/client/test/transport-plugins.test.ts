// The transport's plugin pipeline, the shared rate-limit gate and secondary rate limits, over the emulator.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RateLimitedError, ShiplogClient, ShiplogError, tokenProvider, type TransportClock, type TransportPlugin } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { Changes } from "../../../test/kit/events.js";
import { closeLoopbackServers, serve } from "../../../test/kit/loopback.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const STORAGE_ROUTE = "/orgs/:org/artifacts/metadata/storage-record";
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const storage = (n: number) => ({
  org: "acme",
  name: "web",
  digest: digest(n),
  registry_url: "https://ghcr.io/",
  github_repository: "web",
});

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
afterEach(async () => {
  await closeLoopbackServers();
  emulator.faults.clear();
  emulator.requests.clear();
});

/** Each attempt's timeout, on the clock too: an hour, which no rate limit asks to wait and no test moves time to. */
const ATTEMPT_TIMEOUT_MS = 3_600_000;

/**
 * The one test clock, with the waits the client starts on it recorded (its attempts' timeouts aside), so a test moves
 * time by what the client asked to wait once it waits.
 */
function waitingClock(): TransportClock & {
  sleeps: number[];
  waiting: (n: number) => Promise<void>;
  advance: (ms: number) => Promise<void>;
} {
  const clock = new VirtualClock();
  const sleeps: number[] = [];
  const changes = new Changes();
  return {
    sleeps,
    now: () => clock.now(),
    sleep(ms, signal) {
      const slept = clock.sleep(ms, signal);
      if (ms !== ATTEMPT_TIMEOUT_MS) {
        sleeps.push(ms);
        changes.changed();
      }
      return slept;
    },
    waiting: (n) => changes.until(() => sleeps.length >= n),
    advance: (ms) => clock.advance(ms),
  };
}

/** Records the virtual time each attempt leaves at: the client's own request log. */
function sendLog(clock: TransportClock): TransportPlugin & { sent: { at: number; method: string }[] } {
  const sent: { at: number; method: string }[] = [];
  return { name: "send log", sent, after: (_response, attempt) => void sent.push({ at: clock.now(), method: attempt.method }) };
}

describe("plugin pipeline", () => {
  it("runs before, wrap, after and error hooks in order, outermost plugin first", async () => {
    const calls: string[] = [];
    const plugin = (name: string): TransportPlugin => ({
      name,
      before: () => void calls.push(`${name}.before`),
      wrap: async (send, attempt) => {
        calls.push(`${name}.wrap`);
        return send(attempt);
      },
      after: (response) => void calls.push(`${name}.after ${response.status}`),
    });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, plugins: [plugin("outer"), plugin("inner")] });
    await client.artifacts.createStorageRecord(storage(1));
    expect(calls).toEqual(["outer.before", "outer.wrap", "inner.before", "inner.wrap", "inner.after 200", "outer.after 200"]);
  });

  it("lets a plugin refuse an attempt with its own typed error: nothing is sent", async () => {
    const fence: TransportPlugin = {
      name: "fence",
      before: () => {
        throw new ShiplogError("not_leader", "not the leader");
      },
    };
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, plugins: [fence] });
    await expect(client.artifacts.createStorageRecord(storage(2))).rejects.toMatchObject({ code: "not_leader" });
    expect(emulator.requests.list()).toHaveLength(0);
  });

  it("lets an error hook answer for a failed attempt", async () => {
    const rescue: TransportPlugin = {
      name: "rescue",
      error: () => ({ status: 200, statusText: "OK", headers: new Headers(), url: "", body: { storage_records: [] } }),
    };
    const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:1", token: "t0ken", retry: false, plugins: [rescue] });
    const answer = await client.request({ method: "GET", route: "/x" });
    expect(answer.data).toEqual({ storage_records: [] });
  });
});

describe("token provider", () => {
  it("asks the provider once while its token is fresh, and again after a 401, sending once more", async () => {
    let calls = 0;
    const tokens = ["emu_revoked_token_0000000000", emulator.tokens.admin!];
    const client = new ShiplogClient({ baseUrl: emulator.url, auth: tokenProvider(() => tokens[Math.min(calls++, 1)]!) });
    await client.artifacts.createStorageRecord(storage(3));
    await client.artifacts.createStorageRecord(storage(4));
    expect(calls).toBe(2);
    expect(emulator.requests.list().map((r) => r.status)).toEqual([401, 200, 200]);
  });
});

describe("secondary rate limits", () => {
  for (const status of [403, 429]) {
    it(`a ${status} naming the secondary limit without Retry-After is rate_limited, waited out for 60 s, then retried`, async () => {
      emulator.faults.add({ kind: "secondary_rate_limit", status, route: STORAGE_ROUTE, times: 1 });
      const clock = waitingClock();
      const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, clock, timeoutMs: ATTEMPT_TIMEOUT_MS });
      const call = client.artifacts.createStorageRecord(storage(10 + status));
      await clock.waiting(1);
      expect(clock.sleeps).toEqual([60_000]);
      await clock.advance(60_000);
      await call;
      expect(emulator.requests.list().map((r) => r.status)).toEqual([status, 200]);
    });
  }

  it("waits the Retry-After the answer names", async () => {
    emulator.faults.add({ kind: "secondary_rate_limit", status: 429, retryAfterSeconds: 7, route: STORAGE_ROUTE, times: 1 });
    const clock = waitingClock();
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, clock, timeoutMs: ATTEMPT_TIMEOUT_MS });
    const call = client.artifacts.createStorageRecord(storage(20));
    await clock.waiting(1);
    await clock.advance(7_000);
    await call;
    expect(clock.sleeps).toEqual([7_000]);
  });

  it("never calls a secondary limit forbidden: with retries spent it is rate_limited, asking for 60 s", async () => {
    emulator.faults.add({ kind: "secondary_rate_limit", route: STORAGE_ROUTE });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    const error = await client.artifacts.createStorageRecord(storage(21)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: "rate_limited", status: 403, retryAfterSeconds: 60 });
  });

  it("pauses every request of the client together: no attempt leaves inside the wait", async () => {
    emulator.faults.add({ kind: "secondary_rate_limit", route: STORAGE_ROUTE, times: 1 });
    const clock = waitingClock();
    const log = sendLog(clock);
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.admin,
      clock,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      plugins: [log],
      throttle: { serializeMutations: true },
    });
    const start = clock.now();
    const calls = Promise.all(Array.from({ length: 8 }, (_, i) => client.artifacts.createStorageRecord(storage(100 + i))));
    await clock.waiting(1);
    await clock.advance(60_000);
    await calls;
    const statuses = emulator.requests.list().map((r) => r.status);
    expect(statuses.filter((s) => s === 403)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    // Serialised: the limited call was the first; everything after it left once the minute had passed.
    expect(log.sent[0]!.at).toBe(start);
    expect(log.sent.slice(1).every((s) => s.at >= start + 60_000)).toBe(true);
  });

  it("a primary limit resetting in 40 minutes fails fast, and holds the client's other calls a minute at most", async () => {
    const clock = waitingClock();
    let calls = 0;
    const url = await serve((_req, res) => {
      const limited = calls++ === 0;
      res.writeHead(limited ? 403 : 200, {
        "content-type": "application/json",
        "x-ratelimit-remaining": limited ? "0" : "4999",
        "x-ratelimit-reset": String(Math.floor(clock.now() / 1000) + 2400),
      });
      res.end(limited ? JSON.stringify({ message: "API rate limit exceeded" }) : "{}");
    });
    const client = new ShiplogClient({ baseUrl: url, token: "t0ken", clock, timeoutMs: ATTEMPT_TIMEOUT_MS });
    const error = await client.request({ method: "GET", route: "/x" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "rate_limited" });
    expect(clock.sleeps).toEqual([]);
    const held = client.request({ method: "GET", route: "/x" });
    await clock.waiting(1);
    await clock.advance(60_000);
    await held;
    expect(clock.sleeps).toEqual([60_000]);
  });

  it("serialises mutating requests when asked: the server never sees two at once, while reads still overlap", async () => {
    const inFlight: Record<string, number> = { POST: 0, GET: 0 };
    const most: Record<string, number> = {};
    // Four POSTs, then four GETs, all sent at once. GETs are held until all four are in at once (they would never be
    // if reads were serialised too, or queued behind the mutations). The POST that comes first is held until then
    // too: POSTs sent alongside it, before the GETs, would be seen while it is still open. No timer decides anything.
    const held: (() => void)[] = [];
    let gets = 0;
    const url = await serve((req, res) => {
      const method = req.method!;
      most[method] = Math.max(most[method] ?? 0, ++inFlight[method]!);
      const answer = () => {
        inFlight[method]!--;
        res.setHeader("content-type", "application/json");
        res.end("{}");
      };
      if (method === "GET") gets++;
      if (gets === 4) {
        answer();
        for (const release of held.splice(0)) release();
      } else held.push(answer);
    });
    const client = new ShiplogClient({ baseUrl: url, token: "t0ken", throttle: { serializeMutations: true } });
    const posts = Array.from({ length: 4 }, () => client.request({ method: "POST", route: "/x", body: {}, safeToRetry: true }));
    const reads = Array.from({ length: 4 }, () => client.request({ method: "GET", route: "/x" }));
    await Promise.all([...posts, ...reads]);
    expect(most).toEqual({ POST: 1, GET: 4 });
  });
});
