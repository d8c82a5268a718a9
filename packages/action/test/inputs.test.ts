// Input checking and the report, as plain data: what the action plans from its inputs, and how it explains failures.
import { describe, expect, it } from "vitest";
import { ForbiddenError, TagExistsError } from "@shiplog/client";
import { planFromInputs } from "../src/action-plan.js";
import type { RawInputs } from "../src/inputs.js";
import { explainFailure } from "../src/failure-messages.js";
import { problemTitle } from "../src/input-rules.js";
import {
  PLAN_LOG_MAX_LINES,
  SUMMARY_MAX_BYTES,
  planLog,
  renderSummary,
  runOutputs,
  type StorageRecordReport,
  type TagReport,
} from "../src/run-report.js";

const context = { repository: "acme/web", sha: "a".repeat(40), apiUrl: "https://api.service.example" };
const digest = `sha256:${"b".repeat(64)}`;
const plan = (raw: RawInputs) => planFromInputs({ token: "t0ken", ...raw }, context);

describe("planFromInputs", () => {
  it("defaults: the workflow's commit, the tag name as message, skip, the runner's API URL, the repository's name", () => {
    const { plan: p } = plan({ tag: "v1", "subject-digest": digest, "subject-name": "app", "registry-url": "https://r.example/" });
    expect(p?.tag).toEqual({
      params: { owner: "acme", repo: "web", tag: "v1", message: "v1", object: "a".repeat(40), type: "commit" },
      tags: [{ tag: "v1", ifExists: "skip" }],
      message: undefined,
    });
    expect(p?.apiUrl).toBe("https://api.service.example");
    expect(p?.storage).toMatchObject({
      org: "acme",
      name: "app",
      digests: [digest],
      fields: { github_repository: "web", registry_url: "https://r.example/" },
    });
    expect(p?.dryRun).toBe(false);
  });

  it("takes several digests, one per line or comma", () => {
    const other = `sha256:${"c".repeat(64)}`;
    const { plan: p } = plan({
      "subject-digest": `${digest}\n${other}, ${digest.replace("b", "d")}`,
      "subject-name": "app",
      "registry-url": "https://r.example/",
    });
    expect(p?.storage?.digests).toHaveLength(3);
  });

  it("reports every problem at once, named by input and rule", () => {
    const { problems } = plan({
      token: "",
      tag: "v1",
      "tagger-name": "x",
      "tagger-date": "soon",
      "tag-type": "branch",
      "subject-digest": digest,
      "dry-run": "yes",
    });
    expect(problems.map(problemTitle)).toEqual([
      "Invalid input: token is required",
      "Invalid input: dry-run must be true or false",
      "Invalid input: tagger-email is required with tagger-name",
      "Invalid input: tag-type must be one of commit, tree, blob",
      "Invalid input: subject-name is required with subject-digest",
      "Invalid input: registry-url is required for storage records (unless subject-name is an image)",
    ]);
  });

  it("tag-type: commit, tree or blob; a tag of a tag object is refused before sending, as the service refuses it", () => {
    for (const type of ["commit", "tree", "blob"]) expect(plan({ tag: "v1", "tag-type": type }).problems).toEqual([]);
    expect(plan({ tag: "v1", "tag-type": "tag" }).problems).toEqual([
      { input: "tag-type", rule: "one of", message: "tag-type: must be one of commit, tree, blob" },
    ]);
  });

  it("maps the schema's field rules back to inputs", () => {
    const { problems } = plan({
      tag: "v1",
      "tag-object": "HEAD",
      "tag-type": "branch",
      "tagger-name": "a",
      "tagger-email": "b",
      "tagger-date": "soon",
    });
    expect(problems.map((p) => p.input)).toEqual(["tag-object", "tag-type", "tagger-date"]);
  });

  it("refuses inputs that would be silently ignored, and an empty run", () => {
    expect(plan({ "registry-url": "https://r.example/" }).problems.map((p) => p.input)).toEqual(["registry-url"]);
    expect(plan({ "tag-message": "m" }).problems.map((p) => p.input)).toEqual(["tag-message"]);
    expect(plan({}).problems).toEqual([expect.objectContaining({ input: "tag", rule: "something to do" })]);
  });

  it("api-url: https anywhere, plain http only to a loopback host (the token would otherwise travel in clear text)", () => {
    const apiUrlProblems = (apiUrl: string) => plan({ tag: "v1", "api-url": apiUrl }).problems.filter((p) => p.input === "api-url");
    for (const ok of [
      "https://api.service.example",
      "http://127.0.0.1:8080",
      "http://127.9.8.7/api",
      "http://127.1:9",
      "http://localhost:3000",
      "http://LOCALHOST./",
      "http://[::1]:4000",
    ]) {
      expect(apiUrlProblems(ok), ok).toEqual([]);
    }
    for (const bad of [
      "http://api.service.example",
      "http://10.0.0.1",
      "http://128.0.0.1",
      "http://localhost.evil.example",
      "http://[::2]:80",
      "http://127.0.0.1.nip.io",
      "http://web.localhost",
    ]) {
      expect(apiUrlProblems(bad), bad).toEqual([
        expect.objectContaining({
          input: "api-url",
          rule: "https unless loopback",
          message: expect.stringContaining("allowed only for a loopback host (localhost, 127.0.0.0/8, ::1)"),
        }),
      ]);
    }
    expect(apiUrlProblems("ftp://api.service.example")).toEqual([expect.objectContaining({ rule: "absolute http(s) URL" })]);
    // Credentials in the URL are refused, and the message does not repeat them.
    const withCredentials = apiUrlProblems("https://robot:s3cret-pass@api.service.example");
    expect(withCredentials).toEqual([expect.objectContaining({ input: "api-url", rule: "no credentials in the URL" })]);
    expect(JSON.stringify(withCredentials)).not.toContain("s3cret-pass");
    // The runner's GITHUB_API_URL is held to the same rule when api-url is left to its default.
    expect(planFromInputs({ token: "t", tag: "v1" }, { ...context, apiUrl: "http://api.service.example" }).problems).toEqual([
      expect.objectContaining({ input: "api-url" }),
    ]);
  });

  it("needs GITHUB_REPOSITORY", () => {
    expect(planFromInputs({ token: "t", tag: "v1" }, { ...context, repository: undefined }).problems[0]).toMatchObject({
      input: "GITHUB_REPOSITORY",
    });
  });
});

