import { describe, expect, it } from "vitest";
import { AccessControl, decideAccess, fixtureSchema, type AccessRule, type Principal } from "@shiplog/emulator/internal";

// The access decision as a pure function over plain data: a small world, a few callers, hand-written rules.
const fixture = fixtureSchema.parse({
  orgs: [
    {
      login: "acme",
      id: 1,
      members: ["octo"],
      repositories: [
        { name: "web", id: 11, private: false },
        { name: "api", id: 12, private: true },
      ],
    },
  ],
  tokens: [
    { name: "classicRepo", token: "classic_repo_000", type: "classic", user: "octo", scopes: ["repo"] },
    { name: "classicNotifications", token: "classic_notif_000", type: "classic", user: "octo", scopes: ["notifications"] },
    {
      name: "fineGrained",
      token: "fine_grained_000",
      type: "fine_grained",
      user: "octo",
      grants: [{ org: "acme", permissions: { issues: "read", contents: "write" } }],
    },
    {
      name: "fineGrainedWebOnly",
      token: "fine_grained_web0",
      type: "fine_grained",
      user: "octo",
      grants: [{ org: "acme", repositories: ["web"], permissions: { issues: "read" } }],
    },
    {
      name: "installation",
      token: "installation_000",
      type: "app_installation",
      grants: [{ org: "acme", permissions: { metadata: "read" } }],
    },
  ],
});
const access = new AccessControl(fixture);

const anonymous: Principal = { kind: "anonymous" };
const caller = (name: string): Principal => ({ kind: "token", token: fixture.tokens.find((t) => t.name === name)! });

/** Reading issue events (4.5): Issues read, public resources readable by all, classic tokens need `repo`. */
const issueEventsRead: AccessRule = {
  anyOf: [[{ permission: "issues", access: "read" }]],
  tokenTypes: ["classic", "fine_grained", "app_user", "app_installation"],
  classicScopes: ["repo"],
  publicRead: true,
};
/** Creating a tag object (4.2): Contents write, no classic token, never public. */
const tagCreate: AccessRule = {
  anyOf: [[{ permission: "contents", access: "write" }]],
  tokenTypes: ["fine_grained", "app_user", "app_installation"],
};
const repo = (name: string) => ({ owner: "acme", repo: name });

describe("decideAccess", () => {
  it("no rule: open", () => {
    expect(decideAccess(access, { principal: anonymous, rule: undefined, params: {} })).toEqual({ allow: true });
  });

  it("anonymous: a public resource is readable; a private or missing one is not found; a non-public route is 401", () => {
    expect(decideAccess(access, { principal: anonymous, rule: issueEventsRead, params: repo("web") })).toEqual({ allow: true });
    expect(decideAccess(access, { principal: anonymous, rule: issueEventsRead, params: repo("api") })).toMatchObject({
      allow: false,
      status: 404,
    });
    expect(decideAccess(access, { principal: anonymous, rule: issueEventsRead, params: repo("nope") })).toMatchObject({
      allow: false,
      status: 404,
    });
    // Not publicly readable at all: 401 whether or not the repository exists, so nothing is revealed.
    for (const name of ["web", "api", "nope"]) {
      expect(decideAccess(access, { principal: anonymous, rule: tagCreate, params: repo(name) })).toMatchObject({
        allow: false,
        status: 401,
        message: "Requires authentication",
      });
    }
  });

  it("any authenticated caller reads a public resource, whatever its scopes, permissions or token type", () => {
    for (const name of ["classicNotifications", "classicRepo", "fineGrained", "installation"]) {
      expect(decideAccess(access, { principal: caller(name), rule: issueEventsRead, params: repo("web") })).toEqual({ allow: true });
    }
    expect(
      decideAccess(access, {
        principal: caller("classicRepo"),
        rule: { ...issueEventsRead, tokenTypes: ["fine_grained"] },
        params: repo("web"),
      }),
    ).toEqual({ allow: true });
  });

  it("private resources: scopes, visibility, then permissions", () => {
    expect(decideAccess(access, { principal: caller("classicNotifications"), rule: issueEventsRead, params: repo("api") })).toMatchObject({
      allow: false,
      status: 403,
      headers: { "x-accepted-oauth-scopes": "repo" },
    });
    expect(decideAccess(access, { principal: caller("classicRepo"), rule: issueEventsRead, params: repo("api") })).toEqual({ allow: true });
    expect(decideAccess(access, { principal: caller("fineGrained"), rule: issueEventsRead, params: repo("api") })).toEqual({ allow: true });
    // Not granted the repository: not found, like a missing one.
    expect(decideAccess(access, { principal: caller("fineGrainedWebOnly"), rule: issueEventsRead, params: repo("api") })).toEqual({
      allow: false,
      status: 404,
      message: "Not Found",
    });
    expect(decideAccess(access, { principal: caller("installation"), rule: issueEventsRead, params: repo("api") })).toEqual({
      allow: false,
      status: 403,
      message: "Resource not accessible by integration",
      docs: "/authentication/permissions",
      headers: { "x-accepted-service-permissions": "issues=read" },
    });
  });

  it("a refused token type is 403 with the service's text, before the resource is looked at", () => {
    expect(decideAccess(access, { principal: caller("classicRepo"), rule: tagCreate, params: repo("web") })).toMatchObject({
      allow: false,
      status: 403,
      message: "Resource not accessible by personal access token",
    });
    expect(decideAccess(access, { principal: caller("fineGrained"), rule: tagCreate, params: repo("web") })).toEqual({ allow: true });
    expect(decideAccess(access, { principal: caller("fineGrained"), rule: tagCreate, params: repo("nope") })).toMatchObject({
      allow: false,
      status: 404,
    });
  });

  it("organization routes: a missing organization is not found", () => {
    const orgRule: AccessRule = { anyOf: [[{ permission: "contents", access: "write" }]], tokenTypes: ["fine_grained"] };
    expect(decideAccess(access, { principal: caller("fineGrained"), rule: orgRule, params: { org: "acme" } })).toEqual({ allow: true });
    expect(decideAccess(access, { principal: caller("fineGrained"), rule: orgRule, params: { org: "initech" } })).toMatchObject({
      allow: false,
      status: 404,
    });
  });
});
