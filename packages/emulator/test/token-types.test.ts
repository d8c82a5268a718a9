// Evidence for the token rules of spec 4.1-4.5 and 5.1-5.2: every caller against every endpoint family, over HTTP.
// Read a row against the spec: 4.1/4.2 accept UAT, IAT and fine-grained tokens only (4.2's get is public for
// public repositories); 4.3 and 4.4b accept only a classic token (notifications need the scope notifications or
// repo); 4.4 needs Events (organization) read for a user's organization feed and Metadata read for repository
// events; 4.5 needs Issues read; 5.1: public resources need no authentication, reading issues needs `repo`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixture, startEmulator, type Emulator, type FixtureInput } from "@shiplog/emulator";

const CALLERS = ["anonymous", "classicRepo", "classicNotifications", "fineGrained", "fineGrainedWithout", "uat", "iat"] as const;
type Caller = (typeof CALLERS)[number];

/**
 * Expected answers. `403 type`: the token type is refused (the service's refusal text); `403 scope`: a classic
 * scope is missing (X-Accepted-OAuth-Scopes); `403 <permission>=<level>`: a permission is missing, named by
 * X-Accepted-Service-Permissions. A private repository the caller cannot see is 404, as if it did not exist.
 */
// prettier-ignore
const EXPECTED: Record<string, Record<Caller, string>> = {
  //                                  anonymous  classicRepo  classicNotifications  fineGrained  fineGrainedWithout                 uat    iat
  "artifact metadata write": row("401", "200", "403 scope", "200", "403 artifact_metadata=write", "200", "200"),
  "artifact listing": row("401", "200", "403 scope", "200", "403 artifact_metadata=read", "200", "200"),
  "git tag create": row("401", "201", "403 scope", "201", "403 contents=write", "201", "201"),
  "git tag get, public repository": row("200", "200", "200", "200", "200", "200", "200"),
  "git tag get, private repository": row("404", "200", "403 scope", "200", "403 contents=read", "200", "200"),
  "notifications list": row("401", "200", "200", "403 type", "403 type", "403 type", "403 type"),
  "organization feed of a user": row(
    "401",
    "200",
    "403 organization_events=read",
    "200",
    "403 organization_events=read",
    "200",
    "403 type",
  ),
  "repository events, private": row("404", "200", "404", "200", "403 metadata=read", "200", "200"),
  "issue events, private": row("404", "200", "403 scope", "200", "403 issues=read", "200", "200"),
  "source import GET": row("401", "200", "404", "403 type", "403 type", "403 type", "403 type"),
};

function row(...statuses: string[]): Record<Caller, string> {
  return Object.fromEntries(CALLERS.map((caller, i) => [caller, statuses[i]])) as Record<Caller, string>;
}

const DIGEST = `sha256:${"5".repeat(64)}`;
const ALL = { artifact_metadata: "write", contents: "write", metadata: "read", issues: "read", organization_events: "read" } as const;

const fixture: FixtureInput = {
  ...defaultFixture,
  tokens: [
    { name: "classicRepo", token: "emu_tt_classic_repo_000000", type: "classic", user: "octo", scopes: ["repo"] },
    { name: "classicNotifications", token: "emu_tt_classic_notif_00000", type: "classic", user: "octo", scopes: ["notifications"] },
    {
      name: "fineGrained",
      token: "emu_tt_fine_grained_000000",
      type: "fine_grained",
      user: "octo",
      grants: [{ org: "acme", permissions: ALL }],
    },
    // Granted the organization's repositories, but no permission on them.
    {
      name: "fineGrainedWithout",
      token: "emu_tt_fine_grained_none00",
      type: "fine_grained",
      user: "octo",
      grants: [{ org: "acme", permissions: {} }],
    },
    { name: "uat", token: "emu_tt_app_user_0000000000", type: "app_user", user: "octo", grants: [{ org: "acme", permissions: ALL }] },
    { name: "iat", token: "emu_tt_installation_000000", type: "app_installation", grants: [{ org: "acme", permissions: ALL }] },
  ],
};

