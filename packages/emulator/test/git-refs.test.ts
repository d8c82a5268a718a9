// Listing, moving and deleting references over HTTP: the statuses, bodies and access rules the official
// description (git/list-matching-refs, git/update-ref, git/delete-ref) and spec 5.3 give them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { validateResponse } from "../../../test/support/openapi-contract.js";
import { serviceCaller } from "../../../test/kit/service-call.js";

let emulator: Emulator;
let commits: string[];
beforeAll(async () => {
  emulator = await startEmulator();
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
  for (const [ref, sha] of [
    ["refs/tags/v1", commits[0]],
    ["refs/tags/v1.4", commits[1]],
    ["refs/tags/v10", commits[2]],
    ["refs/heads/feature", commits[0]],
  ] as const) {
    emulator.state.git.repository("acme", "web")!.createRef(ref, sha!);
  }
});
afterAll(() => emulator.stop());

const call = serviceCaller(() => emulator);

const MATCHING = "/repos/{owner}/{repo}/git/matching-refs/{ref}";
const REF = "/repos/{owner}/{repo}/git/refs/{ref}";

describe("GET git/matching-refs/{ref}", () => {
  it("lists references by prefix, sorted, in the official shape", async () => {
    const res = await call("GET", "/repos/acme/web/git/matching-refs/tags/v1");
    expect(res.status).toBe(200);
    expect(validateResponse("GET", MATCHING, 200, res.body)).toEqual([]);
    expect(res.body.map((r: { ref: string }) => r.ref)).toEqual(["refs/tags/v1", "refs/tags/v1.4", "refs/tags/v10"]);
    expect(res.body[0]).toMatchObject({
      object: { type: "commit", sha: commits[0], url: `${emulator.url}/repos/acme/web/git/commits/${commits[0]}` },
    });
  });

  it("answers an empty array when nothing matches, every branch for `heads`, 409 for an empty repository", async () => {
    expect((await call("GET", "/repos/acme/web/git/matching-refs/tags/nope")).body).toEqual([]);
    const heads = await call("GET", "/repos/acme/web/git/matching-refs/heads");
    expect(heads.body.map((r: { ref: string }) => r.ref)).toEqual(["refs/heads/feature", "refs/heads/main"]);
    expect((await call("GET", "/repos/acme/empty/git/matching-refs/tags")).status).toBe(409);
  });

  it("needs contents read; a public repository's references are readable anonymously, a private one's are not", async () => {
    expect((await call("GET", "/repos/acme/api/git/matching-refs/heads", { token: emulator.tokens.readOnly })).status).toBe(200);
    expect((await call("GET", "/repos/acme/web/git/matching-refs/tags", { token: null })).status).toBe(200);
    expect((await call("GET", "/repos/acme/api/git/matching-refs/heads", { token: null })).status).toBe(404);
    expect((await call("GET", "/repos/acme/api/git/matching-refs/heads", { token: emulator.tokens.webOnly })).status).toBe(404);
  });
});

