// The git routes over HTTP: statuses, validation, access rules, and the shapes the official schemas describe.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { validateResponse } from "../../../test/support/openapi-contract.js";
import { serviceCaller } from "../../../test/kit/service-call.js";

let emulator: Emulator;
let head: string;
beforeAll(async () => {
  emulator = await startEmulator();
  head = emulator.state.git.repository("acme", "web")!.head()!;
});
afterAll(() => emulator.stop());

const call = serviceCaller(() => emulator);

const tagBody = (tag: string, extra: Record<string, unknown> = {}) => ({
  tag,
  message: `release ${tag}`,
  object: head,
  type: "commit",
  tagger: { name: "Monalisa Octocat", email: "octocat@example.com", date: "2011-06-17T14:53:35-07:00" },
  ...extra,
});

describe("POST /repos/{owner}/{repo}/git/tags", () => {
  it("answers 201 with the tag object, an unsigned verification and a Location", async () => {
    const res = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("v0.0.1") });
    expect(res.status).toBe(201);
    expect(validateResponse("POST", "/repos/{owner}/{repo}/git/tags", 201, res.body)).toEqual([]);
    expect(res.body).toMatchObject({
      tag: "v0.0.1",
      // As stored: git's final newline, and the offset the date was given with (both are in the sha).
      message: "release v0.0.1\n",
      tagger: { name: "Monalisa Octocat", email: "octocat@example.com", date: "2011-06-17T14:53:35-07:00" },
      object: { type: "commit", sha: head, url: `${emulator.url}/repos/acme/web/git/commits/${head}` },
      verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
    });
    expect(res.body.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(res.headers.get("location")).toBe(`${emulator.url}/repos/acme/web/git/tags/${res.body.sha}`);
    expect(Buffer.from(res.body.node_id, "base64").toString()).toBe(`03:Tag${res.body.sha}`);
  });

  it("without a tagger, tags as the token's user at the emulator's time", async () => {
    emulator.clock.set("2026-03-10T08:00:00Z", { freeze: true });
    try {
      const res = await call("POST", "/repos/acme/web/git/tags", {
        body: { tag: "no-tagger", message: "m", object: head, type: "commit" },
      });
      expect(res.status).toBe(201);
      expect(res.body.tagger).toEqual({ name: "octo", email: "1001+octo@users.noreply.service.example", date: "2026-03-10T08:00:00Z" });
    } finally {
      emulator.clock.reset();
    }
  });

  it("answers 422 naming each missing or invalid field", async () => {
    const missing = await call("POST", "/repos/acme/web/git/tags", { body: { tag: "v9" } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["message", "object", "type"]);
    expect(missing.body.errors.find((e: { field: string }) => e.field === "object")).toMatchObject({ code: "missing_field" });
    const invalid = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("bad..name", { type: "branch", object: "xyz" }) });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["object", "tag", "type"]);
    expect(JSON.stringify(invalid.body.errors)).toContain("must not contain ..");
    const badDate = await call("POST", "/repos/acme/web/git/tags", {
      body: tagBody("v9", { tagger: { name: "a", email: "b", date: "yesterday" } }),
    });
    expect(badDate.body.errors).toEqual([expect.objectContaining({ field: "tagger.date", code: "invalid" })]);
  });

  it("answers 422 for an object the repository does not have, or of another type", async () => {
    const unknown = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("v9", { object: "0".repeat(40) }) });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ message: "Object does not exist", errors: [{ field: "object", code: "invalid" }] });
    // acme/api's head is not in acme/web.
    const elsewhere = await call("POST", "/repos/acme/web/git/tags", {
      body: tagBody("v9", { object: emulator.state.git.repository("acme", "api")!.head() }),
    });
    expect(elsewhere.status).toBe(422);
    const wrongType = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("v9", { type: "tree" }) });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0]).toMatchObject({ field: "type", message: `object ${head} is a commit, not a tree` });
  });

  it("answers 409 for an empty repository", async () => {
    const res = await call("POST", "/repos/acme/empty/git/tags", { body: tagBody("v1") });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Git Repository is empty.");
  });

  it("needs contents write: 403 names it, 404 for repositories the token cannot see, 401 anonymous", async () => {
    const readOnly = await call("POST", "/repos/acme/web/git/tags", { token: emulator.tokens.readOnly, body: tagBody("v9") });
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("x-accepted-service-permissions")).toBe("contents=write");
    const webOnly = await call("POST", "/repos/acme/api/git/tags", { token: emulator.tokens.webOnly, body: tagBody("v9") });
    expect(webOnly.status).toBe(404);
    const anonymous = await call("POST", "/repos/acme/web/git/tags", { token: null, body: tagBody("v9") });
    expect(anonymous.status).toBe(401);
    const classicNoRepo = await call("POST", "/repos/acme/web/git/tags", { token: emulator.tokens.classicHubot, body: tagBody("v9") });
    expect(classicNoRepo.status).toBe(403);
    for (const token of ["installation", "appUser", "admin"]) {
      const ok = await call("POST", "/repos/acme/web/git/tags", { token: emulator.tokens[token], body: tagBody(`by-${token}`) });
      expect(ok.status, token).toBe(201);
    }
    // 5.1: classic tokens are governed by their scopes (4.2's token types are the fine-grained kinds of 5.2).
    const classic = await call("POST", "/repos/acme/web/git/tags", { token: emulator.tokens.classic, body: tagBody("by-classic") });
    expect(classic.status).toBe(201);
    expect(classic.headers.get("x-oauth-scopes")).toBe("repo, notifications");
    expect(classic.headers.get("x-accepted-oauth-scopes")).toBe("repo");
    expect(classicNoRepo.headers.get("x-accepted-oauth-scopes")).toBe("repo");
  });
});

