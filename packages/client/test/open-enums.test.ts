import { afterEach, describe, expect, it } from "vitest";
import { NOTIFICATION_REASONS, ShiplogClient, describeImport, isKnownValue, type NotificationThread } from "@shiplog/client";
import { closeLoopbackServers, serve } from "../../../test/kit/loopback.js";
import { actingClock } from "../../../test/kit/virtual-clock.js";

// A newer service: answers carrying enumeration values this client does not know, and SHA-256 object ids.
// A loopback server serves those bodies; the client must parse them and hand the values on unchanged.

afterEach(closeLoopbackServers);

const SHA256_TAG = "5e1a".repeat(16);
const SHA256_COMMIT = `${"c0ffee".repeat(10)}c0ff`;
const user = {
  login: "octo",
  id: 2,
  node_id: "U_2",
  avatar_url: "https://x/a",
  gravatar_id: "",
  url: "https://x/u",
  html_url: "https://x/h",
  type: "User",
  site_admin: false,
};
const stamp = "2026-03-10T12:00:00Z";

function newerService(requests: { method: string; url: string; body: string }[]): Promise<string> {
  return serve((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", body });
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      const tag = {
        node_id: "T_1",
        tag: "v2.0.0",
        sha: SHA256_TAG,
        url: `https://x/repos/acme/web/git/tags/${SHA256_TAG}`,
        message: "Release",
        tagger: { name: "octo", email: "octo@example.com", date: stamp },
        object: { type: "commit", sha: SHA256_COMMIT, url: `https://x/repos/acme/web/git/commits/${SHA256_COMMIT}` },
        verification: { verified: false, reason: "revoked_key", signature: null, payload: null, verified_at: null },
      };
      if (req.url === `/repos/acme/web/git/tags/${SHA256_TAG}`) return send(200, tag);
      if (req.url === "/repos/acme/web/git/tags" && req.method === "POST") return send(201, tag);
      if (req.url?.startsWith("/notifications")) {
        return send(200, [
          {
            id: "1",
            repository: { id: 1, name: "web", full_name: "acme/web", owner: user, private: false },
            subject: { title: "Security policy updated", url: null, latest_comment_url: null, type: "SecurityPolicy" },
            reason: "security_alert",
            unread: true,
            updated_at: stamp,
            last_read_at: null,
            url: "https://x/notifications/threads/1",
            subscription_url: "https://x/notifications/threads/1/subscription",
          },
        ]);
      }
      if (req.url?.startsWith("/repos/acme/web/issues/events")) {
        return send(200, [
          {
            id: 9,
            node_id: "E_9",
            url: "https://x/e/9",
            actor: user,
            event: "auto_merge_enabled",
            commit_id: SHA256_COMMIT,
            commit_url: null,
            created_at: stamp,
            issue: {
              id: 1,
              node_id: "I_1",
              url: "https://x/i/1",
              repository_url: "https://x/r",
              html_url: "https://x/h/1",
              number: 1,
              state: "archived",
              title: "t",
              user,
              labels: [],
              locked: false,
              comments: 0,
              closed_at: null,
              created_at: stamp,
              updated_at: stamp,
              state_reason: "superseded",
            },
          },
        ]);
      }
      if (req.url === "/repos/acme/web/import") {
        return send(200, {
          vcs: "fossil",
          use_lfs: "auto",
          vcs_url: "https://x/src",
          status: "queued",
          url: "https://x/i",
          html_url: "https://x/h",
          authors_url: "https://x/a",
          repository_url: "https://x/r",
        });
      }
      send(404, { message: "Not Found" });
    });
  });
}

describe("enumerations the service may extend, and SHA-256 object ids", () => {
  it("a tag with a 64-hex SHA and an unknown verification reason parses and reaches the caller; a 64-hex object may be tagged", async () => {
    const requests: { method: string; url: string; body: string }[] = [];
    const client = new ShiplogClient({ baseUrl: await newerService(requests), token: "t", retry: false });
    const tag = await client.git.getTag({ owner: "acme", repo: "web", tag_sha: SHA256_TAG });
    expect(tag.sha).toBe(SHA256_TAG);
    expect(tag.object.sha).toBe(SHA256_COMMIT);
    expect(tag.verification?.reason).toBe("revoked_key");
    const made = await client.git.createTag({
      owner: "acme",
      repo: "web",
      tag: "v2.0.0",
      message: "Release",
      object: SHA256_COMMIT,
      type: "commit",
    });
    expect(made.sha).toBe(SHA256_TAG);
    expect(JSON.parse(requests.at(-1)!.body)).toMatchObject({ object: SHA256_COMMIT });
    // Neither 40 nor 64 digits is still refused before sending.
    const before = requests.length;
    await expect(client.git.getTag({ owner: "acme", repo: "web", tag_sha: "ab".repeat(24) })).rejects.toThrow(
      /40 \(SHA-1\) or 64 \(SHA-256\)/,
    );
    expect(requests).toHaveLength(before);
  });

  it("a notification with an unknown reason and subject type reaches the caller, through the list and the poller", async () => {
    const client = new ShiplogClient({ baseUrl: await newerService([]), token: "t", retry: false });
    const listed = [];
    for await (const thread of client.notifications.list()) listed.push(thread);
    expect(listed.map((t) => [t.reason, t.subject.type])).toEqual([["security_alert", "SecurityPolicy"]]);
    const reason: NotificationThread["reason"] = listed[0]!.reason;
    expect(isKnownValue(NOTIFICATION_REASONS, reason)).toBe(false);
    expect(isKnownValue(NOTIFICATION_REASONS, "team_mention")).toBe(true);

    const controller = new AbortController();
    const polled = [];
    for await (const thread of client.notifications.poll({ signal: controller.signal, clock: actingClock(() => controller.abort()) }))
      polled.push(thread.reason);
    expect(polled).toEqual(["security_alert"]);
  });

  it("an issue event of an unknown kind, an import in an unknown status: parsed, passed on, the import seen as still working", async () => {
    const client = new ShiplogClient({ baseUrl: await newerService([]), token: "t", retry: false });
    const events = [];
    for await (const event of client.issueEvents.listForRepo({ owner: "acme", repo: "web" })) events.push(event);
    expect(events.map((e) => [e.event, e.issue?.state, e.issue?.state_reason, e.commit_id])).toEqual([
      ["auto_merge_enabled", "archived", "superseded", SHA256_COMMIT],
    ]);
    const imported = await client.imports.getImportStatus({ owner: "acme", repo: "web" });
    expect([imported.status, imported.vcs, imported.use_lfs]).toEqual(["queued", "fossil", "auto"]);
    expect(describeImport(imported).phase).toBe("working");
  });
});
