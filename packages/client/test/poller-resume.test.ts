import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FileCheckpointStore,
  RequestValidationError,
  ShiplogClient,
  type ActivityEvent,
  type IssueEvent,
  type NotificationThread,
  type PollCheckpoint,
} from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { emulatorTime } from "./emulator-time.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

// Pollers that stop and start again from their checkpoint, against the emulator over real HTTP, with simulated
// time (the poller's sleep moves the emulator's clock by what it asked to wait).

let emu: Emulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A client whose answers' rate-limit headers are recorded (the fetch is the real one, only watched). */
function watchedClient(emulator: Emulator, token: string) {
  const answers: { url: string; status: number; used: string | null; remaining: string | null }[] = [];
  const client = new ShiplogClient({
    baseUrl: emulator.url,
    token,
    retry: false,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      answers.push({
        url: String(input),
        status: response.status,
        used: response.headers.get("x-ratelimit-used"),
        remaining: response.headers.get("x-ratelimit-remaining"),
      });
      return response;
    },
  });
  return { client, answers };
}

/** Takes `count` items, then breaks out (as a process that stops would); the poller's checkpoint after the last. */
async function take<T>(poller: AsyncIterable<T> & { checkpoint: PollCheckpoint }, count: number, sink: T[]): Promise<PollCheckpoint> {
  if (count === 0) return poller.checkpoint;
  for await (const item of poller) {
    sink.push(item);
    if (sink.length >= count) break;
  }
  // Serialised and read back, as a caller keeping it in a file or a database would.
  return JSON.parse(JSON.stringify(poller.checkpoint)) as PollCheckpoint;
}

/** Runs a poller until it has made `polls` polls, collecting what it yields. */
async function runPolls<T>(
  make: (stop: { signal: AbortSignal; onPoll: () => void }) => AsyncIterable<T> & { checkpoint: PollCheckpoint },
  polls: number,
): Promise<{ items: T[]; checkpoint: PollCheckpoint }> {
  const controller = new AbortController();
  let made = 0;
  const poller = make({ signal: controller.signal, onPoll: () => ++made >= polls && controller.abort() });
  const items: T[] = [];
  for await (const item of poller) items.push(item);
  // Serialised and read back, as a caller keeping it in a file or a database would.
  return { items, checkpoint: JSON.parse(JSON.stringify(poller.checkpoint)) as PollCheckpoint };
}

