// What a caller reads when a request is refused before sending: each field named, the rule it breaks, and a message
// in words (the schema's own, or a plain one where zod's generic text would show).
import { describe, expect, it } from "vitest";
import { RequestValidationError, ShiplogClient } from "@shiplog/client";

// Nothing listens on port 9: a request that got past the checks would fail with a network error instead.
const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", token: "t0ken", retry: false });
const digest = `sha256:${"a".repeat(64)}`;

async function refused(call: Promise<unknown>): Promise<[string, string, string][]> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  return (error as RequestValidationError).issues.map((i) => [i.field, i.rule, i.message]);
}

describe("field issues of a refused request", () => {
  it("say the rule in words: empty, too long, not one of the values", async () => {
    const issues = await refused(
      client.artifacts.createStorageRecord({
        org: "acme",
        name: "",
        digest,
        registry_url: "https://ghcr.io",
        version: "1".repeat(101),
        status: "gone" as "active",
      }),
    );
    expect(issues).toEqual([
      ["name", "minLength 1", "must not be empty"],
      ["version", "maxLength 100", "must be at most 100 characters"],
      ["status", "one of active, inactive, eol, deleted", "must be one of active, inactive, eol, deleted"],
    ]);
  });

  it("an empty list, a number of the wrong kind, a type of the wrong kind", async () => {
    expect(
      await refused(client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "c", logical_environment: "p", deployments: [] })),
    ).toEqual([["deployments", "minItems 1", "must not be empty"]]);
    expect(await refused(client.notifications.getThread({ thread_id: 1.5 }))).toEqual([
      ["thread_id", "type int or type string", "must be a positive integer (a number, or its digits as a string)"],
    ]);
    expect(
      await refused(
        client.git.updateRef({ owner: "acme", repo: "web", ref: "tags/v1", sha: "a".repeat(40), force: "yes" as unknown as boolean }),
      ),
    ).toEqual([["force", "type boolean", "must be of type boolean"]]);
  });

  it("keep the schema's own message where it has one", async () => {
    expect(await refused(client.artifacts.listStorageRecords({ org: "acme", subject_digest: "sha256:ABC" }))).toEqual([
      ["subject_digest", "pattern /^sha256:[a-f0-9]{64}$/", "must be sha256: followed by 64 lowercase hex digits"],
    ]);
  });
});
