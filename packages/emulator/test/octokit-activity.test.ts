// The emulator's notifications, activity events and issue events (spec 4.3, 4.4, 4.5, 6.1, 8) judged by @octokit/rest
// and the official OpenAPI (octokit-conformance-setup.ts): every behaviour as the service's, every body valid.
import { describe, expect, it } from "vitest";
import { behaviour, behaviours, bodies, client, emu, record, useConformanceEmulator } from "./octokit-conformance-setup.js";

useConformanceEmulator();

describe("@octokit/rest against the emulator", () => {
  it("notifications (4.3)", async () => {
    const octokit = client(emu.tokens.classic!);
    const threads = await octokit.paginate(octokit.rest.activity.listNotificationsForAuthenticatedUser, { all: true, per_page: 50 });
    record("paginate notifications", threads.length > 0, String(threads.length));
    const first = await octokit.rest.activity.listNotificationsForAuthenticatedUser();
    await behaviour(
      "If-Modified-Since gives 304",
      () =>
        octokit.rest.activity.listNotificationsForAuthenticatedUser({ headers: { "if-modified-since": first.headers["last-modified"]! } }),
      (o) => o.status === 304,
    );
    await behaviour(
      "If-None-Match with the ETag gives 304 on /notifications",
      () => octokit.rest.activity.listNotificationsForAuthenticatedUser({ headers: { "if-none-match": first.headers.etag! } }),
      (o) => o.status === 304 && /^W\/"/.test(first.headers.etag ?? ""),
    );
    await behaviour(
      "If-Modified-Since is ignored when If-None-Match is sent (RFC 9110 13.1.3): 200",
      () =>
        octokit.rest.activity.listNotificationsForAuthenticatedUser({
          headers: { "if-none-match": 'W/"stale"', "if-modified-since": first.headers["last-modified"]! },
        }),
      (o) => o.status === 200,
    );
    await behaviour(
      "per_page=51 on /notifications capped to 50, not refused",
      () => octokit.rest.activity.listNotificationsForAuthenticatedUser({ per_page: 51, all: true }),
      (o) => o.status === 200 && Array.isArray(o.data) && o.data.length <= 50,
    );
    const id = Number(threads[0]!.id);
    const thread = await behaviour(
      "getThread with a weak ETag",
      () => octokit.rest.activity.getThread({ thread_id: id }),
      (o) => o.status === 200,
    );
    const threadEtag = (await octokit.rest.activity.getThread({ thread_id: id })).headers.etag;
    record("getThread sends a weak ETag", thread.status === 200 && /^W\/"/.test(threadEtag ?? ""), String(threadEtag));
    await behaviour(
      "getThread with If-None-Match gives 304",
      () => octokit.rest.activity.getThread({ thread_id: id, headers: { "if-none-match": threadEtag! } }),
      (o) => o.status === 304,
    );
    await behaviour(
      "setThreadSubscription",
      () => octokit.rest.activity.setThreadSubscription({ thread_id: id, ignored: false }),
      (o) => o.status === 200,
    );
    await behaviour(
      "getThreadSubscription",
      () => octokit.rest.activity.getThreadSubscriptionForAuthenticatedUser({ thread_id: id }),
      (o) => o.status === 200,
    );
    await behaviour(
      "deleteThreadSubscription",
      () => octokit.rest.activity.deleteThreadSubscription({ thread_id: id }),
      (o) => o.status === 204,
    );
    await behaviour(
      "markThreadAsRead",
      () => octokit.rest.activity.markThreadAsRead({ thread_id: id }),
      (o) => o.status === 205,
    );
    await behaviour(
      "markRepoNotificationsAsRead",
      () => octokit.rest.activity.markRepoNotificationsAsRead({ owner: "acme", repo: "web" }),
      (o) => o.status === 205 || o.status === 202,
    );
    await behaviour(
      "markNotificationsAsRead() with no arguments",
      () => octokit.rest.activity.markNotificationsAsRead(),
      (o) => o.status === 205 || o.status === 202,
    );
    await behaviour(
      "markThreadAsDone",
      () => octokit.rest.activity.markThreadAsDone({ thread_id: id }),
      (o) => o.status === 204,
    );
    await behaviour(
      "repository notifications",
      () => octokit.rest.activity.listRepoNotificationsForAuthenticatedUser({ owner: "acme", repo: "web", all: true }),
      (o) => o.status === 200,
    );
  });

  it("activity events (4.4, 6.1, 8)", async () => {
    const octokit = client(emu.tokens.admin!);
    const events = await octokit.paginate(octokit.rest.activity.listRepoEvents, { owner: "acme", repo: "web", per_page: 100 });
    const types = new Set(events.map((e) => e.type));
    record("repository feed holds every generated type", types.size >= 5, [...types].join(","));
    const page = await octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web" });
    await behaviour(
      "If-None-Match with the ETag gives 304",
      () => octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web", headers: { "if-none-match": page.headers.etag! } }),
      (o) => o.status === 304,
    );
    const opaque = page.headers.etag!.replace(/^W\//, "");
    await behaviour(
      "If-None-Match with the opaque tag gives 304 (weak comparison)",
      () => octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web", headers: { "if-none-match": opaque } }),
      (o) => o.status === 304,
    );
    await behaviour(
      "feed per_page=101 capped to 100, not refused",
      () => octokit.request("GET /repos/{owner}/{repo}/events", { owner: "acme", repo: "web", per_page: 101 }),
      (o) => o.status === 200 && Array.isArray(o.data) && o.data.length <= 100,
    );
    for (const [query, value] of [
      ["page", 0],
      ["per_page", "abc"],
    ] as const) {
      await behaviour(
        `feed ${query}=${value} refused 422`,
        () => octokit.request("GET /repos/{owner}/{repo}/events", { owner: "acme", repo: "web", [query]: value }),
        (o) => o.status === 422,
      );
    }
    const calls: [string, () => Promise<unknown>][] = [
      ["listPublicEvents", () => octokit.rest.activity.listPublicEvents()],
      ["listPublicEventsForRepoNetwork", () => octokit.rest.activity.listPublicEventsForRepoNetwork({ owner: "acme", repo: "web" })],
      ["listPublicOrgEvents", () => octokit.rest.activity.listPublicOrgEvents({ org: "acme" })],
      ["listEventsForAuthenticatedUser", () => octokit.rest.activity.listEventsForAuthenticatedUser({ username: "octo" })],
      [
        "listOrgEventsForAuthenticatedUser",
        () => octokit.rest.activity.listOrgEventsForAuthenticatedUser({ username: "octo", org: "acme" }),
      ],
      ["listPublicEventsForUser", () => octokit.rest.activity.listPublicEventsForUser({ username: "hubot" })],
      ["listReceivedEventsForUser", () => octokit.rest.activity.listReceivedEventsForUser({ username: "octo" })],
      ["listReceivedPublicEventsForUser", () => octokit.rest.activity.listReceivedPublicEventsForUser({ username: "octo" })],
    ];
    for (const [name, call] of calls) await behaviour(name, call, (o) => o.status === 200);
  });

  it("issue events (4.5)", async () => {
    const octokit = client(emu.tokens.admin!);
    const all = await octokit.paginate(octokit.rest.issues.listEventsForRepo, { owner: "acme", repo: "web" });
    record("paginate issue events", all.length > 0, String(all.length));
    await behaviour(
      "getEvent",
      () => octokit.rest.issues.getEvent({ owner: "acme", repo: "web", event_id: all[0]!.id }),
      (o) => o.status === 200,
    );
    await behaviour(
      "listEvents of one issue",
      () => octokit.rest.issues.listEvents({ owner: "acme", repo: "web", issue_number: 1 }),
      (o) => o.status === 200,
    );
  });

  it("every behaviour agrees and every body validates", () => {
    expect(behaviours.filter((b) => !b.agrees)).toEqual([]);
    expect(bodies.filter((b) => b.errors.length > 0)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(19);
  });
});