describe("PATCH git/refs/{ref}", () => {
  it("fast-forwards without force and answers the moved reference in the official shape", async () => {
    const res = await call("PATCH", "/repos/acme/web/git/refs/heads/feature", { body: { sha: commits[2] } });
    expect(res.status).toBe(200);
    expect(validateResponse("PATCH", REF, 200, res.body)).toEqual([]);
    expect(res.body).toMatchObject({ ref: "refs/heads/feature", object: { type: "commit", sha: commits[2] } });
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/heads/feature")).toBe(commits[2]);
  });

  it("refuses a move that is not a fast-forward unless force is true", async () => {
    const refused = await call("PATCH", "/repos/acme/web/git/refs/tags/v10", { body: { sha: commits[0] } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe("Update is not a fast forward");
    expect(validateResponse("PATCH", REF, 422, refused.body)).toEqual([]);
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/tags/v10")).toBe(commits[2]);
    const forced = await call("PATCH", "/repos/acme/web/git/refs/tags/v10", { body: { sha: commits[0], force: true } });
    expect(forced.status).toBe(200);
    expect(forced.body.object.sha).toBe(commits[0]);
  });

  it("a tag object is never a fast-forward: moving a tag to a new tag object needs force", async () => {
    const tag = await call("POST", "/repos/acme/web/git/tags", { body: { tag: "v1", message: "v1", object: commits[2], type: "commit" } });
    expect((await call("PATCH", "/repos/acme/web/git/refs/tags/v1", { body: { sha: tag.body.sha } })).status).toBe(422);
    const forced = await call("PATCH", "/repos/acme/web/git/refs/tags/v1", { body: { sha: tag.body.sha, force: true } });
    expect(forced.body.object).toMatchObject({ type: "tag", sha: tag.body.sha });
  });

  it("answers 422 for a missing reference, an unknown object or a bad body; 409 for an empty repository", async () => {
    const missing = await call("PATCH", "/repos/acme/web/git/refs/tags/nope", { body: { sha: commits[0], force: true } });
    expect([missing.status, missing.body.message]).toEqual([422, "Reference does not exist"]);
    const unknown = await call("PATCH", "/repos/acme/web/git/refs/tags/v1.4", { body: { sha: "a".repeat(40), force: true } });
    expect([unknown.status, unknown.body.message]).toEqual([422, "Object does not exist"]);
    const bad = await call("PATCH", "/repos/acme/web/git/refs/tags/v1.4", { body: { force: "yes" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["force", "sha"]);
    expect((await call("PATCH", "/repos/acme/empty/git/refs/tags/v1", { body: { sha: commits[0] } })).status).toBe(409);
  });

  it("needs contents write: 403 naming it for a read-only token, 401 anonymous", async () => {
    const readOnly = await call("PATCH", "/repos/acme/web/git/refs/tags/v1.4", {
      token: emulator.tokens.readOnly,
      body: { sha: commits[1] },
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("x-accepted-service-permissions")).toContain("contents=write");
    expect((await call("PATCH", "/repos/acme/web/git/refs/tags/v1.4", { token: null, body: { sha: commits[1] } })).status).toBe(401);
    for (const token of ["installation", "appUser", "webOnly"]) {
      expect(
        (await call("PATCH", "/repos/acme/web/git/refs/tags/v1.4", { token: emulator.tokens[token], body: { sha: commits[1] } })).status,
        token,
      ).toBe(200);
    }
  });
});

describe("DELETE git/refs/{ref}", () => {
  it("answers 204 and the reference is gone; a second delete answers 422", async () => {
    emulator.state.git.repository("acme", "web")!.createRef("refs/tags/doomed", commits[0]!);
    const res = await call("DELETE", "/repos/acme/web/git/refs/tags/doomed");
    expect(res.status).toBe(204);
    expect((await call("GET", "/repos/acme/web/git/ref/tags/doomed")).status).toBe(404);
    const again = await call("DELETE", "/repos/acme/web/git/refs/tags/doomed");
    expect([again.status, again.body.message]).toEqual([422, "Reference does not exist"]);
  });

  it("refuses to delete the default branch (422) and answers 409 for an empty repository", async () => {
    expect((await call("DELETE", "/repos/acme/web/git/refs/heads/main")).status).toBe(422);
    expect((await call("DELETE", "/repos/acme/empty/git/refs/tags/v1")).status).toBe(409);
  });

  it("needs contents write", async () => {
    emulator.state.git.repository("acme", "web")!.createRef("refs/tags/kept", commits[0]!);
    const res = await call("DELETE", "/repos/acme/web/git/refs/tags/kept", { token: emulator.tokens.readOnly });
    expect(res.status).toBe(403);
    expect(res.headers.get("x-accepted-service-permissions")).toContain("contents=write");
    expect(emulator.state.git.repository("acme", "web")!.ref("refs/tags/kept")).toBe(commits[0]);
  });
});