let emu: Emulator;
let publicTag: string;
let privateTag: string;

/** One request of each family; `tag` makes repeated creates distinct. */
function request(family: string, tag: string): { method: string; path: string; body?: unknown } {
  const tagBody = (repo: string) => ({
    tag,
    message: `release ${tag}`,
    object: emu.state.git.repository("acme", repo)!.head(),
    type: "commit",
  });
  switch (family) {
    case "artifact metadata write":
      return {
        method: "POST",
        path: "/orgs/acme/artifacts/metadata/storage-record",
        body: { name: "web", digest: DIGEST, registry_url: "https://registry.example.com", github_repository: "web" },
      };
    case "artifact listing":
      return { method: "GET", path: `/orgs/acme/artifacts/${DIGEST}/metadata/deployment-records` };
    case "git tag create":
      return { method: "POST", path: "/repos/acme/web/git/tags", body: tagBody("web") };
    case "git tag get, public repository":
      return { method: "GET", path: `/repos/acme/web/git/tags/${publicTag}` };
    case "git tag get, private repository":
      return { method: "GET", path: `/repos/acme/api/git/tags/${privateTag}` };
    case "notifications list":
      return { method: "GET", path: "/notifications" };
    case "organization feed of a user":
      return { method: "GET", path: "/users/octo/events/orgs/acme" };
    case "repository events, private":
      return { method: "GET", path: "/repos/acme/api/events" };
    case "issue events, private":
      return { method: "GET", path: "/repos/acme/api/issues/events" };
    case "source import GET":
      return { method: "GET", path: "/repos/acme/api/import" };
    default:
      throw new Error(`no request for ${family}`);
  }
}

async function send(caller: Caller, call: { method: string; path: string; body?: unknown }) {
  const headers: Record<string, string> = {};
  if (caller !== "anonymous") headers.authorization = `Bearer ${emu.tokens[caller]}`;
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${emu.url}${call.path}`, {
    method: call.method,
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, body };
}

beforeAll(async () => {
  emu = await startEmulator({ fixture });
  // Source imports answer only before their retirement (2024-04-12).
  emu.clock.set("2024-04-01T00:00:00Z");
  const started = await send("classicRepo", {
    method: "PUT",
    path: "/repos/acme/api/import",
    body: { vcs_url: "https://svn.example.com/api", vcs: "subversion" },
  });
  expect(started.status).toBe(201);
  for (const [repo, set] of [
    ["web", (sha: string) => (publicTag = sha)],
    ["api", (sha: string) => (privateTag = sha)],
  ] as const) {
    const created = await send("fineGrained", {
      method: "POST",
      path: `/repos/acme/${repo}/git/tags`,
      body: { tag: "v1", message: "v1", object: emu.state.git.repository("acme", repo)!.head(), type: "commit" },
    });
    expect(created.status).toBe(201);
    set(String(created.body.sha));
  }
  emu.activity.openIssue({ actor: "octo", repo: "acme/api", title: "Private issue" });
});
afterAll(() => emu.stop());

describe("token types × endpoint families (spec 4.1-4.5, 5.1, 5.2)", () => {
  const cases = Object.entries(EXPECTED).flatMap(([family, byCaller]) =>
    CALLERS.map((caller) => [family, caller, byCaller[caller]] as const),
  );
  let n = 0;

  it.each(cases)("%s, %s: %s", async (family, caller, expected) => {
    const answer = await send(caller, request(family, `t${++n}`));
    const [status, detail] = expected.split(" ") as [string, string | undefined];
    expect(answer.status).toBe(Number(status));
    if (detail === "type") {
      expect(answer.body.message).toBe(
        caller.startsWith("classic") || caller.startsWith("fineGrained")
          ? "Resource not accessible by personal access token"
          : "Resource not accessible by integration",
      );
    } else if (detail === "scope") {
      expect(answer.headers.get("x-accepted-oauth-scopes")).toBe("repo");
    } else if (detail !== undefined) {
      expect(answer.headers.get("x-accepted-service-permissions")).toBe(detail);
    }
  });
});
