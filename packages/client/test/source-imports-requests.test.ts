// Source imports (retired) through the client against the emulator: bad input refused before sending, the service's
// 422 and 503, commit authors, LFS and large files.
import { describe, expect, it } from "vitest";
import {
  NotFoundError,
  RequestValidationError,
  ServiceValidationError,
  ShiplogClient,
  UnavailableError,
  type SourceImport,
} from "@shiplog/client";
import { SVN_URL, client, emulator, target, useImportEmulator } from "./source-imports-setup.js";
import { BEFORE_CUTOFF, reach, step } from "./source-imports-reach.js";

// The deprecation warning is tested in a child process (source-imports-warning.integration.test.ts); here it would only add noise.
process.noDeprecation = true;

useImportEmulator(BEFORE_CUTOFF);

describe("bad input, 422 and 503", () => {
  it("is refused before sending, naming the field and rule; the password never appears", async () => {
    emulator.requests.clear();
    const cases: [() => Promise<unknown>, string, string][] = [
      [() => client.imports.startImport({ ...target, vcs_url: "not a url" }), "vcs_url", "format uri"],
      [
        () => client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs: "cvs" as "git" }),
        "vcs",
        "one of subversion, git, mercurial, tfvc",
      ],
      [
        () => client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs_password: "hunter2-secret" }),
        "vcs_username",
        "vcs_username and vcs_password go together",
      ],
      [() => client.imports.mapCommitAuthor({ ...target, author_id: 0, name: "x" }), "author_id", "minimum 1"],
      [() => client.imports.mapCommitAuthor({ ...target, author_id: 3 }), "(body)", "minProperties 1"],
      [() => client.imports.setLfsPreference({ ...target, use_lfs: "undecided" as "opt_in" }), "use_lfs", "one of opt_in, opt_out"],
      [() => client.imports.getCommitAuthors({ ...target, since: -1 }), "since", "minimum 0"],
    ];
    for (const [call, field, rule] of cases) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues).toContainEqual(expect.objectContaining({ field, rule }));
      expect(JSON.stringify(error) + String(error)).not.toContain("hunter2-secret");
    }
    expect(emulator.requests.list()).toHaveLength(0);
  });

  it("PUT into a repository with Actions enabled answers 422", async () => {
    const error = await client.imports.startImport({ owner: "acme", repo: "infra", vcs_url: SVN_URL }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect((error as ServiceValidationError).status).toBe(422);
    expect((error as Error).message).toContain("Actions enabled");
  });

  it("PUT while an import exists answers 422; GET without one answers 404", async () => {
    await expect(client.imports.getImportStatus(target)).rejects.toBeInstanceOf(NotFoundError);
    await reach("detecting");
    await expect(client.imports.startImport({ ...target, vcs_url: SVN_URL })).rejects.toBeInstanceOf(ServiceValidationError);
  });

  it("maintenance mode answers 503 on every endpoint, and the client retries before giving up", async () => {
    await reach("complete");
    emulator.imports.setMaintenance(true);
    const retrying = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.classic,
      retry: { retries: 2, minDelayMs: 1, maxDelayMs: 2 },
    });
    emulator.requests.clear();
    await expect(retrying.imports.getImportStatus(target)).rejects.toBeInstanceOf(UnavailableError);
    expect(emulator.requests.list().map((r) => r.status)).toEqual([503, 503, 503]);
    await expect(client.imports.setLfsPreference({ ...target, use_lfs: "opt_in" })).rejects.toMatchObject({ status: 503 });
    emulator.imports.setMaintenance(false);
    await expect(client.imports.getImportStatus(target)).resolves.toMatchObject({ status: "complete" });
  });
});

describe("authors, LFS and large files", () => {
  it("lists authors (with since), maps one, and the mapping survives a restart", async () => {
    await reach("mapping");
    const authors = await client.imports.getCommitAuthors(target);
    expect(authors).toHaveLength(2);
    const [first, second] = authors as [(typeof authors)[0], (typeof authors)[0]];
    expect(await client.imports.getCommitAuthors({ ...target, since: first.id })).toEqual([second]);
    const mapped = await client.imports.mapCommitAuthor({ ...target, author_id: first.id, name: "Alice Doe", email: "alice@example.com" });
    expect(mapped).toMatchObject({ id: first.id, name: "Alice Doe", email: "alice@example.com", remote_name: first.remote_name });
    await client.imports.updateImport(target);
    emulator.imports.runToCompletion(target.owner, target.repo);
    expect((await client.imports.getCommitAuthors(target))[0]).toMatchObject({ id: first.id, name: "Alice Doe" });
    await expect(client.imports.mapCommitAuthor({ ...target, author_id: 999_999_999, name: "x" })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("files over 100MB set has_large_files; use_lfs is a boolean as the service's samples show (true until an opt-out)", async () => {
    const MB = 1024 * 1024;
    emulator.imports.defineSource(SVN_URL, {
      files: [
        { path: "assets/video.mp4", size: 150 * MB },
        { path: "assets/exactly-100mb.bin", size: 100 * MB },
        { path: "src/main.c", size: 20_000 },
      ],
    });
    await reach("importing");
    expect((await client.imports.getImportStatus(target)).has_large_files).toBe(false);
    step();
    const found: SourceImport = await client.imports.getImportStatus(target);
    expect(found).toMatchObject({ has_large_files: true, large_files_count: 1, large_files_size: 1, use_lfs: true });
    const files = await client.imports.getLargeFiles(target);
    expect(files).toEqual([expect.objectContaining({ path: "assets/video.mp4", size: 150 * MB, ref_name: "refs/heads/main" })]);
    expect(files[0]!.oid).toMatch(/^[0-9a-f]{32}$/);
    expect((await client.imports.setLfsPreference({ ...target, use_lfs: "opt_in" })).use_lfs).toBe(true);
    expect((await client.imports.setLfsPreference({ ...target, use_lfs: "opt_out" })).use_lfs).toBe(false);
  });
});
