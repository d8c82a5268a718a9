// An error's `code` tells the caller which error it is, and narrows it to its class: `isShiplogError(error, code)`,
// or `switch (error.code)` after `isShiplogError(error)`. The type checks below run in `tsc -p test`.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, RequestValidationError, ShiplogClient, ShiplogError, isShiplogError, type ShiplogErrorCode } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

let emulator: Emulator;
let client: ShiplogClient;
beforeAll(async () => {
  emulator = await startEmulator();
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
});
afterAll(() => emulator.stop());

const digest = (n: number) => `sha256:${createHash("sha256").update(`svc-${n}`).digest("hex")}`;
const failure = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

/** What a caller writes: one switch over the code, each branch using its class's own fields. */
function describeFailure(error: unknown): string {
  if (!isShiplogError(error)) return "not the client's";
  switch (error.code) {
    case "invalid_request":
      return `fix ${error.issues.map((i) => i.field).join(", ")}`;
    case "not_found":
      return `no ${error.route} (${error.status})`;
    case "partial_write":
      return `${error.writtenEntries} written, ${error.notWritten.length} to send again`;
    default:
      return error.code;
  }
}

describe("errors narrow by code", () => {
  it("a call's errors are told apart by their code, each with its class's fields", async () => {
    const invalid = await failure(client.artifacts.listStorageRecords({ org: "acme", subject_digest: "sha256:nope" }));
    expect(describeFailure(invalid)).toBe("fix subject_digest");
    expect(isShiplogError(invalid, "invalid_request")).toBe(true);
    expect(isShiplogError(invalid, "not_found")).toBe(false);

    const missing = await failure(client.artifacts.listStorageRecords({ org: "nope", subject_digest: digest(0) }));
    expect(describeFailure(missing)).toBe("no /orgs/{org}/artifacts/{subject_digest}/metadata/storage-records (404)");
    if (!isShiplogError(missing, "not_found")) throw new Error("expected not_found");
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.status).toBe(404);

    // 1500 entries, the 1201st naming a repository that does not exist: the second chunk is refused.
    const deployments = Array.from({ length: 1500 }, (_, n) => ({
      name: `ghcr.io/acme/svc-${n}`,
      digest: digest(n),
      deployment_name: `svc-${n}`,
      github_repository: n === 1200 ? "no-such-repository" : "web",
    }));
    const partial = await failure(
      client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "c1", logical_environment: "p", deployments }),
    );
    expect(describeFailure(partial)).toBe("1000 written, 500 to send again");
    expect(isShiplogError(partial, "partial_write") && partial.failedChunk.outcome).toBe("refused");
  });

  it("another package's ShiplogError is not taken for the client's, even with a code the client uses", () => {
    class PluginError extends ShiplogError {}
    const foreign = new PluginError("not_found", "the plugin's own not_found");
    expect(isShiplogError(foreign)).toBe(false);
    expect(isShiplogError(foreign, "not_found")).toBe(false);
    expect(isShiplogError(new Error("plain"))).toBe(false);
    expect(isShiplogError("not_found")).toBe(false);
  });

  it("each class carries its own code as a literal type", () => {
    const error = new RequestValidationError("op", []);
    const code: "invalid_request" = error.code;
    expect(code).toBe("invalid_request");
    // @ts-expect-error -- a code no client error carries is a compile error, not a branch that never runs
    expect(isShiplogError(error, "no_such_code")).toBe(false);
    const partial: ShiplogErrorCode = "partial_write";
    expect(isShiplogError(new RequestValidationError("op", []), partial)).toBe(false);
  });
});
