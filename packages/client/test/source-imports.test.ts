// Source imports (retired) through the client against the emulator: every row of the state table of spec 3.1,
// the retirement switch on both sides of 2024-04-12, token rules, authors, LFS and large files, 422 and 503.
import { describe, expect, it } from "vitest";
import {
  ForbiddenError,
  NotFoundError,
  RequestValidationError,
  RetiredEndpointError,
  ServiceValidationError,
  ShiplogClient,
  TokenTypeRefusedError,
  UnavailableError,
  type SourceImport,
} from "@shiplog/client";
import type { SimulatedStatus } from "@shiplog/emulator";
import { SVN_URL, client, emulator, target, useImportEmulator } from "./source-imports-setup.js";

// The deprecation warning is tested in a child process (source-imports-warning.test.ts); here it would only add noise.
process.noDeprecation = true;

const BEFORE_CUTOFF = "2024-04-11T23:59:59Z";
const AT_CUTOFF = "2024-04-12T00:00:00Z";
useImportEmulator(BEFORE_CUTOFF);

const status = async () => (await client.imports.getImportStatus(target)).status;
const step = () => emulator.imports.step(target.owner, target.repo);

/** Brings the import of acme/api into a working or complete state through the client and the importer. */
async function reach(state: "detecting" | "importing" | "mapping" | "pushing" | "complete"): Promise<void> {
  if (state === "detecting") {
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    return;
  }
  await client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs: "subversion" });
  const stepsFromImporting = { importing: 0, mapping: 3, pushing: 4, complete: 7 }[state];
  for (let i = 0; i < stepsFromImporting; i++) step();
  expect(await status()).toBe(state);
}

/** Brings the import into a problem state: an injected failure at the next step from `from`. */
async function reachProblem(
  problem: "auth_failed" | "error" | "detection_needs_auth" | "detection_found_nothing" | "detection_found_multiple",
) {
  emulator.imports.failNext(target.owner, target.repo, problem);
  await reach("detecting");
  step();
  expect(await status()).toBe(problem);
}

