// The emulator's git tags and refs (spec 4.2) judged by @octokit/rest and the official OpenAPI
// (octokit-conformance-setup.ts): every behaviour as the service's, every body valid.
import { describe, expect, it } from "vitest";
import { behaviour, behaviours, bodies, client, emu, record, useConformanceEmulator } from "./octokit-conformance-setup.js";

useConformanceEmulator();

describe("@octokit/rest against the emulator", () => {
  it("git tags and refs (4.2)", async () => {
    const octokit = client(emu.tokens.admin!);
    const head = emu.state.git.repository("acme", "web")!.head()!;
    const tag = await behaviour(
      "createTag 201",
      () =>
        octokit.rest.git.createTag({
          owner: "acme",
          repo: "web",
          tag: "v1",
          message: "one",
          object: head,
          type: "commit",
          tagger: { name: "T", email: "t@e", date: "2024-02-01T10:00:00+02:00" },
        }),
      (o) => o.status === 201 && (o.data as { message: string }).message === "one\n",
    );
    const sha = (tag.data as { sha: string }).sha;
    await behaviour(
      "getTag 200",
      () => octokit.rest.git.getTag({ owner: "acme", repo: "web", tag_sha: sha }),
      (o) => o.status === 200,
    );
    await behaviour(
      "tag dated 1969 refused 422",
      () =>
        octokit.rest.git.createTag({
          owner: "acme",
          repo: "web",
          tag: "old",
          message: "m",
          object: head,
          type: "commit",
          tagger: { name: "T", email: "t@e", date: "1969-12-31T23:59:59Z" },
        }),
      (o) => o.status === 422,
    );
    await behaviour(
      "createRef 201",
      () => octokit.rest.git.createRef({ owner: "acme", repo: "web", ref: "refs/tags/v1", sha }),
      (o) => o.status === 201,
    );
    await behaviour(
      "getRef 200",
      () => octokit.rest.git.getRef({ owner: "acme", repo: "web", ref: "tags/v1" }),
      (o) => o.status === 200,
    );
    // ETags (production-facts.md: most endpoints return one): weak, and If-None-Match with it answers 304.
    const conditional: [string, (headers: Record<string, string>) => Promise<{ status: number; headers: { etag?: string } }>][] = [
      ["getRef", (headers) => octokit.rest.git.getRef({ owner: "acme", repo: "web", ref: "tags/v1", headers })],
      ["getTag", (headers) => octokit.rest.git.getTag({ owner: "acme", repo: "web", tag_sha: sha, headers })],
      ["listMatchingRefs", (headers) => octokit.rest.git.listMatchingRefs({ owner: "acme", repo: "web", ref: "tags/", headers })],
    ];
    for (const [name, call] of conditional) {
      const etag = (await call({})).headers.etag;
      record(`${name} sends a weak ETag`, /^W\/"[^"]+"$/.test(etag ?? ""), String(etag));
      await behaviour(
        `${name} with If-None-Match gives 304`,
        () => call({ "if-none-match": etag ?? "" }),
        (o) => o.status === 304,
      );
    }
    const classic = client(emu.tokens.classic!);
    await behaviour(
      "classic token with repo may create a tag",
      () => classic.rest.git.createTag({ owner: "acme", repo: "web", tag: "v2", message: "m", object: head, type: "commit" }),
      (o) => o.status === 201,
    );
  });

  it("every behaviour agrees and every body validates", () => {
    expect(behaviours.filter((b) => !b.agrees)).toEqual([]);
    expect(bodies.filter((b) => b.errors.length > 0)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(5);
  });
});
