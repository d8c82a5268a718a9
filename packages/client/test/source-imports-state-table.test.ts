// Source imports (retired) through the client against the emulator: every row of the state table of spec 3.1.
import { describe, expect, it } from "vitest";
import { NotFoundError, ServiceValidationError } from "@shiplog/client";
import type { SimulatedStatus } from "@shiplog/emulator";
import { SVN_URL, client, emulator, target, useImportEmulator } from "./source-imports-setup.js";
import { BEFORE_CUTOFF, reach, reachProblem, status, step } from "./source-imports-reach.js";

// The deprecation warning is tested in a child process (source-imports-warning.integration.test.ts); here it would only add noise.
process.noDeprecation = true;

useImportEmulator(BEFORE_CUTOFF);

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
