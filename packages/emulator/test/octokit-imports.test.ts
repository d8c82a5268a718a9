// The emulator's source imports (spec 4.4b) judged by @octokit/rest and the official OpenAPI
// (octokit-conformance-setup.ts): every behaviour as the service's, every body valid.
import { describe, expect, it } from "vitest";
import { behaviour, behaviours, bodies, client, emu, useConformanceEmulator } from "./octokit-conformance-setup.js";

useConformanceEmulator();

describe("@octokit/rest against the emulator", () => {
  it("source imports (4.4b)", async () => {
    const octokit = client(emu.tokens.classic!);
    const target = { owner: "acme", repo: "api" };
    await behaviour(
      "start import 201",
      () => octokit.request("PUT /repos/{owner}/{repo}/import", { ...target, vcs_url: "https://svn.example.com/api", vcs: "subversion" }),
      (o) => o.status === 201,
    );
    await behaviour(
      "import status, use_lfs as the samples show",
      () => octokit.request("GET /repos/{owner}/{repo}/import", target),
      (o) => o.status === 200 && typeof (o.data as { use_lfs: unknown }).use_lfs === "boolean",
    );
    await behaviour(
      "PATCH import with no body restarts (200)",
      () => octokit.request("PATCH /repos/{owner}/{repo}/import", target),
      (o) => o.status === 200,
    );
    emu.imports.runToCompletion("acme", "api");
    const authors = await behaviour(
      "commit authors",
      () => octokit.request("GET /repos/{owner}/{repo}/import/authors", target),
      (o) => o.status === 200,
    );
    const author = (authors.data as { id: number }[])[0];
    if (author)
      await behaviour(
        "map author",
        () => octokit.request("PATCH /repos/{owner}/{repo}/import/authors/{author_id}", { ...target, author_id: author.id, name: "Octo" }),
        (o) => o.status === 200,
      );
    await behaviour(
      "large files",
      () => octokit.request("GET /repos/{owner}/{repo}/import/large_files", target),
      (o) => o.status === 200,
    );
    await behaviour(
      "lfs preference",
      () => octokit.request("PATCH /repos/{owner}/{repo}/import/lfs", { ...target, use_lfs: "opt_in" }),
      (o) => o.status === 200,
    );
    await behaviour(
      "cancel import",
      () => octokit.request("DELETE /repos/{owner}/{repo}/import", target),
      (o) => o.status === 204,
    );
  });

  it("every behaviour agrees and every body validates", () => {
    expect(behaviours.filter((b) => !b.agrees)).toEqual([]);
    expect(bodies.filter((b) => b.errors.length > 0)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(6);
  });
});
