// The client's source import schemas accept every official example of the eight operations (requests and responses).
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  getCommitAuthorsParams,
  importAuthor,
  importAuthorList,
  importLargeFileList,
  importRepoParams,
  mapCommitAuthorParams,
  setLfsPreferenceParams,
  sourceImport,
  startImportParams,
  updateImportParams,
} from "@shiplog/client";
import { requestExamples, responseExamples } from "../../../test/support/openapi-contract.js";

const R = "/repos/{owner}/{repo}/import";
const operations: { method: string; path: string; response: z.ZodType; params: z.ZodType; extra?: Record<string, unknown> }[] = [
  { method: "GET", path: R, response: sourceImport, params: importRepoParams },
  { method: "PUT", path: R, response: sourceImport, params: startImportParams },
  { method: "PATCH", path: R, response: sourceImport, params: updateImportParams },
  { method: "GET", path: `${R}/authors`, response: importAuthorList, params: getCommitAuthorsParams },
  { method: "PATCH", path: `${R}/authors/{author_id}`, response: importAuthor, params: mapCommitAuthorParams, extra: { author_id: 2268557 } },
  { method: "GET", path: `${R}/large_files`, response: importLargeFileList, params: importRepoParams },
  { method: "PATCH", path: `${R}/lfs`, response: sourceImport, params: setLfsPreferenceParams },
];

describe("official examples", () => {
  for (const op of operations) {
    it(`${op.method} ${op.path}: every response and request example parses`, () => {
      const responses = responseExamples(op.method, op.path).filter(([status]) => status.startsWith("2"));
      expect(responses.length).toBeGreaterThan(0);
      for (const [, name, value] of responses) {
        const result = op.response.safeParse(value);
        expect(result.success, `${name}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
      }
      for (const [name, value] of requestExamples(op.method, op.path)) {
        const result = op.params.safeParse({ owner: "octocat", repo: "socm", ...op.extra, ...(value as object) });
        expect(result.success, `${name}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
      }
    });
  }

  it("the DELETE operation exists and answers 204 without a body", () => {
    expect(responseExamples("DELETE", R)).toEqual([]);
  });
});