describe("explainFailure", () => {
  it("a 403 names the permission, the level, and the workflow permissions line", () => {
    const error = new ForbiddenError({
      status: 403,
      method: "POST",
      route: "/orgs/{org}/artifacts/metadata/storage-record",
      serviceMessage: "Resource not accessible by integration",
      acceptedPermissions: [[{ permission: "artifact_metadata", access: "write" }]],
    });
    const explained = explainFailure(error, { kind: "storage-record", org: "acme", subject: "app@sha256:x", githubRepository: "web" });
    expect(explained.title).toBe("Permission missing");
    // The repository named is the code repository (github-repository), not the one within the registry.
    expect(explained.message).toMatch(/^Recording storage of app@sha256:x in organization acme \(code repository web\)/);
    expect(explained.message).toContain(
      "It needs the Artifact metadata (write) permission: add `permissions: { artifact-metadata: write }` to the job",
    );
    expect(explained.message).toContain("Artifact metadata: Read and write");
  });

  it("a taken tag keeps the client's account of where it points", () => {
    const error = new TagExistsError(
      { ref: "refs/tags/v1", refTargetType: "commit", refTargetSha: "c".repeat(40) },
      "refs/tags/v1 in acme/web already exists as a lightweight tag pointing at commit ccc",
      false,
    );
    expect(explainFailure(error, { kind: "tag", repository: "acme/web", tag: "v1" }).message).toMatch(
      /^refs\/tags\/v1 in acme\/web already exists as a lightweight tag pointing at commit ccc\. The action never moves/,
    );
  });
});

