import { describe, expect, it } from "vitest";
import { RequestValidationError, type DeclaredToken } from "@shiplog/client";
import { checkTokenGrants, describeRequirements, requiredPermissions, type PermissionResolution } from "@shiplog/client/permissions";

function resolve(method: string, path: string): PermissionResolution {
  const answer = requiredPermissions(method, path);
  if (!answer.covered) throw new Error(answer.message);
  return answer;
}

const DIGEST = `sha256:${"c".repeat(64)}`;

describe("checkTokenGrants: fine-grained and app tokens", () => {
  it("passes a token holding the permission at the level, and write covers read", () => {
    const create = resolve("POST", "/repos/acme/web/git/tags");
    expect(checkTokenGrants(create, { type: "fine_grained", permissions: { contents: "write" } })).toMatchObject({ ok: true });
    const get = resolve("GET", "/repos/acme/web/git/tags/abc");
    expect(checkTokenGrants(get, { type: "app_installation", permissions: { contents: "write" } })).toMatchObject({ ok: true });
  });

  it("names the missing permission and level, and what the token has", () => {
    const result = checkTokenGrants(resolve("POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/prod"), {
      type: "app_installation",
      permissions: { artifact_metadata: "read", contents: "write" },
    });
    expect(result).toMatchObject({
      ok: false,
      combine: "allOf",
      missing: [
        {
          kind: "permission",
          permission: "artifact_metadata",
          title: "Artifact metadata",
          scope: "repository",
          access: "write",
          granted: "read",
        },
      ],
    });
    if (!result.ok) {
      expect(result.message).toBe(
        "POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster} needs Artifact metadata (repository) write (the token has read)",
      );
    }
  });

  it("asks Contents read of fine-grained tokens on the storage-record listing, not of app tokens", () => {
    const listing = resolve("GET", `/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`);
    const grants = { artifact_metadata: "read" } as const;
    const fineGrained = checkTokenGrants(listing, { type: "fine_grained", permissions: grants });
    expect(fineGrained).toMatchObject({ ok: false, missing: [{ permission: "contents", access: "read", granted: null }] });
    expect(checkTokenGrants(listing, { type: "fine_grained", permissions: { ...grants, contents: "read" } })).toMatchObject({ ok: true });
    expect(checkTokenGrants(listing, { type: "app_installation", permissions: grants })).toMatchObject({ ok: true });
    expect(checkTokenGrants(listing, { type: "app_user", permissions: grants })).toMatchObject({ ok: true });
  });

  it("accepts either Issues read or Pull requests read on the single issue event (anyOf)", () => {
    const event = resolve("GET", "/repos/acme/web/issues/events/5");
    expect(checkTokenGrants(event, { type: "fine_grained", permissions: { pull_requests: "read" } })).toMatchObject({ ok: true });
    expect(checkTokenGrants(event, { type: "fine_grained", permissions: { issues: "write" } })).toMatchObject({ ok: true });
    const none = checkTokenGrants(event, { type: "fine_grained", permissions: { contents: "read" } });
    expect(none).toMatchObject({ ok: false, combine: "anyOf", missing: [{ permission: "issues" }, { permission: "pull_requests" }] });
    if (!none.ok) expect(none.message).toContain("any one of Issues (repository) read or Pull requests (repository) read");
  });

  it("asks Issues read on the repository issue event list (Pull requests read alone is not enough)", () => {
    const list = resolve("GET", "/repos/acme/web/issues/events");
    expect(checkTokenGrants(list, { type: "fine_grained", permissions: { pull_requests: "read" } })).toMatchObject({
      ok: false,
      missing: [{ permission: "issues", access: "read" }],
    });
  });

  it("lets an unspecified multi combination through on one held permission, noting the others", () => {
    const generate = resolve("POST", "/repos/acme/template/generate");
    expect(generate.combine).toBe("unspecified");
    const one = checkTokenGrants(generate, { type: "app_user", permissions: { administration: "write" } });
    expect(one.ok).toBe(true);
    expect(one.notes.join(" ")).toContain("may also require Contents (repository) read");
    expect(checkTokenGrants(generate, { type: "app_user", permissions: {} })).toMatchObject({ ok: false, combine: "anyOf" });
  });

  it("refuses a token type the endpoint does not accept", () => {
    const uatOnly = resolve("PATCH", "/user/memberships/orgs/acme");
    expect(checkTokenGrants(uatOnly, { type: "app_installation", permissions: { members: "write" } })).toMatchObject({
      ok: false,
      missing: [{ kind: "token_type", tokenType: "app_installation" }],
    });
    expect(
      checkTokenGrants(resolve("GET", "/users/octo/events/orgs/acme"), {
        type: "app_installation",
        permissions: { organization_events: "read" },
      }),
    ).toMatchObject({ ok: false, missing: [{ kind: "token_type" }] });
  });

  it("needs no permission on the activity feeds", () => {
    expect(checkTokenGrants(resolve("GET", "/events"), { type: "fine_grained", permissions: {} })).toEqual({ ok: true, notes: [] });
  });

  it("does not check permissions that were not declared, and says so", () => {
    const result = checkTokenGrants(resolve("POST", "/repos/acme/web/git/tags"), { type: "fine_grained" });
    expect(result.ok).toBe(true);
    expect(result.notes.join(" ")).toContain("not declared");
  });
});

