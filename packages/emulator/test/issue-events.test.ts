import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForbiddenError, GoneError, NotFoundError, RequestValidationError, ShiplogClient, type IssueEvent } from "@shiplog/client";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { collect } from "./collect.js";

// Spec 4.5 and 6.3 over HTTP: the repository list, one event (403, 404, 410), the per-issue list with labels.
let emu: Emulator;
let issue: number;
let pr: number;

const fixture = {
  ...defaultFixture,
  tokens: [
    ...(defaultFixture.tokens ?? []),
    {
      name: "pullsOnly",
      token: "emu_fg_pullsonly_0000000000000",
      type: "fine_grained" as const,
      user: "hubot",
      grants: [{ org: "acme", permissions: { metadata: "read" as const, pull_requests: "read" as const } }],
    },
    {
      name: "metadataOnly",
      token: "emu_fg_metaonly_00000000000000",
      type: "fine_grained" as const,
      user: "hubot",
      grants: [{ org: "acme", permissions: { metadata: "read" as const } }],
    },
  ],
};

beforeAll(async () => {
  emu = await startEmulator({ fixture });
  issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/api", title: "Crash on start", labels: ["bug"] }).number;
  emu.activity.label({ actor: "shiplog-app[bot]", repo: "acme/api", issue, label: "deployed", viaApp: true });
  emu.activity.assign({ actor: "hubot", repo: "acme/api", issue, assignee: "octo" });
  emu.activity.mention({ actor: "hubot", repo: "acme/api", issue, user: "octo" });
  emu.activity.closeIssue({ actor: "octo", repo: "acme/api", issue, commitId: "6dcb09b5b57875f334f61aebed695e2e4193db5e" });
  pr = emu.activity.openIssue({ actor: "octo", repo: "acme/api", title: "Fix crash", pullRequest: true }).number;
  emu.activity.closeIssue({ actor: "hubot", repo: "acme/api", issue: pr });
});
afterAll(() => emu.stop());

const client = (token?: string) =>
  new ShiplogClient({ baseUrl: emu.url, token: token === undefined ? undefined : emu.tokens[token], retry: false });

