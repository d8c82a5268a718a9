// The git API of the client against the emulator: annotated tags made in two steps, idempotence, conflicts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ForbiddenError,
  RequestValidationError,
  ServiceValidationError,
  ShiplogClient,
  TagExistsError,
  VERIFICATION_REASONS,
} from "@shiplog/client";
import type { VerificationReason } from "../src/model/git.js";
import { verificationReason } from "../src/schemas/git.js";
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

const release = (tag: string, extra: Record<string, unknown> = {}) => ({
  owner: "acme",
  repo: "web",
  tag,
  message: `Release ${tag}`,
  object: commits.at(-1)!,
  type: "commit" as const,
  tagger: { name: "Release Bot", email: "bot@example.com", date: "2026-03-10T12:00:00+01:00" },
  ...extra,
});

const posts = () =>
  emulator.requests
    .list()
    .filter((r) => r.method === "POST")
    .map((r) => r.route);

describe("createAnnotatedTag", () => {
  it("creates the tag object, then refs/tags/<tag> pointing at the tag object (not the commit)", async () => {
    const result = await client.git.createAnnotatedTag(release("v1.0.0"));
    expect(result.outcome).toBe("created");
    expect(result.ref).toMatchObject({ ref: "refs/tags/v1.0.0", object: { type: "tag", sha: result.tag.sha } });
    expect(result.tag.object).toMatchObject({ type: "commit", sha: commits.at(-1) });
    expect(posts()).toEqual(["/repos/:owner/:repo/git/tags", "/repos/:owner/:repo/git/refs"]);
    const repo = emulator.state.git.repository("acme", "web")!;
    expect(repo.ref("refs/tags/v1.0.0")).toBe(result.tag.sha);
    expect(repo.object(result.tag.sha)?.type).toBe("tag");
  });

  it("asking again for the same object, type and message is skipped and sends nothing", async () => {
    const first = await client.git.createAnnotatedTag(release("v1.1.0"));
    emulator.requests.clear();
    // A later run: another tagger date, and the message with git's trailing newline.
    const again = await client.git.createAnnotatedTag(release("v1.1.0", { message: "Release v1.1.0\n", tagger: undefined }));
    expect(again.outcome).toBe("skipped");
    expect(again.tag.sha).toBe(first.tag.sha);
    expect(posts()).toEqual([]);
  });

  it("a tag that points elsewhere fails with an error saying where it points", async () => {
    const first = await client.git.createAnnotatedTag(release("v1.2.0"));
    const other = commits[0]!;
    const error = await client.git.createAnnotatedTag(release("v1.2.0", { object: other })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TagExistsError);
    const tagError = error as TagExistsError;
    expect(tagError.code).toBe("tag_exists");
    expect(tagError.sameTarget).toBe(false);
    expect(tagError.message).toContain(`refs/tags/v1.2.0 in acme/web already exists and points at tag object ${first.tag.sha}`);
    expect(tagError.message).toContain(`it tags commit ${commits.at(-1)}, not commit ${other}`);
    expect(tagError.existing).toMatchObject({ refTargetType: "tag", object: { sha: commits.at(-1) } });

    const message = await client.git.createAnnotatedTag(release("v1.2.0", { message: "something else" })).catch((e: unknown) => e);
    expect((message as TagExistsError).message).toContain(`its message is "Release v1.2.0", not "something else"`);
  });

  it("an existing lightweight tag is reported as such", async () => {
    await client.git.createRef({ owner: "acme", repo: "web", ref: "refs/tags/light", sha: commits[1]! });
    const error = (await client.git.createAnnotatedTag(release("light")).catch((e: unknown) => e)) as TagExistsError;
    expect(error).toBeInstanceOf(TagExistsError);
    expect(error.message).toContain(`refs/tags/light in acme/web already exists as a lightweight tag pointing at commit ${commits[1]}`);
  });

  it("if_exists fail refuses even the same tag, saying it matches", async () => {
    await client.git.createAnnotatedTag(release("v1.3.0"));
    const error = (await client.git
      .createAnnotatedTag({ ...release("v1.3.0"), if_exists: "fail" })
      .catch((e: unknown) => e)) as TagExistsError;
    expect(error).toBeInstanceOf(TagExistsError);
    expect(error.sameTarget).toBe(true);
    expect(error.message).toMatch(/same message\); if_exists is "fail"/);
  });

  it("bad input is refused before anything is sent, naming the field and rule", async () => {
    const error = (await client.git
      .createAnnotatedTag(release("bad name", { object: "HEAD", tagger: { name: "a <b>", email: "e" } }))
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.issues.map((i) => [i.field, i.rule])).toEqual([
      ["tag", "git check-ref-format"],
      ["object", "pattern /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/"],
      ["tagger.name", "pattern /^[^<>\\n\\r\\0]*$/"],
    ]);
    expect(emulator.requests.list()).toEqual([]);
  });

  it("a tag of a tag object (type tag) is refused before sending, as the service's request schema refuses it", async () => {
    const tagged = await client.git.createAnnotatedTag(release("v7.0.0"));
    emulator.requests.clear();
    const { owner, repo, ...body } = { ...release("v7.0.0-of-a-tag"), object: tagged.tag.sha, type: "tag" };
    // @ts-expect-error -- `tag` is not a type a new tag object may tag
    const error = (await client.git.createTag({ owner, repo, ...body }).catch((e: unknown) => e)) as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.issues.map((i) => [i.field, i.rule])).toEqual([["type", "one of commit, tree, blob"]]);
    expect(emulator.requests.list()).toEqual([]);
    // The emulator judges by the official request schema: sent anyway, the body is refused.
    const sent = await client
      .request({ method: "POST", route: "/repos/{owner}/{repo}/git/tags", params: { owner, repo }, body })
      .catch((e: unknown) => e);
    expect(sent).toBeInstanceOf(ServiceValidationError);
  });

  it("a token without contents write gets a ForbiddenError naming the permission", async () => {
    const readOnly = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly, retry: false });
    const error = await readOnly.git.createAnnotatedTag(release("v9.9.9")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).message).toContain("contents (write)");
  });
});

describe("getRef, findRef and getTag", () => {
  it("reads references whose names contain slashes", async () => {
    const made = await client.git.createAnnotatedTag(release("release/2026.03"));
    const ref = await client.git.getRef({ owner: "acme", repo: "web", ref: "tags/release/2026.03" });
    expect(ref.object.sha).toBe(made.tag.sha);
    expect(await client.git.findRef({ owner: "acme", repo: "web", ref: "tags/none" })).toBeUndefined();
    const tag = await client.git.getTag({ owner: "acme", repo: "web", tag_sha: made.tag.sha });
    expect(tag.verification?.reason).toBe("unsigned");
  });
});

describe("schemas", () => {
  it("verification reason takes every value of spec 2.4, the unknown_signature_ family, and passes a newer service's values through", () => {
    for (const reason of VERIFICATION_REASONS) expect(verificationReason.safeParse(reason).success, reason).toBe(true);
    expect(VERIFICATION_REASONS).toHaveLength(13);
    const ssh: VerificationReason = "unknown_signature_ssh";
    expect(verificationReason.safeParse(ssh).success).toBe(true);
    // An enumeration the service may extend: a value added later is kept as received, not refused.
    expect(verificationReason.parse("revoked_key")).toBe("revoked_key");
    expect(verificationReason.safeParse(42).success).toBe(false);
  });
});
