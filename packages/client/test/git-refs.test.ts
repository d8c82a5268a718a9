// Moving, listing and deleting references with the client against the emulator, and moving tags
// with createAnnotatedTag's `if_exists: "update"`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ForbiddenError, RequestValidationError, ServiceValidationError, ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

let emulator: Emulator;
let client: ShiplogClient;
let commits: string[];
beforeAll(async () => {
  emulator = await startEmulator();
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
  commits = emulator.state.git
    .repository("acme", "web")!
    .commits()
    .map((c) => c.sha);
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.requests.clear());

const repo = { owner: "acme", repo: "web" };
const sent = () => emulator.requests.list().map((r) => `${r.method} ${r.route}`);

describe("references", () => {
  it("lists by prefix, moves with and without force, deletes", async () => {
    await client.git.createRef({ ...repo, ref: "refs/heads/topic/a", sha: commits[0]! });
    await client.git.createRef({ ...repo, ref: "refs/heads/topic/b", sha: commits[2]! });
    const listed = await client.git.listMatchingRefs({ ...repo, ref: "heads/topic" });
    expect(listed.map((r) => r.ref)).toEqual(["refs/heads/topic/a", "refs/heads/topic/b"]);

    const forward = await client.git.updateRef({ ...repo, ref: "heads/topic/a", sha: commits[1]! });
    expect(forward.object.sha).toBe(commits[1]);
    const refused = await client.git.updateRef({ ...repo, ref: "heads/topic/b", sha: commits[0]! }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceValidationError);
    expect((refused as ServiceValidationError).status).toBe(422);
    expect((refused as Error).message).toContain("Update is not a fast forward");
    const forced = await client.git.updateRef({ ...repo, ref: "heads/topic/b", sha: commits[0]!, force: true });
    expect(forced.object.sha).toBe(commits[0]);

    await client.git.deleteRef({ ...repo, ref: "heads/topic/a" });
    expect(await client.git.findRef({ ...repo, ref: "heads/topic/a" })).toBeUndefined();
    await expect(client.git.deleteRef({ ...repo, ref: "heads/topic/a" })).rejects.toBeInstanceOf(ServiceValidationError);
  });

  it("refuses bad parameters before sending, naming the field", async () => {
    await expect(client.git.updateRef({ ...repo, ref: "refs/tags/v1", sha: commits[0]! })).rejects.toThrow(/ref/);
    await expect(client.git.updateRef({ ...repo, ref: "tags/v1", sha: "abc" })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client.git.listMatchingRefs({ ...repo, ref: "refs/tags" })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client.git.deleteRef({ ...repo, ref: "tags/bad..name" })).rejects.toBeInstanceOf(RequestValidationError);
    expect(sent()).toEqual([]);
  });

  it("a read-only token gets a ForbiddenError naming contents write", async () => {
    const readOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly, retry: false });
    const error = await readOnly.git.deleteRef({ ...repo, ref: "heads/topic/b" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as Error).message).toMatch(/contents.*write|write.*contents/);
  });
});

describe("createAnnotatedTag with if_exists update", () => {
  const tag = (name: string, object: string, message = `Release ${name}`) => ({
    ...repo,
    tag: name,
    message,
    object,
    type: "commit" as const,
    if_exists: "update" as const,
  });

  it("creates, skips the same tag, and moves a tag that differs: new tag object, then the ref forced", async () => {
    expect((await client.git.createAnnotatedTag(tag("v2", commits[0]!))).outcome).toBe("created");
    emulator.requests.clear();
    expect((await client.git.createAnnotatedTag(tag("v2", commits[0]!))).outcome).toBe("skipped");
    expect(sent().filter((s) => !s.startsWith("GET"))).toEqual([]);

    const moved = await client.git.createAnnotatedTag(tag("v2", commits[2]!));
    expect(moved.outcome).toBe("updated");
    expect(moved.ref).toMatchObject({ ref: "refs/tags/v2", object: { type: "tag", sha: moved.tag.sha } });
    expect(moved.tag.object.sha).toBe(commits[2]);
    expect(sent().filter((s) => !s.startsWith("GET"))).toEqual([
      "POST /repos/:owner/:repo/git/tags",
      "PATCH /repos/:owner/:repo/git/refs/*",
    ]);
  });

  it("turns a lightweight tag into an annotated one", async () => {
    await client.git.createRef({ ...repo, ref: "refs/tags/light", sha: commits[1]! });
    const result = await client.git.createAnnotatedTag(tag("light", commits[1]!));
    expect(result.outcome).toBe("updated");
    expect(result.ref.object.type).toBe("tag");
  });
});
