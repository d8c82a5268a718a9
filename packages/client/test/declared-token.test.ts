import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForbiddenError, MissingGrantError, ShiplogClient, TokenTypeRefusedError } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const digest = `sha256:${"9".repeat(64)}`;
const entry = { name: "web", digest, deployment_name: "web", github_repository: "web" };

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());

describe("a client that knows its token's type and grants checks before sending", () => {
  it("refuses a write the token's permissions do not allow, naming the permission and level", async () => {
    emulator.requests.clear();
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.readOnly,
      tokenInfo: { type: "fine_grained", permissions: { artifact_metadata: "read", contents: "read" } },
    });
    const error = await client.artifacts
      .setClusterDeploymentRecords({ org: "acme", cluster: "c1", logical_environment: "prod", deployments: [entry] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingGrantError);
    expect(error).toMatchObject({
      code: "permission_missing",
      missing: [{ kind: "permission", permission: "artifact_metadata", access: "write", granted: "read" }],
    });
    expect((error as Error).message).toMatch(/Artifact metadata \(repository\) write \(the token has read\)/);
    expect(emulator.requests.count()).toBe(0);
  });

  it("lets through what the grants allow", async () => {
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.readOnly,
      tokenInfo: { type: "fine_grained", permissions: { artifact_metadata: "read", contents: "read" } },
    });
    await expect(client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: digest })).resolves.toMatchObject({
      total_count: 0,
    });
  });

  it("lets a publicly readable GET through whatever the scopes: only the service knows whether the repository is public", async () => {
    emulator.requests.clear();
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.classicHubot,
      retry: false,
      tokenInfo: { type: "classic", scopes: ["notifications"] },
    });
    // Public repository: the service answers any caller.
    await expect(client.issueEvents.listForRepo({ owner: "acme", repo: "web" }).next()).resolves.toBeDefined();
    expect(emulator.requests.list().map((r) => r.status)).toEqual([200]);
    // Private repository: the service, not the client, refuses the missing repo scope.
    const error = await client.issueEvents
      .listForRepo({ owner: "acme", repo: "api" })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(emulator.requests.list().map((r) => r.status)).toEqual([200, 403]);
  });

  it("refuses a token type the endpoint does not accept", async () => {
    emulator.requests.clear();
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.installation,
      tokenInfo: { type: "app_installation" },
    });
    const error = await client.notifications.markAllAsRead().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenTypeRefusedError);
    expect((error as Error).message).toMatch(/personal access token \(classic\)/);
    expect(emulator.requests.count()).toBe(0);
  });
});

describe("a 403 names what the endpoint needs", () => {
  it("from X-Accepted-Service-Permissions when the service sends it", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly, retry: false });
    const error = await client.artifacts
      .setClusterDeploymentRecords({ org: "acme", cluster: "c1", logical_environment: "prod", deployments: [entry] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).acceptedPermissions).toEqual([[{ permission: "artifact_metadata", access: "write" }]]);
    expect((error as Error).message).toMatch(/needs artifact_metadata \(write\)/);
  });

  it("from the permission matrix when the answer has no such header", async () => {
    emulator.faults.add({
      kind: "status",
      status: 403,
      message: "Resource not accessible by integration",
      route: "/repos/:owner/:repo/git/tags",
      times: 1,
    });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.installation, retry: false });
    const error = await client
      .request({ method: "POST", route: "/repos/{owner}/{repo}/git/tags", params: { owner: "acme", repo: "web" }, body: {} })
      .catch((e: unknown) => e);
    emulator.faults.clear();
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).acceptedPermissions).toEqual([[{ permission: "contents", access: "write" }]]);
    expect((error as Error).message).toMatch(/contents \(write\)/);
  });
});
