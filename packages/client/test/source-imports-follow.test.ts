// followImport against the emulator: progress yielded change by change, the next step offered for each problem
// state, LFS decisions, abort and early exit. The injected clock's waits step the simulated importer: no real waiting.
import { describe, expect, it } from "vitest";
import { AbortedError, describeImport, followImport, type ImportUpdate, type SourceImport } from "@shiplog/client";
import { SVN_URL, client, emulator, target, useImportEmulator } from "./source-imports-setup.js";
import { actingClock } from "../../../test/kit/virtual-clock.js";

process.noDeprecation = true;

useImportEmulator("2024-03-01T12:00:00Z");

/** A clock whose waits advance the importer one step instead of waiting; records the intervals asked for. */
function steppingClock(intervals: number[] = []) {
  return actingClock((ms) => {
    intervals.push(ms);
    emulator.imports.step(target.owner, target.repo);
  });
}

async function collect(iterator: AsyncIterable<ImportUpdate>): Promise<ImportUpdate[]> {
  const out: ImportUpdate[] = [];
  for await (const update of iterator) out.push(update);
  return out;
}

describe("followImport", () => {
  it("yields every change from detecting to complete with its progress, then stops", async () => {
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    const intervals: number[] = [];
    const updates = await collect(client.imports.follow(target, { intervalMs: 1234, clock: steppingClock(intervals) }));
    expect(updates.map((u) => [u.status, u.progress.percent ?? u.progress.push_percent ?? null])).toEqual([
      ["detecting", null],
      ["importing", 0],
      ["importing", 50],
      ["importing", 100],
      ["mapping", null],
      ["pushing", 0],
      ["pushing", 50],
      ["pushing", 100],
      ["complete", null],
    ]);
    expect(updates.at(-1)).toMatchObject({ phase: "complete", statusText: "Done" });
    expect(updates.at(-1)!.nextStep).toBeUndefined();
    expect(updates[3]!.progress).toMatchObject({ commit_count: expect.any(Number), authors_count: 2, has_large_files: false });
    expect(new Set(intervals)).toEqual(new Set([1234]));
  });

  const problems = [
    ["auth_failed", "provide_credentials"],
    ["detection_needs_auth", "provide_credentials"],
    ["detection_found_multiple", "choose_project"],
    ["detection_found_nothing", "correct_url"],
    ["error", "restart_or_contact_support"],
  ] as const;
  for (const [problem, kind] of problems) {
    it(`stops at ${problem} and offers ${kind}`, async () => {
      emulator.imports.failNext(target.owner, target.repo, problem);
      await client.imports.startImport({ ...target, vcs_url: SVN_URL });
      const updates = await collect(client.imports.follow(target, { clock: steppingClock() }));
      const last = updates.at(-1)!;
      expect(last).toMatchObject({ status: problem, phase: "problem", nextStep: { kind } });
      expect(updates.slice(0, -1).every((u) => u.phase === "working")).toBe(true);
      if (last.nextStep?.kind === "choose_project") expect(last.nextStep.choices.length).toBeGreaterThan(1);
      if (last.nextStep?.kind === "correct_url") expect(last.nextStep.vcs_url).toBe(SVN_URL);
      if (last.nextStep?.kind === "restart_or_contact_support") expect(last.nextStep.failed_step).toBe("detection");
    });
  }

  it("following the offered steps settles every problem and reaches complete", async () => {
    emulator.imports.defineSource(SVN_URL, { credentials: { username: "octocat", password: "pw" } });
    emulator.imports.failNext(target.owner, target.repo, "detection_found_multiple");
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    const seen: string[] = [];
    for (let round = 0; round < 5; round++) {
      const last = (await collect(client.imports.follow(target, { clock: steppingClock() }))).at(-1)!;
      seen.push(last.status);
      const step = last.nextStep;
      if (last.phase === "complete") break;
      if (step?.kind === "choose_project") await client.imports.chooseProject({ ...target, choice: step.choices[0]! });
      else if (step?.kind === "provide_credentials")
        await client.imports.updateImport({ ...target, vcs_username: "octocat", vcs_password: "pw" });
      else throw new Error(`unexpected ${last.status}`);
    }
    // The choice goes straight to importing, where the source demands the credentials.
    expect(seen).toEqual(["detection_found_multiple", "auth_failed", "complete"]);
  });

  it("follows an import with large files to the end; a boolean use_lfs (as the service's samples show) is read as decided", async () => {
    emulator.imports.defineSource(SVN_URL, { files: [{ path: "big.iso", size: 200 * 1024 * 1024 }] });
    await client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs: "subversion" });
    const updates = await collect(client.imports.follow(target, { clock: steppingClock() }));
    // The emulator answers use_lfs as the samples do (a boolean), which cannot say "undecided": no choose_lfs hint.
    expect(updates.at(-1)).toMatchObject({ status: "complete" });
    expect(updates.at(-1)?.nextStep).toBeUndefined();
    await client.imports.setLfsPreference({ ...target, use_lfs: "opt_in" });
    const [after] = await collect(client.imports.follow(target));
    expect(after!.nextStep).toBeUndefined();
  });

  it("yields only changes, and the last poll when maxPolls runs out", async () => {
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    const updates = await collect(followImport(client.imports, target, { clock: actingClock(() => {}), maxPolls: 4 }));
    expect(updates.map((u) => u.status)).toEqual(["detecting", "detecting"]);
    const every = await collect(followImport(client.imports, target, { clock: actingClock(() => {}), maxPolls: 3, everyPoll: true }));
    expect(every).toHaveLength(3);
  });

  it("stops with AbortedError when the signal fires, and stops polling when the caller breaks", async () => {
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    const controller = new AbortController();
    const clock = actingClock(
      (_ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          controller.abort(new Error("user cancelled"));
        }),
    );
    const iterator = client.imports.follow(target, { signal: controller.signal, clock });
    const first = await iterator.next();
    expect(first.value).toMatchObject({ status: "detecting" });
    await expect(iterator.next()).rejects.toBeInstanceOf(AbortedError);

    emulator.requests.clear();
    for await (const update of client.imports.follow(target, { clock: steppingClock() })) {
      if (update.status === "importing") break;
    }
    expect(emulator.requests.list().filter((r) => r.method === "GET")).toHaveLength(2);
    expect(emulator.imports.get(target.owner, target.repo)!.state.status).toBe("importing");
  });
});

describe("describeImport (pure)", () => {
  const base: SourceImport = {
    vcs: "git",
    vcs_url: "https://example.com/r.git",
    status: "importing",
    url: "u",
    html_url: "h",
    authors_url: "a",
    repository_url: "r",
  };

  it("reads the OpenAPI names of the progress and error fields as well as the spec's", () => {
    expect(describeImport({ ...base, import_percent: 40, commit_count: 9 }).progress).toMatchObject({ percent: 40, commit_count: 9 });
    const failed = describeImport({ ...base, status: "error", failed_step: "raw", error_message: "boom" });
    expect(failed.nextStep).toMatchObject({ kind: "restart_or_contact_support", failed_step: "raw", error: "boom" });
  });

  it("treats a boolean use_lfs as decided and the statuses outside the spec as working", () => {
    expect(describeImport({ ...base, status: "complete", has_large_files: true, use_lfs: true }).nextStep).toBeUndefined();
    expect(describeImport({ ...base, status: "complete", has_large_files: true, use_lfs: "undecided" }).nextStep?.kind).toBe("choose_lfs");
    expect(describeImport({ ...base, status: "waiting_to_push" }).phase).toBe("working");
  });
});
