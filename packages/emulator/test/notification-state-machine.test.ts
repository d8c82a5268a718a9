import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ForbiddenError,
  MarkReadTimeoutError,
  NotFoundError,
  RequestValidationError,
  ShiplogClient,
  TokenTypeRefusedError,
  type NotificationThread,
} from "@shiplog/client";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { collect } from "./collect.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

// Spec 3.2, row by row, over HTTP with the real client. hubot acts; octo (classic token) receives. The emulator runs
// on a virtual clock: its background marking moves on only when the client's waits move the clock.
let emu: Emulator;
let octo: ShiplogClient;
const clock = new VirtualClock();
/** markAllAsReadAndWait's waits and time on the virtual clock: each wait moves it on, running the emulator's steps. */
const onClock = { now: () => clock.now(), sleep: (ms: number) => clock.advance(ms) };

const fixture = {
  ...defaultFixture,
  tokens: [
    ...(defaultFixture.tokens ?? []),
    { name: "classicNoScope", token: "emu_classic_noscope_0000000000", type: "classic" as const, user: "octo", scopes: ["read:org"] },
  ],
};

beforeAll(async () => {
  emu = await startEmulator({ fixture, clock });
  octo = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classic, retry: false });
});
afterAll(() => emu.stop());
beforeEach(() => {
  emu.state.notifications.markReadThreshold = 100;
});

let titles = 0;
/** Opens an issue in `repo` that mentions octo, so octo has an unread, participating thread. */
function threadForOcto(repo: `acme/${string}` = "acme/infra"): { issue: number; title: string } {
  const title = `Thread ${++titles}`;
  const issue = emu.activity.openIssue({ actor: "hubot", repo, title }).number;
  emu.activity.mention({ actor: "hubot", repo, issue, user: "octo" });
  return { issue, title };
}

async function find(title: string, all = true): Promise<NotificationThread | undefined> {
  return (await collect(octo.notifications.list({ all }))).find((t) => t.subject.title === title);
}

describe("unread → read", () => {
  it("PUT /notifications marks everything up to last_read_at read (205); later updates stay unread", async () => {
    const { title } = threadForOcto();
    emu.clock.advance(10_000);
    const cutoff = emu.clock.timestamp();
    emu.clock.advance(10_000);
    const later = threadForOcto();
    const result = await octo.notifications.markAllAsRead({ last_read_at: cutoff });
    expect(result).toMatchObject({ status: 205, background: false });
    expect((await find(title))?.unread).toBe(false);
    expect((await find(title))?.last_read_at).toBe(cutoff);
    expect((await find(later.title))?.unread).toBe(true);
  });

  it("past the threshold PUT /notifications answers 202 and marks in the background; the helper waits until done", async () => {
    emu.state.notifications.markReadThreshold = 3;
    const created = Array.from({ length: 12 }, () => threadForOcto());
    const result = await octo.notifications.markAllAsReadAndWait({}, { intervalMs: 5, clock: onClock });
    expect(result.status).toBe(202);
    expect(result.message).toMatch(/background/);
    expect(result.checks).toBeGreaterThanOrEqual(1);
    const unread = await collect(octo.notifications.list());
    expect(unread.filter((t) => created.some((c) => c.title === t.subject.title))).toEqual([]);
  });

  it("PATCH thread marks one thread read (205)", async () => {
    const { title } = threadForOcto();
    const thread = (await find(title))!;
    expect(thread.unread).toBe(true);
    await octo.notifications.markThreadAsRead({ thread_id: thread.id });
    expect((await octo.notifications.getThread({ thread_id: thread.id })).unread).toBe(false);
    expect(emu.requests.list({ method: "PATCH" }).at(-1)?.status).toBe(205);
  });

  it("PUT repository notifications marks only that repository (205), or 202 past the threshold", async () => {
    const infra = threadForOcto("acme/infra");
    const api = threadForOcto("acme/api");
    const small = await octo.notifications.markRepoAsRead({ owner: "acme", repo: "infra" });
    expect(small.status).toBe(205);
    expect((await find(infra.title))?.unread).toBe(false);
    expect((await find(api.title))?.unread).toBe(true);

    emu.state.notifications.markReadThreshold = 2;
    const many = Array.from({ length: 6 }, () => threadForOcto("acme/api"));
    const big = await octo.notifications.markAllAsReadAndWait({ owner: "acme", repo: "api" }, { intervalMs: 5, clock: onClock });
    expect(big.status).toBe(202);
    const unread = await collect(octo.notifications.listForRepo({ owner: "acme", repo: "api" }));
    expect(unread.filter((t) => many.some((m) => m.title === t.subject.title))).toEqual([]);
  });
});