describe("report", () => {
  it("outputs and summary of a run, with cells escaped", () => {
    const report = {
      dryRun: false,
      repository: "acme/web",
      tag: {
        outcome: "created" as const,
        ref: "refs/tags/v1",
        sha: "d".repeat(40),
        object: { type: "commit", sha: "a".repeat(40) },
        message: "a | b\nsecond line",
      },
      storageRecords: [
        {
          outcome: "created" as const,
          name: "app",
          digest,
          registry_url: "https://r.example/",
          repository: "acme/app",
          github_repository: "web",
          record: { id: 7, name: "app", digest, status: "active" },
        },
      ],
    };
    expect(runOutputs(report)).toEqual({
      "tag-sha": "d".repeat(40),
      "tag-ref": "refs/tags/v1",
      "tag-outcome": "created",
      tags: JSON.stringify([{ tag: "v1", ref: "refs/tags/v1", outcome: "created", sha: "d".repeat(40) }]),
      "storage-records": JSON.stringify([{ id: 7, name: "app", digest, status: "active" }]),
    });
    const summary = renderSummary(report);
    // "Object" is what the tag points at (type and sha), beside the tag object it is.
    expect(summary).toContain(
      "| Tag | Outcome | Tag object | Object | Message |\n| --- | --- | --- | --- | --- |\n| `refs/tags/v1` | created | `dddddddddddd` | commit `aaaaaaaaaaaa` | a \\| b |",
    );
    // Each repository column says which: the registry's (storage record `repository`) or the code's (`github_repository`).
    expect(summary).toContain(
      "| Name | Digest | Registry | Registry repository | Status | Code repository | Outcome | Record id |\n" +
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n" +
        "| app | `sha256:bbbbbbbbbbbb`… | https://r.example/ | acme/app | active | web | created | 7 |",
    );
  });

  it("the summary stays within the runner's 1 MiB: cut at a whole row, with a note", () => {
    const record = (i: number) => ({
      outcome: "dry-run" as const,
      name: `artifact-${i}-${"n".repeat(200)}`,
      digest,
      registry_url: `https://r.example/${"p".repeat(200)}`,
    });
    const report = { dryRun: true, repository: "acme/web", storageRecords: Array.from({ length: 4000 }, (_, i) => record(i)) };
    expect(Buffer.byteLength(renderSummary(report, Number.MAX_SAFE_INTEGER))).toBeGreaterThan(SUMMARY_MAX_BYTES);
    const summary = renderSummary(report);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(summary).toMatch(/\n> \*\*Summary truncated\*\* at \d+ of \d+ lines: the runner keeps at most 1024 KiB of a step's summary\./);
    expect(
      summary
        .split("\n")
        .filter((line) => line.startsWith("| artifact-"))
        .every((line) => line.endsWith("|")),
    ).toBe(true);
    expect(renderSummary({ ...report, storageRecords: report.storageRecords.slice(0, 3) })).not.toContain("truncated");
  });
});

describe("the plan of a dry run, for the step's log", () => {
  const tagReport = (tag: string, extra: Partial<TagReport> = {}): TagReport => ({
    outcome: "dry-run",
    ref: `refs/tags/${tag}`,
    object: { type: "commit", sha: "a".repeat(40) },
    message: tag,
    ...extra,
  });
  const record = (i: number): StorageRecordReport => ({
    outcome: "dry-run",
    name: `a${i}.tgz`,
    digest,
    registry_url: "https://r.example/",
    github_repository: "web",
  });

  it("one line per tag and per storage record, each saying where it goes", () => {
    const lines = planLog({
      dryRun: true,
      repository: "acme/web",
      tags: [tagReport("v1.4.0", { ifExists: "skip", message: "Release\nnotes" }), tagReport("v1", { derivedFrom: "v1.4.0" })],
      storageRecords: [{ ...record(0), name: "odd\nname", repository: "acme/app", version: "1.4.0", status: "active" }],
    });
    expect(lines).toEqual([
      "Dry run: nothing was sent. It would write 2 tags and 1 storage record:",
      `  tag v1.4.0 in acme/web → commit ${"a".repeat(40)}, message "Release" (if it exists: skip)`,
      `  tag v1 in acme/web → commit ${"a".repeat(40)}, message "v1" (moved with v1.4.0)`,
      `  storage record odd name ${digest} in https://r.example/ (registry repository acme/app, code repository web, version 1.4.0, status active)`,
    ]);
  });

  it("bounded: past the cap, a last line counts the rest", () => {
    const lines = planLog(
      { dryRun: true, repository: "acme/web", tags: [tagReport("v2")], storageRecords: [0, 1, 2, 3, 4].map(record) },
      3,
    );
    expect(lines).toHaveLength(5);
    expect(lines[3]).toContain("storage record a1.tgz");
    expect(lines[4]).toBe("  ... and 3 more (3 storage records): every one is in the job summary and the step's outputs");
    const many = planLog({ dryRun: true, repository: "acme/web", storageRecords: Array.from({ length: 250 }, (_, i) => record(i)) });
    expect(many).toHaveLength(PLAN_LOG_MAX_LINES + 2);
    expect(many.at(-1)).toBe(
      `  ... and ${250 - PLAN_LOG_MAX_LINES} more (${250 - PLAN_LOG_MAX_LINES} storage records): every one is in the job summary and the step's outputs`,
    );
  });
});