describe("checkTokenGrants: classic tokens (5.1)", () => {
  const notifications = () => resolve("GET", "/notifications");

  it("accepts the scope notifications or repo on notifications", () => {
    expect(checkTokenGrants(notifications(), { type: "classic", scopes: ["notifications"] })).toMatchObject({ ok: true });
    expect(checkTokenGrants(notifications(), { type: "classic", scopes: ["repo", "gist"] })).toMatchObject({ ok: true });
    const result = checkTokenGrants(notifications(), { type: "classic", scopes: ["gist"] });
    expect(result).toMatchObject({ ok: false, missing: [{ kind: "scope", anyOf: ["notifications", "repo"] }] });
    if (!result.ok) expect(result.message).toBe("GET /notifications needs the scope notifications or repo");
  });

  it("refuses every other token type on notifications and source imports", () => {
    for (const type of ["fine_grained", "app_user", "app_installation"] as const) {
      const token: DeclaredToken = { type, permissions: { contents: "write" } };
      const result = checkTokenGrants(resolve("PUT", "/repos/acme/web/import"), token);
      expect(result).toMatchObject({ ok: false, missing: [{ kind: "token_type", tokenType: type, accepted: ["classic"] }] });
      if (!result.ok) expect(result.message).toContain("needs a personal access token (classic)");
      expect(checkTokenGrants(notifications(), token).ok).toBe(false);
    }
    expect(checkTokenGrants(resolve("PUT", "/repos/acme/web/import"), { type: "classic", scopes: ["repo"] }).ok).toBe(true);
  });
});

describe("checkTokenGrants input", () => {
  it("rejects a malformed declaration, naming the field and the rule", () => {
    const tags = resolve("POST", "/repos/acme/web/git/tags");
    let error: unknown;
    try {
      checkTokenGrants(tags, { type: "fine_grained", permissions: { contents: "admin" } } as unknown as DeclaredToken);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).code).toBe("invalid_request");
    expect((error as RequestValidationError).issues[0]).toMatchObject({ field: "permissions.contents", rule: "one of read, write" });
  });
});

describe("describeRequirements", () => {
  it("joins by how the requirements combine", () => {
    expect(describeRequirements(resolve("GET", "/repos/acme/web/issues/4/events"))).toBe(
      "any one of: Issues (repository) read, Pull requests (repository) read",
    );
    expect(describeRequirements(resolve("GET", `/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`))).toBe(
      "Artifact metadata (repository) read and Contents (repository) read for fine-grained tokens",
    );
    expect(describeRequirements(resolve("GET", "/events"))).toBe("no fine-grained permission");
  });
});