describe("markAllAsReadAndWait refuses what it cannot do, before sending", () => {
  it.each([
    [{ owner: "acme" }, "repo", "owner and repo together"],
    [{ repo: "infra" }, "owner", "owner and repo together"],
    [{ read: false }, "read", "not false"],
    [{ owner: "acme", repo: "infra", read: false }, "read", "not false"],
  ] as const)("%o: RequestValidationError naming %s", async (params, field, rule) => {
    const { title } = threadForOcto();
    const before = emu.requests.count();
    const error = await octo.notifications
      .markAllAsReadAndWait(params, { intervalMs: 5, timeoutMs: 1000, clock: onClock })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([expect.objectContaining({ field, rule })]);
    // Nothing was sent: the inbox (owner alone would have been PUT /notifications) is untouched.
    expect(emu.requests.count()).toBe(before);
    expect((await find(title))?.unread).toBe(true);
  });

  it("gives up with MarkReadTimeoutError (mark_read_timeout) when the background marking outlasts the timeout", async () => {
    const { backgroundStepMs, backgroundBatch } = emu.state.notifications;
    emu.state.notifications.markReadThreshold = 1;
    emu.state.notifications.backgroundStepMs = 60_000;
    emu.state.notifications.backgroundBatch = 1;
    try {
      Array.from({ length: 3 }, () => threadForOcto("acme/api"));
      const error = await octo.notifications
        .markAllAsReadAndWait({ owner: "acme", repo: "api" }, { clock: onClock, timeoutMs: 0 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MarkReadTimeoutError);
      expect(error).toMatchObject({ code: "mark_read_timeout" });
      expect((error as MarkReadTimeoutError).pending).toBeGreaterThan(0);
    } finally {
      Object.assign(emu.state.notifications, { backgroundStepMs, backgroundBatch });
    }
  });
});

describe("done", () => {
  it("DELETE thread (204) takes it out of the inbox, even with all=true; new activity brings it back", async () => {
    const { issue, title } = threadForOcto();
    const thread = (await find(title))!;
    await octo.notifications.markThreadAsDone({ thread_id: thread.id });
    expect(emu.requests.list({ method: "DELETE" }).at(-1)?.status).toBe(204);
    expect(await find(title, true)).toBeUndefined();
    emu.activity.mention({ actor: "hubot", repo: "acme/infra", issue, user: "octo" });
    expect((await find(title, false))?.unread).toBe(true);
  });
});

describe("subscriptions", () => {
  it("a thread the user does not take part in has no subscription; taking part creates one", async () => {
    // octo watches acme/web: an issue there reaches them as `subscribed`, without a subscription.
    const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Watch only" }).number;
    const thread = (await find("Watch only"))!;
    expect(thread.reason).toBe("subscribed");
    await expect(octo.notifications.getThreadSubscription({ thread_id: thread.id })).rejects.toBeInstanceOf(NotFoundError);
    emu.activity.mention({ actor: "hubot", repo: "acme/web", issue, user: "octo" });
    expect(await octo.notifications.getThreadSubscription({ thread_id: thread.id })).toMatchObject({ subscribed: true, ignored: false });
  });

  it("absent or ignored false → PUT ignored true → ignored: every notification of the thread is blocked", async () => {
    const { issue, title } = threadForOcto();
    const thread = (await find(title))!;
    await octo.notifications.markThreadAsRead({ thread_id: thread.id });
    const sub = await octo.notifications.setThreadSubscription({ thread_id: thread.id, ignored: true });
    expect(sub).toMatchObject({ subscribed: false, ignored: true });
    emu.activity.comment({ actor: "hubot", repo: "acme/infra", issue, body: "more" });
    emu.activity.closeIssue({ actor: "hubot", repo: "acme/infra", issue });
    emu.activity.assign({ actor: "hubot", repo: "acme/infra", issue, assignee: "octo" });
    expect((await find(title))?.unread).toBe(false);
  });

  it("ignored true → PUT ignored false → subscribed", async () => {
    const { title } = threadForOcto();
    const thread = (await find(title))!;
    await octo.notifications.setThreadSubscription({ thread_id: thread.id, ignored: true });
    const sub = await octo.notifications.setThreadSubscription({ thread_id: thread.id, ignored: false });
    expect(sub).toMatchObject({ subscribed: true, ignored: false });
    expect(await octo.notifications.getThreadSubscription({ thread_id: thread.id })).toMatchObject({ subscribed: true, ignored: false });
  });

  it("subscribed → DELETE subscription → muted until a comment or @mention", async () => {
    const { issue, title } = threadForOcto("acme/infra");
    const thread = (await find(title))!;
    await octo.notifications.markThreadAsRead({ thread_id: thread.id });
    await octo.notifications.deleteThreadSubscription({ thread_id: thread.id });
    await expect(octo.notifications.getThreadSubscription({ thread_id: thread.id })).rejects.toBeInstanceOf(NotFoundError);
    emu.activity.comment({ actor: "hubot", repo: "acme/infra", issue, body: "no mention" });
    expect((await find(title))?.unread).toBe(false);
    emu.activity.mention({ actor: "hubot", repo: "acme/infra", issue, user: "octo" });
    expect(await find(title)).toMatchObject({ unread: true, reason: "mention" });
    expect(await octo.notifications.getThreadSubscription({ thread_id: thread.id })).toMatchObject({ subscribed: true });
  });

  it("a muted thread of a watched repository still notifies", async () => {
    const { issue, title } = threadForOcto("acme/web");
    const thread = (await find(title))!;
    await octo.notifications.markThreadAsRead({ thread_id: thread.id });
    await octo.notifications.deleteThreadSubscription({ thread_id: thread.id });
    emu.activity.comment({ actor: "hubot", repo: "acme/web", issue, body: "plain comment" });
    expect(await find(title)).toMatchObject({ unread: true, reason: "subscribed" });
  });

  it("a comment or @mention on an ignored thread ends the ignore", async () => {
    const first = threadForOcto();
    const t1 = (await find(first.title))!;
    await octo.notifications.setThreadSubscription({ thread_id: t1.id, ignored: true });
    emu.activity.mention({ actor: "hubot", repo: "acme/infra", issue: first.issue, user: "octo" });
    expect(await find(first.title)).toMatchObject({ unread: true, reason: "mention" });
    expect(await octo.notifications.getThreadSubscription({ thread_id: t1.id })).toMatchObject({ ignored: false, subscribed: true });

    const second = threadForOcto();
    const t2 = (await find(second.title))!;
    await octo.notifications.setThreadSubscription({ thread_id: t2.id, ignored: true });
    emu.activity.comment({ actor: "octo", repo: "acme/infra", issue: second.issue, body: "I'm back" });
    expect(await octo.notifications.getThreadSubscription({ thread_id: t2.id })).toMatchObject({ ignored: false, subscribed: true });
    emu.activity.comment({ actor: "hubot", repo: "acme/infra", issue: second.issue, body: "welcome" });
    expect((await find(second.title))?.unread).toBe(true);
  });
});

describe("reasons", () => {
  it("a later notification's reason replaces the earlier one and stays: an author who is mentioned has reason mention afterwards", async () => {
    const issue = emu.activity.openIssue({ actor: "octo", repo: "acme/infra", title: "Authored by octo" }).number;
    emu.activity.comment({ actor: "hubot", repo: "acme/infra", issue, body: "first reply" });
    expect((await find("Authored by octo"))?.reason).toBe("author");
    emu.activity.mention({ actor: "hubot", repo: "acme/infra", issue, user: "octo" });
    expect((await find("Authored by octo"))?.reason).toBe("mention");
    emu.activity.comment({ actor: "hubot", repo: "acme/infra", issue, body: "no mention this time" });
    emu.activity.closeIssue({ actor: "hubot", repo: "acme/infra", issue });
    expect((await find("Authored by octo"))?.reason).toBe("mention");
    emu.activity.assign({ actor: "hubot", repo: "acme/infra", issue, assignee: "octo" });
    expect((await find("Authored by octo"))?.reason).toBe("assign");
  });
});

describe("listing filters and polling headers", () => {
  it("all, participating, since and before", async () => {
    const watched = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Filter watched" });
    const mine = threadForOcto("acme/web");
    const both = await collect(octo.notifications.list({ participating: false }));
    expect(both.map((t) => t.subject.title)).toEqual(expect.arrayContaining(["Filter watched", mine.title]));
    const participating = await collect(octo.notifications.list({ participating: true }));
    expect(participating.map((t) => t.subject.title)).toContain(mine.title);
    expect(participating.map((t) => t.subject.title)).not.toContain("Filter watched");

    const t = (await find(mine.title))!;
    await octo.notifications.markThreadAsRead({ thread_id: t.id });
    expect((await collect(octo.notifications.list())).map((x) => x.subject.title)).not.toContain(mine.title);
    expect((await collect(octo.notifications.list({ all: true }))).map((x) => x.subject.title)).toContain(mine.title);

    emu.clock.advance(60_000);
    const boundary = emu.clock.timestamp();
    emu.clock.advance(60_000);
    emu.activity.comment({ actor: "hubot", repo: "acme/web", issue: watched.number, body: "newer" });
    const since = await collect(octo.notifications.list({ all: true, since: boundary }));
    expect(since.map((x) => x.subject.title)).toContain("Filter watched");
    expect(since.map((x) => x.subject.title)).not.toContain(mine.title);
    const before = await collect(octo.notifications.list({ all: true, before: boundary }));
    expect(before.map((x) => x.subject.title)).toContain(mine.title);
    expect(before.map((x) => x.subject.title)).not.toContain("Filter watched");
  });

  it("Last-Modified sent back exactly gives 304 without using the rate limit; a change gives 200", async () => {
    const headers = { authorization: `Bearer ${emu.tokens.classic}` };
    const first = await fetch(`${emu.url}/notifications`, { headers });
    const lastModified = first.headers.get("last-modified")!;
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    expect(first.headers.get("x-poll-interval")).toBe("60");
    const used = emu.rateLimits.used("token:classic");
    const again = await fetch(`${emu.url}/notifications`, { headers: { ...headers, "if-modified-since": lastModified } });
    expect(again.status).toBe(304);
    expect(again.headers.get("x-ratelimit-remaining")).toBe(first.headers.get("x-ratelimit-remaining"));
    expect(emu.rateLimits.used("token:classic")).toBe(used);
    threadForOcto();
    const changed = await fetch(`${emu.url}/notifications`, { headers: { ...headers, "if-modified-since": lastModified } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("last-modified")).not.toBe(lastModified);
  });

  it("bad filters answer 422 naming the field; per_page above 50 is refused by the client before sending", async () => {
    const response = await fetch(`${emu.url}/notifications?since=yesterday`, {
      headers: { authorization: `Bearer ${emu.tokens.classic}` },
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: { field: string }[] }).errors[0]?.field).toBe("since");
    const before = emu.requests.count();
    expect(() => octo.notifications.list({}, { per_page: 51 })).toThrow(RequestValidationError);
    expect(() => octo.notifications.list({ since: "yesterday" })).toThrow(/since/);
    expect(() => octo.notifications.listForRepo({ owner: "acme", repo: "web" }, { per_page: 101 })).toThrow(/per_page/);
    expect(emu.requests.count()).toBe(before);
  });
});

describe("token rules (5.1)", () => {
  it("the service refuses other token types (403) and classic tokens without notifications or repo", async () => {
    for (const name of ["admin", "installation", "appUser"]) {
      const client = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens[name], retry: false });
      const error = await collect(client.notifications.list()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as ForbiddenError).serviceMessage).toMatch(/not accessible by (personal access token|integration)/);
    }
    const noScope = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classicNoScope, retry: false });
    await expect(collect(noScope.notifications.list())).rejects.toThrow(/notifications, repo/);
    // hubot's classic token has only `notifications`: enough.
    const hubot = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classicHubot, retry: false });
    expect(Array.isArray(await collect(hubot.notifications.list()))).toBe(true);
  });

  it("a client told its token type refuses locally, sending nothing", async () => {
    const before = emu.requests.count();
    const fine = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, tokenInfo: { type: "fine_grained" } });
    const listing = fine.notifications.list()[Symbol.asyncIterator]();
    const error = await listing.next().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(TokenTypeRefusedError);
    await expect(fine.notifications.markAllAsRead()).rejects.toMatchObject({ code: "token_type_refused", acceptedTypes: ["classic"] });
    await expect(fine.notifications.poll()[Symbol.asyncIterator]().next()).rejects.toThrow(/personal access token \(classic\)/);
    const classicNoScope = new ShiplogClient({
      baseUrl: emu.url,
      token: emu.tokens.classicNoScope,
      tokenInfo: { type: "classic", scopes: ["read:org"] },
    });
    await expect(classicNoScope.notifications.getThread({ thread_id: 1 })).rejects.toMatchObject({
      code: "permission_missing",
      missing: [{ kind: "scope", anyOf: ["notifications", "repo"] }],
    });
    expect(emu.requests.count()).toBe(before);
    // The message never carries the token.
    expect(JSON.stringify(error) + error?.message).not.toContain(emu.tokens.admin);
  });
});
