// The secondary limits' decisions on plain data: a time variable stands for the emulator's clock.
import { describe, expect, it } from "vitest";
import { EmulatorUsageError } from "@shiplog/emulator";
import { SecondaryRateLimits, isContentGenerating, requestPoints } from "@shiplog/emulator/internal";

const CLUSTER = "/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster";
const post = (caller = "user:octo", route = CLUSTER) => ({ caller, method: "POST", route });
const LIST = "/orgs/:org/artifacts/:subject_digest/metadata/deployment-records";
const get = (caller = "user:octo", route = LIST) => ({ caller, method: "GET", route });

function limits(settings?: ConstructorParameters<typeof SecondaryRateLimits>[0]) {
  const time = { now: Date.parse("2026-03-10T08:00:00Z") };
  return { time, limits: new SecondaryRateLimits(settings, () => time.now) };
}

/** Admits `n` requests, releasing each (serial callers), and returns how many were admitted. */
function send(l: SecondaryRateLimits, request: ReturnType<typeof post>, n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) {
    const a = l.admit(request);
    if (a.admitted) {
      a.release();
      admitted++;
    }
  }
  return admitted;
}

describe("what a request costs and whether it creates content", () => {
  it("costs 1 point to read and 5 to write", () => {
    expect(["GET", "HEAD", "OPTIONS", "get"].map(requestPoints)).toEqual([1, 1, 1, 1]);
    expect(["POST", "PATCH", "PUT", "DELETE"].map(requestPoints)).toEqual([5, 5, 5, 5]);
  });

  it("counts writes to records, tags, refs and imports as content; inbox state and token minting not", () => {
    const content = [
      ["POST", CLUSTER],
      ["POST", "/orgs/:org/artifacts/metadata/storage-record"],
      ["POST", "/repos/:owner/:repo/git/tags"],
      ["POST", "/repos/:owner/:repo/git/refs"],
      ["PATCH", "/repos/:owner/:repo/git/refs/*"],
      ["DELETE", "/repos/:owner/:repo/git/refs/*"],
      ["PUT", "/repos/:owner/:repo/import"],
    ];
    const notContent = [
      ["GET", CLUSTER.replace("/cluster/:cluster", "")],
      ["PUT", "/notifications"],
      ["PATCH", "/notifications/threads/:thread_id"],
      ["PUT", "/notifications/threads/:thread_id/subscription"],
      ["PUT", "/repos/:owner/:repo/notifications"],
      ["POST", "/app/installations/:installation_id/access_tokens"],
    ];
    expect(content.filter(([m, r]) => !isContentGenerating(m!, r!))).toEqual([]);
    expect(notContent.filter(([m, r]) => isContentGenerating(m!, r!))).toEqual([]);
  });
});

describe("the windows slide", () => {
  it("admit no more than the limit in any 60 s, naming when the oldest counted request leaves", () => {
    const { time, limits: l } = limits({ contentPerMinute: 2 });
    const t0 = time.now;
    expect(send(l, post(), 1)).toBe(1);
    time.now = t0 + 30_000;
    expect(send(l, post(), 1)).toBe(1);
    time.now = t0 + 40_000;
    expect(l.admit(post())).toMatchObject({ admitted: false, retryAfterSeconds: 20 });
    time.now = t0 + 60_000; // the first has left; a fixed window would have admitted two more here
    expect(send(l, post(), 2)).toBe(1);
    time.now = t0 + 89_999;
    expect(l.usage("user:octo").contentPerMinute).toBe(2);
    time.now = t0 + 90_000;
    expect(l.usage("user:octo").contentPerMinute).toBe(1);
  });

  it("round a wait up to whole seconds, at least one", () => {
    const { time, limits: l } = limits({ contentPerMinute: 1 });
    send(l, post(), 1);
    time.now += 59_999;
    expect(l.admit(post())).toMatchObject({ retryAfterSeconds: 1 });
    time.now -= 58_500;
    expect(l.admit(post())).toMatchObject({ retryAfterSeconds: 59 });
  });

  it("start afresh when the clock is set back", () => {
    const { time, limits: l } = limits({ contentPerMinute: 3 });
    time.now += 3_600_000;
    expect(send(l, post(), 4)).toBe(3);
    time.now -= 3_600_000;
    expect(send(l, post(), 4)).toBe(3);
  });
});

