import { afterAll, beforeAll, expect, it } from "vitest";
import {
  AuthenticationError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  ServiceValidationError,
  ShiplogClient,
  UnavailableError,
} from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

// Section 7, the rows that notifications, activity feeds and issue events use (201 and 409 belong to other
// areas), each produced once over HTTP, with the class the client maps it to.
let emu: Emulator;
let threadId: string;
let deletedEventId: number;

beforeAll(async () => {
  emu = await startEmulator();
  const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Status codes" }).number;
  emu.activity.mention({ actor: "hubot", repo: "acme/web", issue, user: "octo" });
  const doomed = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Doomed", labels: ["x"] }).number;
  deletedEventId = emu.state.issueEvents.issueEvents("acme", "web", doomed)[0]!.id;
  emu.activity.deleteIssue({ repo: "acme/web", issue: doomed });
  threadId = String(emu.state.notifications.list("octo")[0]!.id);
});
afterAll(() => emu.stop());

async function status(
  method: string,
  path: string,
  token: string | undefined,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${emu.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(token ? { authorization: `Bearer ${emu.tokens[token]}` } : {}),
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  await response.arrayBuffer();
  return { status: response.status, headers: response.headers };
}

it("200 OK, 204 No content, 205 Reset content, 202 Accepted", async () => {
  expect((await status("GET", "/notifications", "classic")).status).toBe(200);
  expect((await status("PATCH", `/notifications/threads/${threadId}`, "classic")).status).toBe(205);
  expect((await status("DELETE", `/notifications/threads/${threadId}/subscription`, "classic")).status).toBe(204);
  expect((await status("DELETE", `/notifications/threads/${threadId}`, "classic")).status).toBe(204);
  emu.state.notifications.markReadThreshold = 0;
  emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Another" });
  expect((await status("PUT", "/notifications", "classic", { body: {} })).status).toBe(202);
});

it("301 Moved permanently, 304 Not modified", async () => {
  expect((await status("GET", "/networks/acme/website/events", undefined)).status).toBe(301);
  const first = await status("GET", "/events", undefined);
  expect((await status("GET", "/events", undefined, { headers: { "if-none-match": first.headers.get("etag")! } })).status).toBe(304);
});

it("401, 403, 404, 410, 422 and 503, each mapped to its error class", async () => {
  const anonymous = new ShiplogClient({ baseUrl: emu.url, retry: false });
  const fine = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.admin, retry: false });
  const classic = new ShiplogClient({ baseUrl: emu.url, token: emu.tokens.classic, retry: false });
  const first = async (items: AsyncIterable<unknown>) => {
    for await (const item of items) return item;
    return undefined;
  };
  await expect(first(anonymous.notifications.list())).rejects.toBeInstanceOf(AuthenticationError);
  await expect(first(fine.notifications.list())).rejects.toBeInstanceOf(ForbiddenError);
  await expect(classic.notifications.getThread({ thread_id: 987654 })).rejects.toBeInstanceOf(NotFoundError);
  await expect(fine.issueEvents.get({ owner: "acme", repo: "web", event_id: deletedEventId })).rejects.toBeInstanceOf(GoneError);
  const invalid = await fetch(`${emu.url}/notifications?all=maybe`, { headers: { authorization: `Bearer ${emu.tokens.classic}` } });
  expect(invalid.status).toBe(422);
  const error = await classic.request({ method: "GET", route: "/notifications", query: { before: "not-a-time" } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceValidationError);
  emu.faults.add({ route: "/events", kind: "status", status: 503, times: 1 });
  await expect(first(anonymous.activity.listPublicEvents())).rejects.toBeInstanceOf(UnavailableError);
});
