// The client's source import schemas accept every official example of the eight operations (requests and responses).
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as shiplog from "@shiplog/client";
import { requestExamples, responseExamples } from "../../../test/support/openapi-contract.js";

const R = "/repos/{owner}/{repo}/import";
const operations: { method: string; path: string; response: z.ZodType; params: z.ZodType; extra?: Record<string, unknown> }[] = [
  { method: "GET", path: R, response: shiplog.sourceImport, params: shiplog.importRepoParams },
  { method: "PUT", path: R, response: shiplog.sourceImport, params: shiplog.startImportParams },
  { method: "PATCH", path: R, response: shiplog.sourceImport, params: shiplog.updateImportParams },
  { method: "GET", path: `${R}/authors`, response: shiplog.importAuthorList, params: shiplog.getCommitAuthorsParams },
  { method: "PATCH", path: `${R}/authors/{author_id}`, response: shiplog.importAuthor, params: shiplog.mapCommitAuthorParams, extra: { author_id: 2268557 } },
  { method: "GET", path: `${R}/large_files`, response: shiplog.importLargeFileList, params: shiplog.importRepoParams },
  { method: "PATCH", path: `${R}/lfs`, response: shiplog.sourceImport, params: shiplog.setLfsPreferenceParams },
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