describe("secondary limits per caller", () => {
  it("are on by default with the published figures", () => {
    expect(limits().limits.settings).toEqual({
      enabled: true,
      concurrentRequests: 100,
      endpointPointsPerMinute: 900,
      contentPerMinute: 80,
      contentPerHour: 500,
      status: 403,
      retryAfter: true,
    });
  });

  it("admit 80 content-generating requests in any minute, then name the wait until the first leaves", () => {
    const { time, limits: l } = limits();
    expect(send(l, post(), 80)).toBe(80);
    time.now += 15_000;
    expect(l.admit(post())).toEqual({ admitted: false, limit: "content_per_minute", retryAfterSeconds: 45 });
    // Another user is not affected.
    expect(send(l, post("user:hubot"), 1)).toBe(1);
    time.now += 45_000;
    expect(send(l, post(), 81)).toBe(80);
    expect(l.counts().refused).toMatchObject({ content_per_minute: 2, total: 2 });
  });

  it("admit 500 content-generating requests in any hour, then name the wait of up to an hour", () => {
    const { time, limits: l } = limits();
    const t0 = time.now;
    let admitted = 0;
    for (let minute = 0; minute < 7; minute++, time.now += 60_000) admitted += send(l, post(), 80);
    expect(admitted).toBe(500); // 6 full minutes, then 20
    // Now t0 + 7 min: the first 80 leave the hour at t0 + 60 min.
    expect(l.admit(post())).toEqual({ admitted: false, limit: "content_per_hour", retryAfterSeconds: 53 * 60 });
    time.now = t0 + 3_600_000;
    expect(send(l, post(), 81)).toBe(80);
    expect(l.counts().refused).toMatchObject({ content_per_hour: 60 + 2, content_per_minute: 0, total: 62 });
  });

  it("admit 900 points a minute per endpoint: 900 reads, 180 writes that create nothing", () => {
    const { limits: l } = limits();
    expect(send(l, get(), 1000)).toBe(900);
    const mark = { caller: "user:octo", method: "PUT", route: "/notifications" };
    expect(send(l, mark, 200)).toBe(180);
    // Another endpoint has its own budget.
    expect(send(l, get("user:octo", "/notifications"), 1)).toBe(1);
    expect(l.counts().refused).toMatchObject({ endpoint_points: 120, total: 120 });
  });

  it("hold 100 requests in flight per caller; a refusal names no wait, and a released slot is free again", () => {
    const { limits: l } = limits();
    const held = Array.from({ length: 100 }, () => l.admit(get()));
    expect(held.every((a) => a.admitted)).toBe(true);
    expect(l.admit(get())).toEqual({ admitted: false, limit: "concurrent_requests", retryAfterSeconds: undefined });
    const first = held[0]!;
    if (first.admitted) {
      first.release();
      first.release(); // twice is once
    }
    expect(l.admit(get()).admitted).toBe(true);
    expect(l.admit(get()).admitted).toBe(false);
    expect(l.usage("user:octo").inFlight).toBe(100);
  });

  it("name the longest wait when several windows refuse", () => {
    const { time, limits: l } = limits({ contentPerMinute: 2, endpointPointsPerMinute: 10 });
    expect(send(l, post(), 2)).toBe(2); // 10 points and 2 content requests
    time.now += 10_000;
    expect(send(l, post("user:octo", "/orgs/:org/artifacts/metadata/storage-record"), 1)).toBe(0);
    expect(l.admit(post())).toEqual({ admitted: false, limit: "endpoint_points", retryAfterSeconds: 50 });
  });

  it("change live, switch off, and leave out retry-after when asked", () => {
    const { time, limits: l } = limits({ contentPerMinute: 1, retryAfter: false });
    expect(send(l, post(), 2)).toBe(1);
    expect(l.admit(post())).toEqual({ admitted: false, limit: "content_per_minute", retryAfterSeconds: undefined });
    l.configure({ enabled: false });
    expect(send(l, post(), 100)).toBe(100);
    l.configure({ enabled: true, contentPerMinute: 3 });
    expect(send(l, post(), 3)).toBe(2); // the one admitted while on still counts; none while off
    time.now += 60_000;
    l.reset();
    expect(l.counts()).toEqual({
      admitted: 0,
      refused: { concurrent_requests: 0, endpoint_points: 0, content_per_minute: 0, content_per_hour: 0, total: 0 },
    });
  });

  it("refuse bad settings naming the field and the rule, changing nothing", () => {
    const { limits: l } = limits();
    const before = l.settings;
    const refused = (() => {
      try {
        l.configure({ contentPerMinute: 0, status: 500 as 403 });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(EmulatorUsageError);
    expect((refused as EmulatorUsageError).code).toBe("emulator_usage");
    expect((refused as EmulatorUsageError).issues.map((i) => i.argument).sort()).toEqual(["settings.contentPerMinute", "settings.status"]);
    expect(() => l.configure({ endpointPointsPerMinute: 4 })).toThrow(/settings.endpointPointsPerMinute .*5 points/);
    expect(() => l.configure({ contentPerHour: 10, burst: 3 } as never)).toThrow(/burst/);
    expect(l.settings).toEqual(before);
    const startRefused = /startEmulator: secondaryLimits.concurrentRequests/;
    expect(() => new SecondaryRateLimits({ concurrentRequests: -1 }, Date.now)).toThrow(startRefused);
  });
});