describe("restart from a checkpoint", () => {
  it("feed: stopped after 10 of 25 events, a new poller yields the other 15 once; restarted idle, its first poll is a free 304", async () => {
    emu = await startEmulator();
    const generated: string[] = [];
    for (let i = 0; i < 25; i++) generated.push(String(emu.activity.star({ actor: "octo", repo: "acme/web" }).id));
    const { client, answers } = watchedClient(emu, emu.tokens.admin!);
    const time = emulatorTime(emu);
    const first: ActivityEvent[] = [];
    const checkpoint = await take(client.activity.poll({ feed: "org", org: "acme" }, { per_page: 10, clock: time }), 10, first);
    expect(checkpoint.seen).toHaveLength(10);

    // Second run from the checkpoint: the rest, once; then it idles (a 304) and stops.
    const second = await runPolls(
      (stop) => client.activity.poll({ feed: "org", org: "acme" }, { checkpoint, per_page: 10, ...stop, clock: time }),
      2,
    );
    expect([...first, ...second.items].map((e) => e.id)).toEqual(generated);
    const resumed = second.checkpoint;
    expect(resumed.validator).toMatch(/^W\/"/);

    // Third run, nothing new: its first request is conditional, answered 304, and uses no rate limit.
    const before = answers.length;
    const usedBefore = emu.rateLimits.used("token:admin");
    const third = await runPolls(
      (stop) => client.activity.poll({ feed: "org", org: "acme" }, { checkpoint: resumed, per_page: 10, ...stop, clock: time }),
      1,
    );
    expect(third.items).toEqual([]);
    const firstAnswer = answers[before]!;
    expect(firstAnswer.status).toBe(304);
    expect(firstAnswer.used).toBe(String(usedBefore));
    expect(emu.rateLimits.used("token:admin")).toBe(usedBefore);

    // And what comes later still comes, once.
    const later = emu.activity.push({ actor: "hubot", repo: "acme/web" });
    const fourth = await runPolls(
      (stop) => client.activity.poll({ feed: "org", org: "acme" }, { checkpoint: resumed, per_page: 10, ...stop, clock: time }),
      2,
    );
    expect(fourth.items.map((e) => e.id)).toEqual([String(later.id)]);
  });

  it("notifications: stopped after 1 of 3 threads, a new poller yields the other 2 once; restarted idle, its first poll is a free 304", async () => {
    emu = await startEmulator();
    const titles = ["Deploy failed", "Rotate keys", "Bump base image"];
    for (const title of titles) emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title });
    const { client, answers } = watchedClient(emu, emu.tokens.classic!);
    const time = emulatorTime(emu);
    const first: NotificationThread[] = [];
    const checkpoint = await take(client.notifications.poll({ clock: time }), 1, first);

    const second = await runPolls((stop) => client.notifications.poll({ checkpoint, ...stop, clock: time }), 2);
    expect([...first, ...second.items].map((t) => t.subject.title).sort()).toEqual([...titles].sort());
    const resumed = second.checkpoint;
    expect(resumed.since).toMatch(/Z$/);

    const before = answers.length;
    const usedBefore = emu.rateLimits.used("token:classic");
    const third = await runPolls((stop) => client.notifications.poll({ checkpoint: resumed, ...stop, clock: time }), 1);
    expect(third.items).toEqual([]);
    expect(answers[before]).toMatchObject({ status: 304, used: String(usedBefore) });
    expect(answers[before]!.url).toContain("since=");

    // A thread updated after the checkpoint comes again, once, with its new reason.
    emu.activity.mention({ actor: "hubot", repo: "acme/web", issue: 1, user: "octo" });
    const fourth = await runPolls((stop) => client.notifications.poll({ checkpoint: resumed, ...stop, clock: time }), 2);
    expect(fourth.items.map((t) => [t.subject.title, t.reason])).toEqual([["Deploy failed", "mention"]]);
  });

  it("issue events: stopped after 3, a new poller yields the rest once; restarted idle, its first poll is a free 304", async () => {
    emu = await startEmulator();
    const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Flaky test" }).number;
    const made = [
      emu.activity.label({ actor: "hubot", repo: "acme/web", issue, label: "bug" }),
      emu.activity.assign({ actor: "hubot", repo: "acme/web", issue, assignee: "octo" }),
      emu.activity.label({ actor: "hubot", repo: "acme/web", issue, label: "ci" }),
      emu.activity.closeIssue({ actor: "octo", repo: "acme/web", issue }),
      emu.activity.reopenIssue({ actor: "hubot", repo: "acme/web", issue }),
    ].map((e) => e.id);
    const { client, answers } = watchedClient(emu, emu.tokens.admin!);
    const time = emulatorTime(emu);
    const first: IssueEvent[] = [];
    const checkpoint = await take(client.issueEvents.poll({ owner: "acme", repo: "web" }, { per_page: 2, clock: time }), 3, first);

    const second = await runPolls(
      (stop) => client.issueEvents.poll({ owner: "acme", repo: "web" }, { checkpoint, per_page: 2, ...stop, clock: time }),
      2,
    );
    const ids = [...first, ...second.items].map((e) => e.id);
    expect(ids).toEqual(made);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...first, ...second.items].map((e) => e.event)).toEqual(["labeled", "assigned", "labeled", "closed", "reopened"]);

    const resumed = second.checkpoint;
    const before = answers.length;
    const usedBefore = emu.rateLimits.used("token:admin");
    const third = await runPolls(
      (stop) => client.issueEvents.poll({ owner: "acme", repo: "web" }, { checkpoint: resumed, per_page: 2, ...stop, clock: time }),
      1,
    );
    expect(third.items).toEqual([]);
    expect(answers[before]).toMatchObject({ status: 304, used: String(usedBefore) });
  });

  it("a file checkpoint store keeps the place across runs; a checkpoint of another listing is refused by field", async () => {
    emu = await startEmulator();
    const dir = tempDir("shiplog-checkpoint-");
    dirs.push(dir);
    const store = new FileCheckpointStore(join(dir, "org-acme.json"));
    const generated: string[] = [];
    for (let i = 0; i < 6; i++) generated.push(String(emu.activity.push({ actor: "hubot", repo: "acme/web" }).id));
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const time = emulatorTime(emu);
    const got: ActivityEvent[] = [];
    await take(client.activity.poll({ feed: "org", org: "acme" }, { checkpointStore: store, clock: time }), 4, got);
    // Saved on the way out: the fourth event counts as handled.
    const saved = JSON.parse(readFileSync(store.path, "utf8")) as PollCheckpoint;
    expect(saved.seen.map(([id]) => id)).toEqual(generated.slice(0, 4));
    const rest = await runPolls(
      (stop) => client.activity.poll({ feed: "org", org: "acme" }, { checkpointStore: store, ...stop, clock: time }),
      2,
    );
    expect([...got, ...rest.items].map((e) => e.id)).toEqual(generated);

    expect(() => client.activity.poll({ feed: "repo", owner: "acme", repo: "web" }, { checkpoint: saved })).toThrow(RequestValidationError);
    expect(() => client.activity.poll({ feed: "repo", owner: "acme", repo: "web" }, { checkpoint: saved })).toThrow(/checkpoint\.listing/);
    expect(() => client.activity.poll({ feed: "org", org: "acme" }, { checkpoint: { ...saved, version: 2 } as never })).toThrow(/version/);
  });
});

