// Every endpoint of the client's registry against the official OpenAPI description (npm @octokit/openapi): the
// registry's operation id is the official one for its method and route, the answer schema accepts every official
// 2xx example, and the parameter schema every official request example. The list is the registry itself: an
// endpoint added there is checked here without a line changed.
import { describe, expect, it } from "vitest";
import { endpointList } from "@shiplog/client/endpoints";
import { operation, requestExamples, responseExamples, toService } from "./support/openapi-contract.js";

/** Path parameter values to go with the request examples, which give bodies only. */
const PATH_VALUES: Record<string, string | number> = {
  org: "acme",
  owner: "octocat",
  repo: "hello-world",
  cluster: "prod-eu-1",
  subject_digest: `sha256:${"a".repeat(64)}`,
  tag_sha: "a".repeat(40),
  commit_sha: "a".repeat(40),
  ref: "tags/v1",
  thread_id: 1,
  event_id: 1,
  issue_number: 1,
  author_id: 2268557,
  installation_id: 1,
  username: "octocat",
};

function pathValues(route: string): Record<string, string | number> {
  const names = [...route.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
  const missing = names.filter((name) => !(name in PATH_VALUES));
  if (missing.length > 0) throw new Error(`contract-endpoints.test.ts: give a value for ${missing.join(", ")} in PATH_VALUES`);
  return Object.fromEntries(names.map((name) => [name, PATH_VALUES[name]!]));
}

const endpoints = endpointList();

describe("the registry", () => {
  it("covers the endpoints the client calls, each once", () => {
    const keys = endpoints.map((e) => `${e.method} ${e.route}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(endpoints.length).toBeGreaterThanOrEqual(46);
  });
});

for (const endpoint of endpoints) {
  const { operationId, method, route } = endpoint;
  describe(`${operationId} (${method} ${route})`, () => {
    it("is the official operation of its method and route", () => {
      expect(operation(method, route).operationId).toBe(operationId);
    });

    const answers = responseExamples(method, route).filter(([status]) => status.startsWith("2"));
    if (endpoint.response) {
      const schema = endpoint.response;
      it("has official answer examples", () => expect(answers.length).toBeGreaterThan(0));
      for (const [status, name, value] of answers) {
        it(`accepts the official ${status} answer "${name}"`, () => {
          expect(schema.safeParse(toService(value)).error?.issues ?? []).toEqual([]);
        });
      }
    } else {
      it("answers without a body, as the official description says", () => expect(answers).toEqual([]));
    }

    for (const [name, value] of requestExamples(method, route)) {
      it(`takes the official request "${name}"`, () => {
        const params = { ...pathValues(route), ...(value as object) };
        expect(endpoint.params.safeParse(params).error?.issues ?? []).toEqual([]);
      });
    }
  });
}