describe("GET /repos/{owner}/{repo}/git/tags/{tag_sha}", () => {
  it("answers 200 with the same tag object, 404 for an unknown sha, 409 for an empty repository", async () => {
    const created = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("get-me") });
    const read = await call("GET", `/repos/acme/web/git/tags/${created.body.sha}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(validateResponse("GET", "/repos/{owner}/{repo}/git/tags/{tag_sha}", 200, read.body)).toEqual([]);
    expect((await call("GET", `/repos/acme/web/git/tags/${"a".repeat(40)}`)).status).toBe(404);
    // A commit's sha is not a tag.
    expect((await call("GET", `/repos/acme/web/git/tags/${head}`)).status).toBe(404);
    expect((await call("GET", `/repos/acme/empty/git/tags/${"a".repeat(40)}`)).status).toBe(409);
  });

  it("reads a public repository's tag anonymously, but not a private one's", async () => {
    const created = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("public-read") });
    expect((await call("GET", `/repos/acme/web/git/tags/${created.body.sha}`, { token: null })).status).toBe(200);
    const apiHead = emulator.state.git.repository("acme", "api")!.head();
    const privateTag = await call("POST", "/repos/acme/api/git/tags", { body: tagBody("private", { object: apiHead }) });
    expect(privateTag.status).toBe(201);
    // Anonymous: a private repository is not found (its existence stays hidden), not 401.
    expect((await call("GET", `/repos/acme/api/git/tags/${privateTag.body.sha}`, { token: null })).status).toBe(404);
    expect((await call("GET", `/repos/acme/api/git/tags/${privateTag.body.sha}`, { token: emulator.tokens.readOnly })).status).toBe(200);
  });
});

describe("references", () => {
  it("POST git/refs answers 201; the ref reads back through GET git/ref/{ref} with the tag object's type", async () => {
    const tag = await call("POST", "/repos/acme/web/git/tags", { body: tagBody("ref-me") });
    const created = await call("POST", "/repos/acme/web/git/refs", { body: { ref: "refs/tags/ref-me", sha: tag.body.sha } });
    expect(created.status).toBe(201);
    expect(validateResponse("POST", "/repos/{owner}/{repo}/git/refs", 201, created.body)).toEqual([]);
    expect(created.body).toMatchObject({
      ref: "refs/tags/ref-me",
      url: `${emulator.url}/repos/acme/web/git/refs/tags/ref-me`,
      object: { type: "tag", sha: tag.body.sha, url: `${emulator.url}/repos/acme/web/git/tags/${tag.body.sha}` },
    });
    expect(created.headers.get("location")).toBe(created.body.url);
    const read = await call("GET", "/repos/acme/web/git/ref/tags/ref-me", { token: emulator.tokens.readOnly });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect((await call("GET", "/repos/acme/web/git/ref/heads/main")).body.object).toMatchObject({ type: "commit", sha: head });
    expect((await call("GET", "/repos/acme/web/git/ref/tags/nope")).status).toBe(404);
  });

  it("answers 422 when the reference exists, is malformed, or names an unknown object; 409 when empty", async () => {
    const exists = await call("POST", "/repos/acme/web/git/refs", { body: { ref: "refs/heads/main", sha: head } });
    expect(exists.status).toBe(422);
    expect(exists.body.message).toBe("Reference already exists");
    const malformed = await call("POST", "/repos/acme/web/git/refs", { body: { ref: "tags/v1", sha: head } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0]).toMatchObject({ field: "ref" });
    const lock = await call("POST", "/repos/acme/web/git/refs", { body: { ref: "refs/tags/x.lock", sha: head } });
    expect(lock.status).toBe(422);
    const unknown = await call("POST", "/repos/acme/web/git/refs", { body: { ref: "refs/tags/ghost", sha: "1".repeat(40) } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toBe("Object does not exist");
    expect((await call("POST", "/repos/acme/empty/git/refs", { body: { ref: "refs/tags/v1", sha: head } })).status).toBe(409);
    expect((await call("GET", "/repos/acme/empty/git/ref/tags/v1")).status).toBe(409);
  });

  it("creating a ref needs contents write", async () => {
    const res = await call("POST", "/repos/acme/web/git/refs", {
      token: emulator.tokens.readOnly,
      body: { ref: "refs/tags/ro", sha: head },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("x-accepted-service-permissions")).toBe("contents=write");
  });
});
