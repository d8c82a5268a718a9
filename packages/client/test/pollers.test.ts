import { afterEach, describe, expect, it } from "vitest";
import { NotFoundError, RequestValidationError, ShiplogClient, type ActivityEvent, type NotificationThread } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { emulatorTime } from "./emulator-time.js";

// The pollers against the emulator, with simulated time: the poller's sleep advances the emulator's clock
// by exactly what the poller asked to wait, so an hour of polling runs in milliseconds and every wait is recorded.

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

/** A small deterministic random source, so batch sizes repeat from run to run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

async function drain<T>(items: AsyncIterable<T>, sink: T[] = []): Promise<T[]> {
  for await (const item of items) sink.push(item);
  return sink;
}

describe("feed poller", () => {
  it("over a simulated idle hour it uses no rate limit: every poll after the first is a 304", async () => {
    emu = await startEmulator();
    for (let i = 0; i < 5; i++) emu.activity.push({ actor: "hubot", repo: "acme/web" });
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const controller = new AbortController();
    const usedSamples: number[] = [];
    const time = emulatorTime(emu, () => {
      usedSamples.push(emu!.rateLimits.used("token:admin"));
      if (time.elapsedMs() >= 3_600_000) controller.abort();
    });
    const poller = client.activity.poll({ feed: "org", org: "acme" }, { signal: controller.signal, clock: time });
    const events = await drain(poller);

    expect(events).toHaveLength(5);
    const polls = emu.requests.list({ route: "/orgs/:org/events" });
    expect(polls.length).toBe(60);
    expect(polls[0]?.status).toBe(200);
    expect(polls.slice(1).every((r) => r.status === 304)).toBe(true);
    expect(poller.stats).toMatchObject({ polls: 60, notModified: 59, errors: 0, yielded: 5 });
    // One request was charged (the first); the 304s left the count where it was.
    expect(usedSamples[0]).toBe(1);
    expect(Math.max(...usedSamples)).toBe(1);
    expect(new Set(time.waits)).toEqual(new Set([60_000]));
  });

  it("obeys a growing X-Poll-Interval, and follows it back down", async () => {
    emu = await startEmulator();
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const controller = new AbortController();
    const time = emulatorTime(emu, (_ms, count) => {
      if (count === 3) emu!.state.events.simulateLoad(2);
      if (count === 6) emu!.state.events.simulateLoad(5);
      if (count === 8) emu!.state.events.simulateLoad(1);
      if (count === 10) controller.abort();
    });
    const intervals: number[] = [];
    await drain(
      client.activity.poll(
        { feed: "repo", owner: "acme", repo: "web" },
        { signal: controller.signal, clock: time, onPoll: (info) => intervals.push(info.intervalSeconds) },
      ),
    );
    expect(time.waits.map((ms) => ms / 1000)).toEqual([60, 60, 60, 120, 120, 120, 300, 300, 60, 60]);
    expect(intervals).toEqual([60, 60, 60, 120, 120, 120, 300, 300, 60, 60]);
  });

  it("yields each of 1,000 generated events exactly once, oldest first, across overlapping pages", async () => {
    emu = await startEmulator();
    const random = seeded(7);
    const generated: string[] = [];
    const generate = (count: number) => {
      for (let i = 0; i < count && generated.length < 1000; i++) {
        const kind = generated.length % 3;
        const event =
          kind === 0
            ? emu!.activity.push({ actor: "hubot", repo: "acme/web", commits: 1 + (generated.length % 3) })
            : kind === 1
              ? emu!.activity.star({ actor: "octo", repo: "acme/web" })
              : emu!.activity.createBranch({ actor: "hubot", repo: "acme/web", ref: `feature-${generated.length}` });
        generated.push(String(event.id));
      }
    };
    // Events also arrive between the pages of one poll, so later pages repeat items of earlier ones.
    const client = new ShiplogClient({
      baseUrl: emu.url,
      token: emu.tokens.admin,
      retry: false,
      hooks: { onResponse: () => generate(Math.floor(random() * 4)) },
    });
    const controller = new AbortController();
    let idlePolls = 0;
    const time = emulatorTime(emu, () => {
      if (generated.length >= 1000 && ++idlePolls > 3) controller.abort();
      generate(Math.floor(random() * 120));
    });
    const gaps: number[] = [];
    const events: ActivityEvent[] = [];
    const poller = client.activity.poll(
      { feed: "org", org: "acme" },
      { signal: controller.signal, clock: time, per_page: 17, onGap: (g) => gaps.push(g.newEvents) },
    );
    await drain(poller, events);

    expect(generated).toHaveLength(1000);
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(generated);
    expect(gaps).toEqual([]);
    // The run really did page: more requests than polls.
    expect(emu.requests.count({ route: "/orgs/:org/events" })).toBeGreaterThan(poller.stats.polls);
    // Typed payloads come through narrowed by type.
    const push = events.find((e) => e.type === "PushEvent");
    expect(push && push.type === "PushEvent" && "head" in push.payload ? push.payload.head : "").toMatch(/^[0-9a-f]{40}$/);
  });

  it("an outage in the middle of a poll loses no event: the poll is repeated in full after backoff", async () => {
    emu = await startEmulator();
    for (let i = 0; i < 35; i++) emu.activity.star({ actor: "octo", repo: "acme/web" });
    let responses = 0;
    const client = new ShiplogClient({
      baseUrl: emu.url,
      token: emu.tokens.admin,
      retry: false,
      hooks: {
        onResponse: () => {
          // Right after the first page of the first poll, the service goes down for three requests.
          if (++responses === 1) emu!.faults.add({ route: "/orgs/:org/events", kind: "status", status: 503, times: 3 });
        },
      },
    });
    const controller = new AbortController();
    let generatedDuringOutage = 0;
    const time = emulatorTime(emu, (_ms, count) => {
      if (count <= 3) {
        emu!.activity.push({ actor: "hubot", repo: "acme/web" });
        generatedDuringOutage++;
      }
      if (count === 6) controller.abort();
    });
    const errors: { failures: number; delayMs: number }[] = [];
    const events = await drain(
      client.activity.poll(
        { feed: "org", org: "acme" },
        {
          signal: controller.signal,
          clock: time,
          per_page: 10,
          random: () => 0,
          onError: (_e, info) => errors.push(info),
        },
      ),
    );
    expect(errors.map((e) => e.failures)).toEqual([1, 2, 3]);
    // Backoff grows from the poll interval and never goes below it.
    expect(errors.map((e) => e.delayMs)).toEqual([60_000, 120_000, 240_000]);
    expect(events).toHaveLength(35 + generatedDuringOutage);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const statuses = emu.requests.list({ route: "/orgs/:org/events" }).map((r) => r.status);
    expect(statuses.slice(0, 4)).toEqual([200, 503, 503, 503]);
  });

  it("start: now yields only what comes after; the abort signal ends the iteration without an error", async () => {
    emu = await startEmulator();
    emu.activity.push({ actor: "hubot", repo: "acme/web" });
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const controller = new AbortController();
    const time = emulatorTime(emu, (_ms, count) => {
      if (count === 1) emu!.activity.createBranch({ actor: "octo", repo: "acme/web", ref: "release" });
    });
    const seen: ActivityEvent[] = [];
    for await (const event of client.activity.poll(
      { feed: "repo", owner: "acme", repo: "web" },
      { signal: controller.signal, clock: time, start: "now" },
    )) {
      seen.push(event);
      controller.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(["CreateEvent"]);
    const created = seen[0]!;
    expect(created.type === "CreateEvent" && "ref_type" in created.payload ? created.payload.ref_type : "").toBe("branch");
  });

  it("ends with the error when it cannot recover (unknown organization), and checks per_page before sending", async () => {
    emu = await startEmulator();
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const time = emulatorTime(emu);
    await expect(drain(client.activity.poll({ feed: "org", org: "no-such-org" }, { clock: time }))).rejects.toBeInstanceOf(NotFoundError);
    expect(() => client.activity.poll({ feed: "public" }, { per_page: 101 })).toThrow(RequestValidationError);
    expect(() => client.activity.poll({ feed: "repo", owner: "acme", repo: "bad name" } as never)).toThrow(RequestValidationError);
  });
});

describe("notification poller", () => {
  it("yields each new or updated thread once, is idle on 304s for an hour, and uses no rate limit meanwhile", async () => {
    emu = await startEmulator();
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classic, retry: false });
    const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Deploy failed" }).number;
    const controller = new AbortController();
    const used: [number, number][] = [];
    const time = emulatorTime(emu, (_ms, count) => {
      used.push([time.elapsedMs(), emu!.rateLimits.used("token:classic")]);
      if (count === 2) emu!.activity.mention({ actor: "hubot", repo: "acme/web", issue, user: "octo" });
      if (count === 3) emu!.activity.openIssue({ actor: "hubot", repo: "acme/api", title: "Rotate keys" });
      if (time.elapsedMs() >= 3_600_000 + 3 * 60_000) controller.abort();
    });
    const threads: NotificationThread[] = [];
    const poller = client.notifications.poll({ signal: controller.signal, clock: time });
    await drain(poller, threads);

    expect(threads.map((t) => [t.subject.title, t.reason])).toEqual([
      ["Deploy failed", "subscribed"],
      ["Deploy failed", "mention"],
      ["Rotate keys", "subscribed"],
    ]);
    const polls = emu.requests.list({ route: "/notifications" });
    expect(polls.map((p) => p.status).slice(0, 5)).toEqual([200, 304, 200, 200, 304]);
    expect(polls.slice(4).every((p) => p.status === 304)).toBe(true);
    expect(poller.stats.notModified).toBeGreaterThanOrEqual(60);
    // Three 200s were charged; the 304s after them added nothing (until the hourly window rolled over).
    const inFirstWindow = used.filter(([elapsed]) => elapsed < 3_600_000).map(([, count]) => count);
    expect(inFirstWindow.slice(3)).toEqual(Array(inFirstWindow.length - 3).fill(3));
    expect(inFirstWindow.length).toBeGreaterThan(55);
  });

  it("follows one repository, and per_page is checked against its limit (100, not 50)", async () => {
    emu = await startEmulator();
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classic, retry: false });
    emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Web issue" });
    emu.activity.openIssue({ actor: "hubot", repo: "acme/api", title: "Api issue" });
    const controller = new AbortController();
    const time = emulatorTime(emu, () => controller.abort());
    const threads = await drain(
      client.notifications.poll({
        repository: { owner: "acme", repo: "api" },
        per_page: 100,
        signal: controller.signal,
        clock: time,
      }),
    );
    expect(threads.map((t) => t.subject.title)).toEqual(["Api issue"]);
    expect(() => client.notifications.poll({ per_page: 51 })).toThrow(/per_page/);
  });
});