describe("state table of spec 3.1, row by row", () => {
  it("(none) | PUT without vcs -> detecting: the importer identifies the source-control type", async () => {
    const created = await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    expect(created).toMatchObject({ status: "detecting", vcs: null, vcs_url: SVN_URL, use_lfs: true });
    expect(created.percent).toBeUndefined();
  });

  it("(none) | PUT with vcs -> importing: commit_count and percent appear", async () => {
    const created = await client.imports.startImport({
      ...target,
      vcs_url: SVN_URL,
      vcs: "subversion",
      vcs_username: "octocat",
      vcs_password: "s3cret-pw",
    });
    expect(created).toMatchObject({ status: "importing", vcs: "subversion", percent: 0 });
    expect(created.commit_count).toBeGreaterThan(0);
    expect(JSON.stringify(created)).not.toContain("s3cret-pw");
  });

  it("detecting | importer, detection succeeds -> importing", async () => {
    await reach("detecting");
    expect(step()).toBe("importing");
    const current = await client.imports.getImportStatus(target);
    expect(current).toMatchObject({ status: "importing", vcs: "subversion", percent: 0 });
  });

  it("importing | importer, fetch finishes -> mapping, with no progress fields", async () => {
    await reach("importing");
    step();
    expect((await client.imports.getImportStatus(target)).percent).toBe(50);
    step();
    const fetched = await client.imports.getImportStatus(target);
    expect(fetched).toMatchObject({ status: "importing", percent: 100 });
    expect(fetched.authors_count).toBe(2);
    step();
    const mapping = await client.imports.getImportStatus(target);
    expect(mapping.status).toBe("mapping");
    expect(mapping.percent).toBeUndefined();
    expect(mapping.push_percent).toBeUndefined();
  });

  it("mapping | importer, rewrite finishes -> pushing: push_percent appears", async () => {
    await reach("mapping");
    step();
    expect(await client.imports.getImportStatus(target)).toMatchObject({ status: "pushing", push_percent: 0 });
  });

  it("pushing | importer, push finishes -> complete", async () => {
    await reach("pushing");
    step();
    expect((await client.imports.getImportStatus(target)).push_percent).toBe(50);
    step();
    step();
    const done = await client.imports.getImportStatus(target);
    expect(done).toMatchObject({ status: "complete", status_text: "Done" });
    expect(done.push_percent).toBeUndefined();
  });

  it("detecting | importer, authentication needed -> detection_needs_auth", async () => {
    await reachProblem("detection_needs_auth");
  });

  it("detecting | importer, nothing recognized -> detection_found_nothing", async () => {
    await reachProblem("detection_found_nothing");
  });

  it("detecting | importer, several projects found -> detection_found_multiple with project_choices", async () => {
    await reachProblem("detection_found_multiple");
    const current = await client.imports.getImportStatus(target);
    expect(current.project_choices!.length).toBeGreaterThan(1);
  });

  it("the source itself drives detection: credentials, nothing recognized, several projects", async () => {
    emulator.imports.defineSource("https://tfs.example.com/tfs/guarded", { credentials: { username: "u", password: "p" } });
    await client.imports.startImport({ ...target, vcs_url: "https://tfs.example.com/tfs/guarded" });
    step();
    expect(await status()).toBe("detection_needs_auth");
    await client.imports.cancelImport(target);

    emulator.imports.defineSource("https://example.com/not-a-repo", { recognized: false });
    await client.imports.startImport({ ...target, vcs_url: "https://example.com/not-a-repo" });
    step();
    expect(await status()).toBe("detection_found_nothing");
    await client.imports.cancelImport(target);

    const projects = [
      { vcs: "tfvc", tfvc_project: "alpha", human_name: "alpha (tfs)" },
      { vcs: "tfvc", tfvc_project: "beta", human_name: "beta (tfs)" },
    ];
    emulator.imports.defineSource("https://tfs.example.com/tfs/collection", { vcs: "tfvc", projects });
    await client.imports.startImport({ ...target, vcs_url: "https://tfs.example.com/tfs/collection" });
    step();
    expect((await client.imports.getImportStatus(target)).project_choices).toEqual(projects);
  });

  for (const working of ["detecting", "importing", "mapping", "pushing"] as const) {
    it(`${working} (a working state) | importer, authentication needed -> auth_failed`, async () => {
      await reach(working);
      emulator.imports.failNext(target.owner, target.repo, "auth_failed");
      expect(step()).toBe("auth_failed");
      expect(await status()).toBe("auth_failed");
    });

    it(`${working} (a working state) | importer, failure -> error with failed_step and a message`, async () => {
      await reach(working);
      emulator.imports.failNext(target.owner, target.repo, "error", { message: "remote hung up unexpectedly" });
      step();
      const failed = await client.imports.getImportStatus(target);
      const stepName = { detecting: "detection", importing: "raw", mapping: "rewrite", pushing: "push" }[working];
      expect(failed).toMatchObject({ status: "error", failed_step: stepName, message: "remote hung up unexpectedly" });
    });
  }

  it("auth_failed | PATCH with credentials -> the import restarts in a non-problem state", async () => {
    emulator.imports.defineSource(SVN_URL, { credentials: { username: "octocat", password: "right" } });
    await client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs: "subversion" });
    step();
    expect(await status()).toBe("auth_failed");
    const updated = await client.imports.updateImport({ ...target, vcs_username: "octocat", vcs_password: "right" });
    expect(updated.status).toBe("detecting");
    expect(emulator.imports.runToCompletion(target.owner, target.repo)).toBe("complete");
  });

  it("detection_needs_auth | PATCH with credentials -> the import restarts; wrong ones fail again", async () => {
    emulator.imports.defineSource(SVN_URL, { credentials: { username: "octocat", password: "right" } });
    await reach("detecting");
    step();
    expect(await status()).toBe("detection_needs_auth");
    await client.imports.updateImport({ ...target, vcs_username: "octocat", vcs_password: "wrong" });
    step();
    expect(await status()).toBe("detection_needs_auth");
    const updated = await client.imports.updateImport({ ...target, vcs_username: "octocat", vcs_password: "right" });
    expect(updated.status).toBe("detecting");
    expect(step()).toBe("importing");
  });

  it("detection_found_multiple | PATCH with one project_choices object -> the import restarts", async () => {
    await reachProblem("detection_found_multiple");
    const { project_choices } = await client.imports.getImportStatus(target);
    const updated = await client.imports.chooseProject({ ...target, choice: project_choices![1]! });
    expect(updated).toMatchObject({ status: "importing", vcs: "tfvc", tfvc_project: project_choices![1]!.tfvc_project });
    expect(updated.project_choices).toBeUndefined();
  });

  it("detection_found_multiple | PATCH with a choice that was not offered -> 422", async () => {
    await reachProblem("detection_found_multiple");
    const error = await client.imports.updateImport({ ...target, vcs: "tfvc", tfvc_project: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect((error as ServiceValidationError).errors[0]).toMatchObject({ field: "project_choices" });
  });

  it("detection_found_nothing | DELETE, then PUT with a corrected URL -> (none), then a new import", async () => {
    await reachProblem("detection_found_nothing");
    await client.imports.cancelImport(target);
    await expect(client.imports.getImportStatus(target)).rejects.toBeInstanceOf(NotFoundError);
    const fresh = await client.imports.startImport({ ...target, vcs_url: "https://svn.example.com/svn/corrected" });
    expect(fresh).toMatchObject({ status: "detecting", vcs_url: "https://svn.example.com/svn/corrected" });
  });

  it("detection_found_nothing | restartWithUrl does the DELETE and PUT in one call", async () => {
    await reachProblem("detection_found_nothing");
    const fresh = await client.imports.restartWithUrl({ ...target, vcs_url: "https://svn.example.com/svn/corrected", vcs: "subversion" });
    expect(fresh).toMatchObject({ status: "importing", vcs_url: "https://svn.example.com/svn/corrected" });
    await client.imports.cancelImport(target);
    // With no import left to cancel it simply starts one.
    await expect(client.imports.restartWithUrl({ ...target, vcs_url: SVN_URL })).resolves.toMatchObject({ status: "detecting" });
  });

  const anyStates: (SimulatedStatus | "none")[] = [
    "detecting",
    "importing",
    "mapping",
    "pushing",
    "complete",
    "auth_failed",
    "error",
    "detection_needs_auth",
    "detection_found_nothing",
    "detection_found_multiple",
  ];

  async function reachAny(state: SimulatedStatus): Promise<void> {
    if (state === "detecting" || state === "importing" || state === "mapping" || state === "pushing" || state === "complete")
      return reach(state);
    return reachProblem(state);
  }

  for (const state of anyStates) {
    if (state === "none") continue;
    it(`${state} (any) | PATCH with no parameters -> the import restarts`, async () => {
      await reachAny(state);
      const restarted = await client.imports.updateImport(target);
      // Restart: importing when the version-control type is known, detecting when not (problems here arise while detecting).
      const vcsKnown = ["importing", "mapping", "pushing", "complete"].includes(state);
      expect(restarted.vcs).toBe(vcsKnown ? "subversion" : null);
      const expected = vcsKnown ? "importing" : "detecting";
      expect(restarted.status).toBe(expected);
      expect(restarted.failed_step).toBeUndefined();
      expect(emulator.imports.runToCompletion(target.owner, target.repo)).toBe("complete");
    });

    it(`${state} (any) | DELETE -> import stopped, 204`, async () => {
      await reachAny(state);
      await expect(client.imports.cancelImport(target)).resolves.toBeUndefined();
      expect(emulator.requests.list().at(-1)).toMatchObject({ method: "DELETE", status: 204 });
      await expect(client.imports.getImportStatus(target)).rejects.toBeInstanceOf(NotFoundError);
      expect(() => step()).toThrow(/no import/);
    });
  }
});