describe("late events (the emulator's latency mode)", () => {
  it("1,000 events, 10% delivered 30 s to 6 h late and out of created_at order, are each yielded exactly once", async () => {
    emu = await startEmulator();
    emu.state.events.setLatency({ fraction: 0.1, seed: 18 });
    // Polls five minutes apart: the six hours late events may take pass in fewer polls.
    emu.state.events.setPollInterval(300);
    const generated: string[] = [];
    let state = 18;
    const random = () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 4294967296;
    };
    const generate = (count: number) => {
      for (let i = 0; i < count && generated.length < 1000; i++) {
        const n = generated.length;
        const event =
          n % 2 === 0 ? emu!.activity.star({ actor: "octo", repo: "acme/web" }) : emu!.activity.push({ actor: "hubot", repo: "acme/web" });
        generated.push(String(event.id));
      }
    };
    const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
    const controller = new AbortController();
    let doneAt: number | undefined;
    const time = emulatorTime(emu, () => {
      generate(Math.floor(random() * 120));
      if (generated.length >= 1000) doneAt ??= emu!.clock.now();
      // Once all are made, run on past the longest delay so every late event has arrived.
      if (doneAt !== undefined && emu!.clock.now() - doneAt > 6 * 3600 * 1000 + 120_000) controller.abort();
    });
    const events: ActivityEvent[] = [];
    let gaps = 0;
    const poller = client.activity.poll(
      { feed: "org", org: "acme" },
      { signal: controller.signal, per_page: 30, clock: time, onGap: () => gaps++ },
    );
    for await (const event of poller) events.push(event);

    const late = emu.state.events.all().filter((e) => emu!.state.events.deliveredAtMs(e) > e.createdAtMs);
    expect(late.length).toBeGreaterThan(70);
    expect(late.length).toBeLessThan(130);
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...generated].sort());
    expect(gaps).toBe(0);
    // They really arrived out of order: many an event came after one created later than it.
    let outOfOrder = 0;
    let newest = "";
    for (const event of events) {
      if (event.created_at! < newest) outOfOrder++;
      else newest = event.created_at!;
    }
    expect(outOfOrder).toBeGreaterThan(50);
  });
});