describe("issue events", () => {
  it("the repository list carries each event's issue, newest first", async () => {
    const events = await collect(client("readOnly").issueEvents.listForRepo({ owner: "acme", repo: "api" }, { per_page: 2 }));
    expect(events.map((e) => e.event)).toEqual(["closed", "closed", "subscribed", "mentioned", "assigned", "labeled", "labeled"]);
    expect(events[0]?.issue).toMatchObject({ number: pr, state: "closed", pull_request: { url: expect.stringContaining(`/pulls/${pr}`) } });
    expect(events[1]?.issue).toMatchObject({
      number: issue,
      state: "closed",
      state_reason: "completed",
      labels: [{ name: "bug" }, { name: "deployed" }],
    });
    expect(events[1]?.commit_url).toBe(`${emu.url}/repos/acme/api/commits/6dcb09b5b57875f334f61aebed695e2e4193db5e`);
  });

  it("the per-issue list is chronological, with labels, assignees and the app that acted", async () => {
    const events: IssueEvent[] = await collect(
      client("readOnly").issueEvents.listForIssue({ owner: "acme", repo: "api", issue_number: issue }),
    );
    expect(events.map((e) => e.event)).toEqual(["labeled", "labeled", "assigned", "mentioned", "subscribed", "closed"]);
    expect(events[0]).toMatchObject({
      label: { name: "bug", color: expect.stringMatching(/^[0-9a-f]{6}$/) },
      performed_via_service_app: null,
    });
    expect(events[1]).toMatchObject({
      label: { name: "deployed" },
      actor: { login: "shiplog-app[bot]", type: "Bot" },
      performed_via_service_app: { slug: "shiplog-app", owner: { login: "acme" } },
    });
    expect(events[2]).toMatchObject({ assignee: { login: "octo" }, assigner: { login: "hubot" } });
    expect(events.every((e) => e.issue === undefined)).toBe(true);
  });

  it("one event: 200 with its issue, 404 for an unknown id, 410 once the issue is deleted", async () => {
    const [latest] = await collect(client("admin").issueEvents.listForRepo({ owner: "acme", repo: "api" }));
    const one = await client("admin").issueEvents.get({ owner: "acme", repo: "api", event_id: latest!.id });
    expect(one).toMatchObject({ id: latest!.id, event: "closed", issue: { number: pr } });
    await expect(client("admin").issueEvents.get({ owner: "acme", repo: "api", event_id: 999 })).rejects.toBeInstanceOf(NotFoundError);

    const doomed = emu.activity.openIssue({ actor: "hubot", repo: "acme/api", title: "Spam", labels: ["spam"] }).number;
    const [labeled] = await collect(client("admin").issueEvents.listForIssue({ owner: "acme", repo: "api", issue_number: doomed }));
    emu.activity.deleteIssue({ repo: "acme/api", issue: doomed });
    await expect(client("admin").issueEvents.get({ owner: "acme", repo: "api", event_id: labeled!.id })).rejects.toBeInstanceOf(GoneError);
    await expect(
      collect(client("admin").issueEvents.listForIssue({ owner: "acme", repo: "api", issue_number: doomed })),
    ).rejects.toBeInstanceOf(GoneError);
    const remaining = await collect(client("admin").issueEvents.listForRepo({ owner: "acme", repo: "api" }));
    expect(remaining.some((e) => e.issue?.number === doomed)).toBe(false);
    await expect(
      collect(client("admin").issueEvents.listForIssue({ owner: "acme", repo: "api", issue_number: 404 })),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("permissions: Issues read for the list; Issues or Pull requests read for one event and per issue; 403 otherwise", async () => {
    const [latest] = await collect(client("admin").issueEvents.listForRepo({ owner: "acme", repo: "api" }));
    expect((await client("pullsOnly").issueEvents.get({ owner: "acme", repo: "api", event_id: latest!.id })).id).toBe(latest!.id);
    expect(
      (await collect(client("pullsOnly").issueEvents.listForIssue({ owner: "acme", repo: "api", issue_number: pr }))).length,
    ).toBeGreaterThan(0);
    const listRefused = await collect(client("pullsOnly").issueEvents.listForRepo({ owner: "acme", repo: "api" })).catch((e: unknown) => e);
    expect(listRefused).toBeInstanceOf(ForbiddenError);
    expect((listRefused as ForbiddenError).acceptedPermissions).toEqual([[{ permission: "issues", access: "read" }]]);
    const oneRefused = await client("metadataOnly")
      .issueEvents.get({ owner: "acme", repo: "api", event_id: latest!.id })
      .catch((e: unknown) => e);
    expect(oneRefused).toBeInstanceOf(ForbiddenError);
    expect((oneRefused as ForbiddenError).acceptedPermissions).toHaveLength(2);
  });

  it("public repositories need no authentication; a private one is not found anonymously", async () => {
    const webIssue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Typo" }).number;
    emu.activity.closeIssue({ actor: "hubot", repo: "acme/web", issue: webIssue });
    expect((await collect(client().issueEvents.listForRepo({ owner: "acme", repo: "web" }))).map((e) => e.event)).toContain("closed");
    const response = await fetch(`${emu.url}/repos/acme/api/issues/events`);
    expect(response.status).toBe(404);
  });

  it("a public repository's events are readable by any authenticated caller; scopes count for private ones", async () => {
    // classicHubot holds only the notifications scope: enough for a public resource, not for a private one.
    const read = (repo: string) =>
      fetch(`${emu.url}/repos/acme/${repo}/issues/events`, { headers: { authorization: `Bearer ${emu.tokens.classicHubot}` } });
    expect((await read("web")).status).toBe(200);
    const refused = await read("api");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-accepted-oauth-scopes")).toBe("repo");
  });

  it("a malformed page answers 422; the client refuses per_page above 100 before sending", async () => {
    const response = await fetch(`${emu.url}/repos/acme/web/issues/events?page=0`);
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: unknown[] }).errors[0]).toMatchObject({ field: "page", code: "invalid" });
    expect(() => client().issueEvents.listForRepo({ owner: "acme", repo: "web" }, { per_page: 101 })).toThrow(RequestValidationError);
    await expect(client().issueEvents.get({ owner: "acme", repo: "web", event_id: "x1" as never })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
  });
});