describe("retirement at 2024-04-12 00:00 UTC", () => {
  it("one second before the cutoff the endpoints work; at the cutoff every one answers as retired", async () => {
    emulator.clock.set(BEFORE_CUTOFF, { freeze: true });
    await reach("complete");
    await expect(client.imports.getImportStatus(target)).resolves.toMatchObject({ status: "complete" });

    emulator.clock.set(AT_CUTOFF, { freeze: true });
    const calls: (() => Promise<unknown>)[] = [
      () => client.imports.getImportStatus(target),
      () => client.imports.startImport({ ...target, vcs_url: SVN_URL }),
      () => client.imports.updateImport(target),
      () => client.imports.cancelImport(target),
      () => client.imports.getCommitAuthors(target),
      () => client.imports.mapCommitAuthor({ ...target, author_id: 1, name: "x" }),
      () => client.imports.getLargeFiles(target),
      () => client.imports.setLfsPreference({ ...target, use_lfs: "opt_in" }),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetiredEndpointError);
      expect(error).toMatchObject({ code: "retired_endpoint", status: 410, retiredAt: AT_CUTOFF });
      expect((error as Error).message).toContain("2024-04-12");
    }
  });

  it("the emulator's default clock is the real time, after the cutoff: retired", async () => {
    emulator.clock.reset();
    await expect(client.imports.getImportStatus(target)).rejects.toMatchObject({ code: "retired_endpoint" });
  });

  it("retirement wins over maintenance and over the token rules", async () => {
    emulator.clock.set(AT_CUTOFF, { freeze: true });
    emulator.imports.setMaintenance(true);
    await expect(client.imports.getImportStatus(target)).rejects.toBeInstanceOf(RetiredEndpointError);
    const fineGrained = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    await expect(fineGrained.imports.getImportStatus(target)).rejects.toBeInstanceOf(RetiredEndpointError);
  });
});

describe("token rules (spec 5.1: a personal access token (classic) only)", () => {
  it("the emulator refuses fine-grained, app user and installation tokens with 403", async () => {
    for (const name of ["admin", "appUser", "installation"]) {
      const other = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens[name], retry: false });
      await expect(other.imports.getImportStatus(target)).rejects.toBeInstanceOf(ForbiddenError);
    }
  });

  it("a classic token without the repo scope cannot see the private target (404), nor write a public one (403)", async () => {
    const hubot = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classicHubot, retry: false });
    await expect(hubot.imports.getImportStatus(target)).rejects.toBeInstanceOf(NotFoundError);
    await expect(hubot.imports.getImportStatus({ owner: "acme", repo: "web" })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("a client told its token type refuses locally, sending nothing", async () => {
    emulator.requests.clear();
    const declared = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, tokenInfo: { type: "fine_grained" } });
    const error = await declared.imports.startImport({ ...target, vcs_url: SVN_URL }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenTypeRefusedError);
    expect(emulator.requests.list()).toHaveLength(0);
  });
});

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
