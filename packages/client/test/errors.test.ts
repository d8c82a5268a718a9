import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  ServiceValidationError,
  ShiplogClient,
  UnavailableError,
} from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const digest = `sha256:${"f".repeat(64)}`;
const LIST_ROUTE = "/orgs/:org/artifacts/:subject_digest/metadata/deployment-records";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
afterEach(() => emulator.faults.clear());

function clientWith(token: string | undefined) {
  return new ShiplogClient({ baseUrl: emulator.url, token, retry: false });
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe("one error class per meaning, each with a stable code", () => {
  it("401 → AuthenticationError", async () => {
    const error = await failure(
      clientWith("not-a-real-token-123").artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: "authentication_required", status: 401, serviceMessage: "Bad credentials" });
    expect(error.documentationUrl).toMatch(/^https:\/\//);
  });

  it("403 → ForbiddenError naming the permission the endpoint needs", async () => {
    const error = await failure(
      clientWith(emulator.tokens.noGrants).artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest }),
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.code).toBe("forbidden");
    expect(error.acceptedPermissions).toEqual([[{ permission: "artifact_metadata", access: "read" }]]);
    expect(error.message).toMatch(/artifact_metadata \(read\)/);
  });

  it("403 from an endpoint that takes only classic tokens says so, with the scopes (a fine-grained token on the inbox)", async () => {
    const inbox = clientWith(emulator.tokens.admin).notifications.list();
    const error = await inbox.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).message).toBe(
      "GET /notifications answered 403: Resource not accessible by personal access token. " +
        "The endpoint accepts only a personal access token (classic), with the scope notifications or repo",
    );
  });

  it("404 → NotFoundError for a missing organization", async () => {
    const error = await failure(
      clientWith(emulator.tokens.admin).artifacts.listDeploymentRecords({ org: "no-such-org", subject_digest: digest }),
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: "not_found", status: 404 });
  });

  it("422 → ServiceValidationError with the errors[] detail", async () => {
    const client = clientWith(emulator.tokens.admin);
    // Bypass the client's own validation to see the service's answer.
    const error = await failure(
      client.request({
        method: "POST",
        route: "/orgs/{org}/artifacts/metadata/storage-record",
        params: { org: "acme" },
        body: { name: "x", digest: "md5:1" },
      }),
    );
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.code).toBe("validation_failed");
    const fields = (error as ServiceValidationError).errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["digest", "registry_url"]));
  });

  it.each([
    [409, ConflictError, "conflict"],
    [410, GoneError, "gone"],
    [503, UnavailableError, "service_unavailable"],
    [502, UnavailableError, "service_unavailable"],
  ] as const)("%i → %o", async (status, klass, code) => {
    emulator.faults.add({ kind: "status", status, route: LIST_ROUTE, times: 1 });
    const error = await failure(clientWith(emulator.tokens.admin).artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest }));
    expect(error).toBeInstanceOf(klass);
    expect(error).toMatchObject({ code, status });
  });

  it("a spent rate limit → RateLimitedError with the reset time", async () => {
    emulator.faults.add({ kind: "rate_limit", retryAfterSeconds: 120, route: LIST_ROUTE, times: 1 });
    const error = await failure(clientWith(emulator.tokens.admin).artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.code).toBe("rate_limited");
  });
});

describe("the token never leaks", () => {
  it("appears in no message, stack, inspection or serialization of an error", async () => {
    const token = emulator.tokens.noGrants!;
    const errors: unknown[] = [];
    const client = clientWith(token);
    await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest }).catch((e: unknown) => errors.push(e));
    await client.artifacts
      .createStorageRecord({ org: "acme", name: "x", digest: "bad", registry_url: "http://x" })
      .catch((e: unknown) => errors.push(e));
    await new ShiplogClient({ baseUrl: "http://127.0.0.1:1", token, retry: false }).artifacts
      .listDeploymentRecords({ org: "acme", subject_digest: digest })
      .catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      const e = error as Error;
      for (const text of [e.message, e.stack ?? "", JSON.stringify(e), inspect(e, { depth: 10 }), String(e)]) {
        expect(text).not.toContain(token);
      }
    }
    expect(inspect(client, { depth: 10 })).not.toContain(token);
    expect(JSON.stringify(client)).not.toContain(token);
  });
});
